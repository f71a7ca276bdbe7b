import { InlineCode } from '../../../components/inline-code';
import type { Agent } from '../../../contract/agents';
import { capabilitiesOf } from './agent-picker';

/** The agent a run is built for: its name and id, what it says it does, and what it takes. */
export function AgentHead({ agentId, name, agent }: { agentId: string; name?: string; agent?: Agent }) {
  return (
    <div className="agent-head">
      <h2>
        {name ? (
          <>
            {name} <code className="muted">{agentId}</code>
          </>
        ) : (
          <code>{agentId}</code>
        )}
      </h2>
      {agent?.description && (
        <p>
          <InlineCode text={agent.description} />
        </p>
      )}
      {agent && <p className="hint">Takes: {capabilitiesOf(agent)}</p>}
    </div>
  );
}
