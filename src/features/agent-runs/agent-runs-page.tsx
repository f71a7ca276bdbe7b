import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useId, useMemo, useState } from 'react';
import type { Agent, JsonSchema, Message } from '../../contract/agents';
import { ApiError } from '../../lib/api-client';
import { useConnection } from '../../lib/connection';
import { local } from '../../lib/storage';
import { CopyCurl } from '../../components/copy-curl';
import { AgentPicker } from './agent-picker';
import { useAgentSchemas } from './api/agents';
import { DeprecationBanner } from './deprecation-banner';
import { HistoryPanel, historyQueryKey } from './history-panel';
import type { HistoryEntry } from './history';
import { ManualFields } from './manual-fields';
import { counterpart, runRequest, type Mode, type RunRequest } from './run-request';
import { RunForm } from './run-form';
import type { Flavour } from './run-session';
import { fieldsOf, schemaOfManualFields, type ManualField } from './schema-form';
import { StreamOutput } from './stream-output';
import { useRun } from './use-run';
import { WaitOutput } from './wait-output';

interface Settings {
  agentId: string;
  flavour: Flavour;
  mode: Mode;
  timeoutSec: string;
}

const SETTINGS_KEY = 'runSettings';
const DEFAULT_SETTINGS: Settings = { agentId: '', flavour: 'platform', mode: 'stream', timeoutSec: '' };

type Parts = { input?: Record<string, unknown>; messages?: Message[] };

export function AgentRunsPage() {
  const connection = useConnection();
  const queryClient = useQueryClient();
  const ids = { flavour: useId(), mode: useId(), timeout: useId() };
  const [settings, setSettingsState] = useState<Settings>(() => ({ ...DEFAULT_SETTINGS, ...local.get<Partial<Settings>>(SETTINGS_KEY, {}) }));
  const setSettings = (patch: Partial<Settings>) =>
    setSettingsState((s) => {
      const next = { ...s, ...patch };
      local.set(SETTINGS_KEY, next);
      return next;
    });
  const [agent, setAgent] = useState<Agent | undefined>();
  const [manual, setManual] = useState<ManualField[] | null>(null);
  const [parts, setParts] = useState<Parts>({});
  const onSaved = useCallback(() => void queryClient.invalidateQueries({ queryKey: historyQueryKey }), [queryClient]);
  const { run, inFlight, start, stop } = useRun(onSaved);

  const schemas = useAgentSchemas(connection, settings.flavour, settings.agentId);
  const schema: JsonSchema | undefined = manual ? schemaOfManualFields(manual) : schemas.data?.input_schema;
  const fields = useMemo(() => (schema ? fieldsOf(schema) : []), [schema]);
  const takesMessages = agent ? agent.capabilities['ap.io.messages'] === true : fields.length === 0;
  const agentName = agent?.name ?? schemas.data?.name;

  const request: RunRequest | undefined = settings.agentId ? runRequest(settings.flavour, settings.mode, settings.agentId, parts) : undefined;
  const other = request ? counterpart(request, settings.agentId) : undefined;
  const refusal = run?.kind === 'stream' ? run.session.refusal : run?.kind === 'wait' && run.status === 'refused' ? run.error : undefined;
  const lastHeaders = run?.kind === 'stream' ? (run.session.meta?.headers ?? run.session.refusal?.meta?.headers) : (run?.response?.headers ?? run?.error?.meta?.headers);

  const send = (req: RunRequest) => {
    const timeout = Number(settings.timeoutSec);
    start(connection, req, { agentId: settings.agentId, agentName, timeoutMs: req.mode === 'wait' && timeout > 0 ? timeout * 1000 : undefined });
  };
  const onParts = useCallback((p: Parts) => setParts(p), []);

  return (
    <section aria-labelledby="runs-heading" className="runs-page">
      <h1 id="runs-heading">Agent runs</h1>
      <AgentPicker
        connection={connection}
        flavour={settings.flavour}
        selectedId={settings.agentId}
        onSelect={(id, a) => {
          setAgent(a);
          setManual(null);
          setSettings({ agentId: id });
        }}
      />
      {settings.agentId && (
        <>
          <section className="panel" aria-labelledby="endpoint-heading">
            <h2 id="endpoint-heading">
              {agentName ?? settings.agentId} <code className="muted">{settings.agentId}</code>
            </h2>
            {agent?.description && <p>{agent.description}</p>}
            <div className="input-row">
              <fieldset className="radios">
                <legend>API</legend>
                <label>
                  <input type="radio" name={ids.flavour} checked={settings.flavour === 'platform'} onChange={() => setSettings({ flavour: 'platform' })} /> Current
                  (<code>/api/agents/&#123;id&#125;/runs</code>)
                </label>
                <label>
                  <input type="radio" name={ids.flavour} checked={settings.flavour === 'legacy'} onChange={() => setSettings({ flavour: 'legacy' })} /> Legacy
                  (<code>/rest/api/v1/agents/runs/…</code>, deprecated)
                </label>
              </fieldset>
              <fieldset className="radios">
                <legend>Answer</legend>
                <label>
                  <input type="radio" name={ids.mode} checked={settings.mode === 'stream'} onChange={() => setSettings({ mode: 'stream' })} /> Stream (live events)
                </label>
                <label>
                  <input type="radio" name={ids.mode} checked={settings.mode === 'wait'} onChange={() => setSettings({ mode: 'wait' })} /> Wait (one answer)
                </label>
              </fieldset>
              {settings.mode === 'wait' && (
                <div className="field">
                  <label htmlFor={ids.timeout}>Client timeout, seconds (empty: none)</label>
                  <input id={ids.timeout} type="number" min={1} value={settings.timeoutSec} onChange={(e) => setSettings({ timeoutSec: e.target.value })} />
                </div>
              )}
            </div>
            {settings.flavour === 'legacy' && (
              <DeprecationBanner headers={lastHeaders} onSwitch={() => setSettings({ flavour: 'platform' })} />
            )}
          </section>

          {schemas.isLoading && !manual && <p role="status">Loading the agent’s input schema…</p>}
          {schemas.isError && !manual && (
            <div className="error-panel" role="alert">
              <h3>The agent’s input schema could not be loaded</h3>
              <p>{schemas.error instanceof ApiError ? `${schemas.error.status || ''} ${schemas.error.title}: ${schemas.error.detail}` : String(schemas.error)}</p>
              <button type="button" onClick={() => setManual([])}>
                Add input fields by hand
              </button>
            </div>
          )}
          {manual && <ManualFields fields={manual} onChange={setManual} />}

          {schema && (
            <RunForm
              key={`${settings.agentId}:${manual ? 'manual' : 'schema'}`}
              agentId={settings.agentId}
              schema={schema}
              fields={fields}
              takesMessages={takesMessages}
              refusal={refusal}
              onChange={onParts}
              onSubmit={(p) => send(runRequest(settings.flavour, settings.mode, settings.agentId, p))}
            >
              <div className="toolbar">
                <button type="submit" className="primary" disabled={inFlight}>
                  {settings.mode === 'stream' ? 'Run and stream' : 'Run and wait'}
                </button>
                <button type="button" onClick={stop} disabled={!inFlight}>
                  {settings.mode === 'stream' ? 'Stop' : 'Cancel'}
                </button>
                {inFlight && <span className="muted">A run is in flight; stop it to start another.</span>}
              </div>
            </RunForm>
          )}

          {request && (
            <section className="panel" aria-labelledby="request-heading">
              <h2 id="request-heading">Request</h2>
              <p>
                <code>POST {request.path}</code>
              </p>
              <pre className="raw" aria-label="Request body preview">
                {JSON.stringify(request.body, null, 2)}
              </pre>
              <CopyCurl
                request={{ method: 'POST', url: `${connection.baseUrl}${request.path}`, token: connection.token, body: request.body, headers: request.mode === 'stream' ? { Accept: 'text/event-stream' } : {} }}
                screenShare={connection.screenShare}
              />
              {other && (
                <details>
                  <summary>Compare the legacy and current requests</summary>
                  <div className="side-by-side">
                    {[request, other]
                      .sort((a) => (a.flavour === 'legacy' ? -1 : 1))
                      .map((r) => (
                        <div key={r.flavour}>
                          <h3>{r.flavour === 'legacy' ? 'Legacy (deprecated)' : 'Current'}</h3>
                          <p>
                            <code>POST {r.path}</code>
                          </p>
                          <pre className="raw">{JSON.stringify(r.body, null, 2)}</pre>
                          <CopyCurl
                            request={{ method: 'POST', url: `${connection.baseUrl}${r.path}`, token: connection.token, body: r.body, headers: r.mode === 'stream' ? { Accept: 'text/event-stream' } : {} }}
                            screenShare={connection.screenShare}
                          />
                        </div>
                      ))}
                  </div>
                  <p className="hint">
                    The current API takes the agent id in the path instead of <code>agent_id</code> in the body, and <code>"stream": true</code> instead of the{' '}
                    <code>/stream</code> path; its errors are problem details, and a failed stream ends with a <code>run.failed</code> event.
                  </p>
                </details>
              )}
            </section>
          )}
        </>
      )}

      {/* Keyed by run, so a selected event or toggle never carries over to the next run. */}
      {run?.kind === 'stream' && <StreamOutput key={run.startedAt} session={run.session} />}

      {run?.kind === 'wait' && <WaitOutput key={run.startedAt} run={run} />}

      <HistoryPanel
        canRun={!inFlight}
        onRerun={(entry: HistoryEntry) => {
          setSettings({ agentId: entry.agentId, flavour: entry.request.flavour, mode: entry.request.mode });
          send(entry.request);
        }}
      />
    </section>
  );
}
