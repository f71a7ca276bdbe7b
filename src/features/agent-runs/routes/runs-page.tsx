import { useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { JsonSchema } from '../../../contract/agents';
import { ApiError } from '../../../lib/api-client';
import { useConnection } from '../../../lib/connection';
import { useAgentSchemas } from '../api/agent-schemas';
import { useAgent } from '../api/get-agent';
import { AgentPicker, capabilitiesOf } from '../components/agent-picker';
import { DeprecationBanner } from '../components/deprecation-banner';
import { HistoryPanel } from '../components/history-panel';
import { ManualFields } from '../components/manual-fields';
import { RequestPreview } from '../components/request-preview';
import { ResponsePanel } from '../components/response-panel';
import { RunForm } from '../components/run-form';
import { runRequest, type RunParts, type RunRequest } from '../model/run-request';
import { timeoutMsOf, useRunSettings, type RunSettings } from '../model/run-settings';
import { useRunStore, useRuns } from '../model/run-store-context';
import { fieldsOf, schemaOfManualFields, type ManualField } from '../model/schema-form';
import { ConnectionProblem } from '../../../components/connection-problem';
import { InlineCode } from '../../../components/inline-code';
import { PageTitle } from '../../../components/page-title';

function errorText(error: unknown): string {
  return error instanceof ApiError ? `${error.status ? `${error.status} ` : ''}${error.title}: ${error.detail}` : String(error);
}

const RUN_LABEL = { stream: 'Run and stream', wait: 'Run and wait', durable: 'Start durable run' } as const;

/** Fields typed by hand belong to the agent they were typed for. */
interface ManualState {
  agentId: string;
  fields: ManualField[];
}

/**
 * /runs and /runs/:agentId: the request on one side (agent, API, answer mode, input, the exact
 * body and code), the response on the other (Run and Stop, status, what came back), history
 * below it. The agent comes from the URL; the run shown comes from the run store, and says
 * itself which agent and API it was sent to.
 */
export function RunsPage() {
  const { agentId = '' } = useParams();
  const navigate = useNavigate();
  const connection = useConnection();
  const store = useRunStore();
  const { runs, active } = useRuns();
  const [settings, setSettings] = useRunSettings();
  const formId = useId();
  const statusRef = useRef<HTMLSpanElement>(null);
  const [manualState, setManualState] = useState<ManualState | null>(null);
  const manual = manualState?.agentId === agentId ? manualState.fields : null;

  const agent = useAgent(connection, settings.flavour, agentId);
  const schemas = useAgentSchemas(connection, settings.flavour, agentId);
  const unknownAgent = agent.error instanceof ApiError && agent.error.status === 404;
  // Memoized by their source: a new schema object on every render would rebuild the form's resolver.
  const schema: JsonSchema | undefined = useMemo(() => (manual ? schemaOfManualFields(manual) : schemas.data?.input_schema), [manual, schemas.data]);
  const fields = useMemo(() => (schema ? fieldsOf(schema) : []), [schema]);
  const agentName = agent.data?.name ?? schemas.data?.name;
  const takesMessages = agent.data ? agent.data.capabilities['ap.io.messages'] === true : fields.length === 0;

  const latest = runs[0];
  const build = (parts: RunParts): RunRequest => runRequest(settings.flavour, settings.mode, { id: agentId, name: agentName }, parts, timeoutMsOf(settings));

  const start = (request: RunRequest) => {
    const started = store.start(connection, request, {
      // A durable run is followed on its own page, by reading it; the POST is never sent again.
      onSettled: (record) => {
        const runId = record.created?.data.run.run_id;
        if (runId) navigate(`/runs/${encodeURIComponent(record.request.agentId)}/${encodeURIComponent(runId)}`);
      },
    });
    if (!started) return;
    // The status is where the run's progress is told; on a phone it brings the answer into view.
    requestAnimationFrame(() => statusRef.current?.focus());
  };

  const onRequestKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Enter' || !(e.ctrlKey || e.metaKey)) return;
    e.preventDefault();
    (document.getElementById(formId) as HTMLFormElement | null)?.requestSubmit();
  };
  const onPageKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && !e.defaultPrevented && active) store.stop(active.id);
  };

  const formReady = agentId !== '' && schema !== undefined && !unknownAgent;
  const cannotRunWhy = !agentId
    ? 'Choose an agent to run.'
    : active
      ? `A run of ${active.request.agentName ?? active.request.agentId} is in flight; stop it to start another.`
      : !formReady
        ? 'The input form is not ready.'
        : undefined;
  const legacyHeaders = latest?.request.flavour === 'legacy' ? latest.state.meta?.headers : undefined;

  return (
    // Escape stops the run from anywhere on the page; controls that use Escape themselves mark it handled.
    <div className="runs-workspace" onKeyDown={onPageKeyDown}>
      <section className="request-side" aria-labelledby="runs-heading" onKeyDown={onRequestKeyDown}>
        <PageTitle title={agentId ? `Agent runs · ${agentName ?? agentId}` : 'Agent runs'} />
        <h1 id="runs-heading">Agent runs</h1>
        {!connection.token && !connection.problem && (
          <p className="warning">
            This profile has no token: agent runs need one with <code>agents.run</code>. Paste it in the connection panel, or{' '}
            <Link to="/connection">start here</Link> for demo tokens.
          </p>
        )}
        <ConnectionProblem problem={connection.problem} />
        <AgentPicker connection={connection} flavour={settings.flavour} selectedId={agentId} onSelect={(id) => navigate(`/runs/${encodeURIComponent(id)}`)} />
        {!agentId && <p className="muted">Choose an agent above to build its run.</p>}
        {agentId && unknownAgent && (
          <div className="error-panel" role="alert">
            <h3>No agent “{agentId}” on this instance</h3>
            <p>
              {agent.error instanceof ApiError ? agent.error.detail : ''} Agent ids are exact; search by name above to find the one you mean.
            </p>
          </div>
        )}
        {agentId && !unknownAgent && (
          <>
            <div className="agent-head">
              <h2>
                {agentName ? (
                  <>
                    {agentName} <code className="muted">{agentId}</code>
                  </>
                ) : (
                  <code>{agentId}</code>
                )}
              </h2>
              {agent.data?.description && (
                <p>
                  <InlineCode text={agent.data.description} />
                </p>
              )}
              {agent.data && <p className="hint">Takes: {capabilitiesOf(agent.data)}</p>}
            </div>
            <RunOptions settings={settings} onChange={setSettings} />
            {settings.flavour === 'legacy' && <DeprecationBanner headers={legacyHeaders} mode={settings.mode} onSwitch={() => setSettings({ flavour: 'platform' })} />}
            {schemas.isLoading && !manual && <p role="status">Loading the agent’s input schema…</p>}
            {schemas.isError && !manual && (
              <div className="error-panel" role="alert">
                <h3>The agent’s input schema could not be loaded</h3>
                <p>{errorText(schemas.error)}</p>
                <button type="button" onClick={() => setManualState({ agentId, fields: [] })}>
                  Add input fields by hand
                </button>
              </div>
            )}
            {manual && <ManualFields fields={manual} onChange={(f) => setManualState({ agentId, fields: f })} />}
            {schema && (
              <RunForm
                // A new form for another agent or another set of hand-made fields; saved values carry over.
                key={`${agentId}:${manual ? JSON.stringify(manual) : 'schema'}`}
                formId={formId}
                agentId={agentId}
                schema={schema}
                fields={fields}
                takesMessages={takesMessages}
                refusal={latest?.request.agentId === agentId ? latest.state.refusal : undefined}
                onRun={(parts) => start(build(parts))}
              >
                <RequestPreview connection={connection} fields={fields} takesMessages={takesMessages} build={build} />
              </RunForm>
            )}
          </>
        )}
      </section>
      <section className="response-side" aria-label="Response">
        <ResponsePanel
          run={latest}
          formId={formId}
          runLabel={RUN_LABEL[settings.mode]}
          canRun={cannotRunWhy === undefined}
          cannotRunWhy={cannotRunWhy}
          onStop={() => active && store.stop(active.id)}
          statusRef={statusRef}
        />
        <OpenRunById />
        <HistoryPanel
          canRun={!active}
          onRerun={(entry) => {
            start(entry.request);
            navigate(`/runs/${encodeURIComponent(entry.request.agentId)}`);
          }}
        />
      </section>
    </div>
  );
}

function RunOptions({ settings, onChange }: { settings: RunSettings; onChange(patch: Partial<RunSettings>): void }) {
  const ids = { flavour: useId(), mode: useId(), timeout: useId(), durable: useId() };
  return (
    <div className="run-options">
      <fieldset className="radios">
        <legend>API</legend>
        <label>
          <input type="radio" name={ids.flavour} checked={settings.flavour === 'platform'} onChange={() => onChange({ flavour: 'platform' })} /> Current (
          <code>/api/agents/&#123;id&#125;/runs</code>)
        </label>
        <label>
          <input type="radio" name={ids.flavour} checked={settings.flavour === 'legacy'} onChange={() => onChange({ flavour: 'legacy' })} /> Legacy (
          <code>/rest/api/v1/agents/runs/…</code>, deprecated)
        </label>
      </fieldset>
      <fieldset className="radios">
        <legend>Answer</legend>
        <label>
          <input type="radio" name={ids.mode} checked={settings.mode === 'stream'} onChange={() => onChange({ mode: 'stream' })} /> Stream (live events)
        </label>
        <label>
          <input type="radio" name={ids.mode} checked={settings.mode === 'wait'} onChange={() => onChange({ mode: 'wait' })} /> Wait (one answer)
        </label>
        <label>
          <input type="radio" name={ids.mode} checked={settings.mode === 'durable'} disabled={settings.flavour === 'legacy'} aria-describedby={ids.durable} onChange={() => onChange({ mode: 'durable' })} />{' '}
          Durable (kept by the service, followed by its id)
        </label>
        <p id={ids.durable} className="hint">
          {settings.flavour === 'legacy'
            ? 'Durable runs exist only on the current API.'
            : 'The service answers at once with a run id; the run goes on without this page, and may pause to ask you to approve a tool.'}
        </p>
      </fieldset>
      {settings.mode === 'wait' && (
        <div className="field">
          <label htmlFor={ids.timeout}>Client timeout, seconds (empty: none)</label>
          <input id={ids.timeout} type="number" min={1} value={settings.timeoutSec} onChange={(e) => onChange({ timeoutSec: e.target.value })} />
        </div>
      )}
    </div>
  );
}

/** Any durable run the token may see, by its agent and run ids: reading it sends nothing else. */
function OpenRunById() {
  const navigate = useNavigate();
  const { agentId: current = '' } = useParams();
  const ids = { agent: useId(), run: useId() };
  const [agent, setAgent] = useState(current);
  const [run, setRun] = useState('');
  return (
    <details className="open-run">
      <summary>Open a durable run by id</summary>
      <form
        className="input-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (agent.trim() && run.trim()) navigate(`/runs/${encodeURIComponent(agent.trim())}/${encodeURIComponent(run.trim())}`);
        }}
      >
        <label htmlFor={ids.agent}>Agent id</label>
        <input id={ids.agent} value={agent} onChange={(e) => setAgent(e.target.value)} required />
        <label htmlFor={ids.run}>Run id</label>
        <input id={ids.run} value={run} onChange={(e) => setRun(e.target.value)} required />
        <button type="submit">Open run</button>
      </form>
    </details>
  );
}
