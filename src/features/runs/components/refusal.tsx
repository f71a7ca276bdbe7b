import { isProblemDetail } from '../../../contract/problem';
import { toolSuggestionsOf } from '../../../contract/tool-servers';
import type { ApiError } from '../../../lib/api-client';
import { ErrorDetails } from '../../../components/error-details';
import { InstanceLink } from '../../../components/instance-link';
import { asksForDurableRun } from '../model/durable-words';
import { retryAfterNote } from '../../../lib/retry-after';
import { useSlots } from '../../../components/slots';

function fieldErrorsOf(body: unknown): { pointer: string; detail: string }[] {
  return isProblemDetail(body) && Array.isArray(body.errors) ? body.errors : [];
}

/**
 * Why a run was refused before it started, in the API's terms. The form keeps its values. A
 * refusal for unauthorized tools offers to authorize each, then to run the same request again.
 */
export function Refusal({ error, onRunAsDurable, onRunAgain, runAgainBlockedWhy, sentWith }: {
  error: ApiError;
  onRunAsDurable?: () => void;
  onRunAgain?: () => void;
  runAgainBlockedWhy?: string;
  sentWith?: { profileId?: string; profileLabel: string };
}) {
  const { ToolAuthorization } = useSlots();
  const retryAfter = error.header('retry-after');
  let advice: string;
  switch (error.status) {
    case 0:
      advice = '';
      break;
    case 400:
      advice = 'The request was refused as invalid; fix the fields named below and run again.';
      break;
    case 401:
      advice = 'The token is missing or unknown to this instance. Paste a valid token in the connection panel.';
      break;
    case 403:
      advice =
        'The token is valid but may not run agents: it needs the agents.run scope (or the instance’s equivalent), or the run hit a limit. Use a token with agents.run: with the bundled service, the Connection page mints one.';
      break;
    case 404:
      advice = 'No agent with this id on this instance (ids are exact).';
      break;
    case 409:
      // A run refused for want of durability is told below, with its remedy; waiting would not help.
      advice = asksForDurableRun(error) ? '' : 'The run conflicts with the agent’s current state; wait for other runs to finish and try again.';
      break;
    case 422:
      advice = 'The agent uses tools you have not authorized yet. Authorize each tool server below, then run again.';
      break;
    case 429:
      advice = `Too many requests.${retryAfter ? ` ${retryAfterNote(retryAfter)}` : ''}`;
      break;
    default:
      advice = error.status >= 500 ? 'The service failed. Running again may work; quote the request id if you report it.' : '';
  }
  const tools = toolSuggestionsOf(error.body);
  const documentation = isProblemDetail(error.body) && typeof error.body.documentation_url === 'string' ? error.body.documentation_url : undefined;
  const fields = fieldErrorsOf(error.body);
  return (
    <>
      <div className="error-panel" role="alert">
        <h3>{error.status ? `${error.status} ${error.title}` : error.title}</h3>
        <p>{error.detail}</p>
        {advice && <p>{advice}</p>}
        {onRunAsDurable && asksForDurableRun(error) && (
          <p>
            {/* The service's detail above already says why; this says what to do. */}
            <button type="button" className="primary" onClick={onRunAsDurable}>
              Run as durable
            </button>{' '}
            <span className="hint">Sends the same input once more, as a durable run on the current API.</span>
          </p>
        )}
        {fields.length > 0 && (
          <ul>
            {fields.map((f) => (
              <li key={f.pointer}>
                <code>{f.pointer}</code>: {f.detail}
              </li>
            ))}
          </ul>
        )}
        {error.code && (
          <p className="muted">
            Code <code>{error.code}</code>
          </p>
        )}
        {documentation && (
          <p>
            <InstanceLink href={documentation}>Documentation for this error</InstanceLink>
          </p>
        )}
        {error.requestId && (
          <p className="muted">
            Request id <code>{error.requestId}</code>
          </p>
        )}
        <ErrorDetails error={error} />
      </div>
      {/* Outside the alert: its statuses change as they are read, and an alert is read out whole at each change. */}
      {tools.length > 0 && <ToolAuthorization error={error} onRunAgain={onRunAgain} runAgainBlockedWhy={runAgainBlockedWhy} sentWith={sentWith} />}
    </>
  );
}
