import { useEffect, useState, type Ref } from 'react';
import { Link } from 'react-router';
import { ResponseSummary } from '../../../components/response-meta';
import { formatCount } from '../../../lib/format';
import { expectedEventsOf } from '../model/progress';
import { isInFlight, isTerminal, statusText, statusTone } from '../model/run-machine';
import { metricsOf, type RunRecord } from '../model/run-record';
import { FailurePanel } from './failure-panel';
import { Refusal } from './refusal';
import { StateLog } from './state-log';
import { StreamOutput } from './stream-output';
import { WaitOutput } from './wait-output';
import { DurableRunView } from './durable-run-view';

function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(t);
  }, []);
  return <>{((now - since) / 1000).toFixed(1)} s</>;
}

/** Who the run was, and what its answer was: from its own record, whatever is selected on the page now. */
function RunIdentity({ run }: { run: RunRecord }) {
  const { request, target } = run;
  const meta = run.state.meta;
  const m = metricsOf(run);
  return (
    <>
      <p className="run-identity">
        <strong>{request.agentName ?? request.agentId}</strong> <code className="muted">{request.agentId}</code> ·{' '}
        {request.flavour === 'legacy' ? 'legacy API' : 'current API'}, {request.mode} · profile {target.profileLabel} ·{' '}
        <time dateTime={new Date(run.startedAt).toISOString()}>{new Date(run.startedAt).toLocaleTimeString()}</time>
      </p>
      {meta && <ResponseSummary meta={meta} bytes={m.bytes} />}
    </>
  );
}

/**
 * The response side: the Run and Stop controls and the status at its top, then what the run
 * (the one in flight, or the last one) answered, whatever its kind. Run submits the request
 * side's form. Everything shown of a run is keyed by the run, so nothing opened in one shows in the next.
 */
export function ResponsePanel({ run, formId, runLabel, canRun, cannotRunWhy, onStop, onRunAsDurable, statusRef }: {
  run: RunRecord | undefined;
  formId: string;
  runLabel: string;
  canRun: boolean;
  cannotRunWhy?: string;
  onStop(): void;
  /** Sends the refused run's input again as a durable run (when the refusal asks for one). */
  onRunAsDurable?(run: RunRecord): void;
  statusRef: Ref<HTMLSpanElement>;
}) {
  const status = run?.state.status ?? 'idle';
  const inFlight = isInFlight(status);
  const metrics = run && metricsOf(run);
  return (
    <section className="run-output" id="run-output" aria-labelledby="output-heading">
      <div className="response-head">
        <div className="toolbar">
          <h2 id="output-heading">Run</h2>
          <span ref={statusRef} tabIndex={-1} className={`status status-${statusTone(status)}`} role="status">
            {statusText(status, run?.state.unknownState)}
          </span>
          {run && status !== 'idle' && (
            <span className="muted">{isTerminal(status) ? `${formatCount(metrics!.durationMs ?? 0)} ms` : <Elapsed since={run.startedAt} />}</span>
          )}
        </div>
        <div className="toolbar">
          <button type="submit" form={formId} className="primary" disabled={!canRun} aria-keyshortcuts="Control+Enter Meta+Enter">
            {runLabel}
          </button>
          <button type="button" onClick={onStop} disabled={!inFlight} aria-keyshortcuts="Escape">
            Stop
          </button>
          <span className="hint">
            {cannotRunWhy ?? (inFlight ? 'Stop (or Escape) closes this browser’s side; the run is not sent again.' : 'Ctrl+Enter (⌘+Enter) runs from anywhere in the request.')}
          </span>
        </div>
      </div>
      {run && (
        <div className="response-body" key={run.id}>
          <RunIdentity run={run} />
          {run.state.refusal && <Refusal error={run.state.refusal} onRunAsDurable={onRunAsDurable && (() => onRunAsDurable(run))} />}
          {run.state.failure && !run.state.durable && <FailurePanel failure={run.state.failure} />}
          {status === 'interrupted' && (
            <div className="warning" role="alert">
              <p>
                The connection broke before the run ended ({run.state.note}). Everything received is kept below. The run was not sent again; run it again
                yourself if you want a new answer.
              </p>
            </div>
          )}
          {status === 'stopped' && <p className="muted">{run.state.note} Everything received is kept.</p>}
          {run.log && <StreamOutput log={run.log} state={run.state} durationMs={metrics!.durationMs} expectedEvents={expectedEventsOf(run.request.body)} />}
          {run.answer && <WaitOutput answer={run.answer} />}
          {run.runId && (
            <>
              <p>
                The service keeps this run as <code>{run.runId}</code>; it goes on without this page.{' '}
                <Link to={`/runs/${encodeURIComponent(run.request.agentId)}/${encodeURIComponent(run.runId)}`}>Open the run’s own page</Link> (a link you can
                keep or share with the same token).
              </p>
              <DurableRunView record={run} level={3} />
            </>
          )}
          {!run.runId && (
            <details>
              <summary>State history</summary>
              <StateLog record={run} />
            </details>
          )}
        </div>
      )}
    </section>
  );
}
