import { Link } from 'react-router';
import { ConnectionProblem } from '../../../components/connection-problem';
import { PageTitle } from '../../../components/page-title';
import { ApiError } from '../../../lib/api-client';
import type { ActiveConnection } from '../../../lib/connection';
import type { LoadedRun } from '../model/run-draft';
import type { RunRecord } from '../../../engine/run-record';
import type { RunParts, RunRequest } from '../../../engine/run-request';
import type { RunSettings } from '../../../engine/run-settings';
import type { RunAgent } from '../model/use-run-agent';
import { AgentHead } from './agent-head';
import { AgentPicker } from './agent-picker';
import { DeprecationBanner } from './deprecation-banner';
import { LoadedNotice } from './loaded-notice';
import { ManualFields } from './manual-fields';
import { RequestPreview } from './request-preview';
import { RunForm } from './run-form';
import { RunOptions } from './run-options';
import { useSlots } from '../../../components/slots';

function errorText(error: unknown): string {
  return error instanceof ApiError ? `${error.status ? `${error.status} ` : ''}${error.title}: ${error.detail}` : String(error);
}

/**
 * The request side of the runs page: the agent, how to send its run, its input form, the
 * exact body and code. `formKey` names the form's values: a new one when a run is loaded into it.
 */
export function RequestSide({ connection, agentId, agent, settings, onSettings, formId, formKey, latest, loaded, onSelectAgent, onRun, build, cannotRunWhy }: {
  connection: ActiveConnection;
  agentId: string;
  agent: RunAgent;
  settings: RunSettings;
  onSettings(patch: Partial<RunSettings>): void;
  formId: string;
  formKey: string;
  latest: RunRecord | undefined;
  loaded: LoadedRun | undefined;
  onSelectAgent(id: string): void;
  onRun(parts: RunParts, submitter: HTMLElement | null): void;
  build(parts: RunParts): RunRequest;
  /** Why "Run on both" cannot send now, if it cannot. */
  cannotRunWhy?: string;
}) {
  const { AgentTools, RunOnBoth } = useSlots();
  const { schema, fields, manual, schemas } = agent;
  const legacyHeaders = latest?.request.flavour === 'legacy' ? latest.state.meta?.headers : undefined;
  return (
    <>
      <PageTitle title={agentId ? `Agent runs · ${agent.name ?? agentId}` : 'Agent runs'} />
      <h1 id="runs-heading">Agent runs</h1>
      {!connection.token && !connection.problem && (
        <p className="warning">
          This profile has no token: agent runs need one with <code>agents.run</code>. Paste it in the connection panel, or{' '}
          <Link to="/connection">start here</Link> for demo tokens.
        </p>
      )}
      <ConnectionProblem problem={connection.problem} />
      <AgentPicker connection={connection} flavour={settings.flavour} selectedId={agentId} onSelect={onSelectAgent} />
      {!agentId && <p className="muted">Choose an agent above to build its run.</p>}
      {agentId && agent.unknown && (
        <div className="error-panel" role="alert">
          <h3>No agent “{agentId}” on this instance</h3>
          <p>{agent.agent.error instanceof ApiError ? agent.agent.error.detail : ''} Agent ids are exact; search by name above to find the one you mean.</p>
        </div>
      )}
      {agentId && !agent.unknown && (
        <>
          <AgentHead agentId={agentId} name={agent.name} agent={agent.agent.data} />
          <AgentTools connection={connection} agentId={agentId} settings={settings} onSettings={onSettings} />
          {loaded && <LoadedNotice loaded={loaded} profileId={connection.profileId} profileLabel={connection.profileLabel} />}
          <RunOptions settings={settings} onChange={onSettings} bundled={connection.mode === 'same-origin'} />
          {settings.flavour === 'legacy' && (
            <DeprecationBanner headers={legacyHeaders} mode={settings.mode} onSwitch={() => onSettings({ flavour: 'platform' })} formId={formId} canCompare={cannotRunWhy === undefined} />
          )}
          {schemas.isLoading && !manual && <p role="status">Loading the agent’s input schema…</p>}
          {schemas.isError && !manual && (
            <div className="error-panel" role="alert">
              <h3>The agent’s input schema could not be loaded</h3>
              <p>{errorText(schemas.error)}</p>
              {agent.canAddByHand ? (
                <button type="button" onClick={() => agent.setManual([])}>
                  Add input fields by hand
                </button>
              ) : (
                <p>Fields typed by hand would not help: the same token would be refused the run. Use a token with <code>agents.run</code>.</p>
              )}
            </div>
          )}
          {agent.refusal && (
            <div className="error-panel" role="alert">
              <h3>No form for this schema</h3>
              <p>{agent.refusal}</p>
              <button type="button" onClick={() => agent.setManual([])}>
                Add input fields by hand
              </button>
            </div>
          )}
          {manual && <ManualFields fields={manual} onChange={agent.setManual} />}
          {schema && (
            <RunForm
              // A new form for another agent, other hand-made fields or a loaded run; saved values carry over.
              key={`${agentId}:${manual ? JSON.stringify(manual) : 'schema'}:${formKey}`}
              formId={formId}
              agentId={agentId}
              schema={schema}
              fields={fields}
              takesMessages={agent.takesMessages}
              refusal={latest?.request.agentId === agentId ? latest.state.refusal : undefined}
              onRun={onRun}
            >
              <RequestPreview connection={connection} fields={fields} takesMessages={agent.takesMessages} build={build} />
            </RunForm>
          )}
          {schema && (
            <RunOnBoth formId={formId} connection={connection} settings={settings} agentId={agentId} cannotRunWhy={cannotRunWhy} />
          )}
        </>
      )}
    </>
  );
}
