import { AGENTS_SCOPE } from '../contract/scopes';
import { TokenGate } from '../features/connection/token-prompt';
import { DurableRunPage } from '../features/runs/routes/durable-run-page';

/**
 * A durable run's page. Opened from a link in a new tab it has no token yet (tokens are per tab
 * by default): the gate asks for one. Loaded with the page, not with the first page's code.
 */
export function DurableRunRoute() {
  return (
    <TokenGate scope={AGENTS_SCOPE} why="A durable run can be read only with the token that started it.">
      <DurableRunPage />
    </TokenGate>
  );
}
