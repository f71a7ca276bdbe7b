import { useId } from 'react';
import { CodeSnippets } from '../../../components/code-snippets';
import { toolWrites, type ActionSummary } from '../../../contract/tool-servers';
import { ApiError } from '../../../lib/api-client';
import { useAgentTools } from '../../../lib/agents/agent-schemas';
import type { RunSettings } from '../../../engine/run-settings';
import { actionAuthText, approvalOutlook, isActionSummary, type ApprovalOutlook } from '../model/tool-auth';
import type { AgentToolsProps } from '../../../components/slots';

const listNames = (tools: readonly ActionSummary[]) => tools.map((t) => t.display_name).join(', ');

/**
 * Before a run: whether the agent may pause for the user's approval, from what its tools say,
 * and the way to run it that can wait for one (Durable, on the current API).
 */
function ApprovalNote({ outlook, settings, onSettings }: { outlook: ApprovalOutlook; settings: RunSettings; onSettings(patch: Partial<RunSettings>): void }) {
  let text: string;
  let action: { label: string; patch: Partial<RunSettings> } | undefined;
  switch (outlook.kind) {
    case 'unknown':
      text = `Whether it pauses for your approval is not known: ${outlook.why}.`;
      break;
    case 'no-tools':
      text = 'Does not pause for approval: it uses no tools.';
      break;
    case 'never':
      text = 'Does not pause for approval: none of its tools writes.';
      break;
    case 'may': {
      const asks = `May pause for your approval before ${listNames(outlook.tools)}: ${outlook.tools.length === 1 ? 'a tool that writes' : 'tools that write'}. Only a durable run can wait for a decision`;
      if (settings.mode === 'durable' && settings.flavour === 'platform') {
        text = `${asks}; Durable is chosen, so the run waits for you under Run.`;
      } else if (settings.flavour === 'legacy') {
        text = `${asks}, and durable runs exist only on the current API.`;
        action = { label: 'Use the current API, Durable', patch: { flavour: 'platform', mode: 'durable' } };
      } else {
        text = `${asks}: a stream or wait run would be refused or cut short.`;
        action = { label: 'Use Durable mode', patch: { mode: 'durable' } };
      }
    }
  }
  return (
    <div className={`approval-note${outlook.kind === 'may' && action ? ' warning' : ''}`} role="note" aria-label="Approval">
      <p>
        <strong>Approval:</strong> {text}
      </p>
      {action && (
        <button type="button" onClick={() => onSettings(action.patch)}>
          {action.label}
        </button>
      )}
    </div>
  );
}

function ToolItem({ tool }: { tool: ActionSummary }) {
  const writes = toolWrites(tool);
  return (
    <li aria-label={tool.display_name}>
      <p className="tool-name">
        <strong>{tool.display_name}</strong> <code className="muted">{tool.tool_id}</code>
      </p>
      <dl className="tool-facts">
        <div>
          <dt>Type</dt>
          <dd>{tool.type ?? 'not stated'}</dd>
        </div>
        <div>
          <dt>Authorization</dt>
          <dd>{actionAuthText(tool.auth_type)}</dd>
        </div>
        <div>
          <dt>Writes</dt>
          <dd>{writes ? `yes${tool.write_action_type ? ` (${tool.write_action_type})` : ''}` : 'no'}</dd>
        </div>
        <div>
          <dt>Setup</dt>
          <dd className={tool.is_setup_finished === false ? 'tool-unfinished' : undefined}>
            {tool.is_setup_finished === undefined ? 'not stated' : tool.is_setup_finished ? 'finished' : 'not finished: a run that needs it may fail'}
          </dd>
        </div>
        {tool.data_source && (
          <div>
            <dt>Knowledge</dt>
            <dd>{tool.data_source}</dd>
          </div>
        )}
      </dl>
    </li>
  );
}

/**
 * The agent's tools as the platform API's schema read lists them (`include_tools=true`): each
 * with its type, the authorization it needs, whether it writes and whether its setup is
 * finished; and, before a run, whether the agent may pause for approval.
 */
export function AgentTools({ connection, agentId, settings, onSettings }: AgentToolsProps) {
  const headingId = useId();
  const query = useAgentTools(connection, agentId);
  if (query.isPending && query.fetchStatus === 'idle') return null;
  const listed: unknown = query.data?.tools;
  const tools = Array.isArray(listed) ? listed.filter(isActionSummary) : [];
  const outlook: ApprovalOutlook = query.isError
    ? { kind: 'unknown', why: `its tools could not be read (${query.error instanceof ApiError ? `${query.error.status || ''} ${query.error.title}`.trim() : String(query.error)})` }
    : approvalOutlook(listed);
  return (
    <section className="agent-tools" aria-labelledby={headingId}>
      <h3 id={headingId}>Tools</h3>
      {query.isPending ? (
        <p role="status">Reading the agent’s tools…</p>
      ) : (
        <>
          <ApprovalNote outlook={outlook} settings={settings} onSettings={onSettings} />
          {tools.length > 0 && (
            <ul className="tool-list" aria-label={`${tools.length} ${tools.length === 1 ? 'tool' : 'tools'}`}>
              {tools.map((t, i) => (
                <ToolItem key={`${t.tool_id}:${i}`} tool={t} />
              ))}
            </ul>
          )}
          <details>
            <summary>Code to read the tools</summary>
            <CodeSnippets call={{ op: 'agentTools', agentId }} connection={connection} />
          </details>
        </>
      )}
    </section>
  );
}
