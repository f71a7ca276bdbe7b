import { useEffect, useState, type Ref } from 'react';
import { Link } from 'react-router';
import { InstanceLink } from '../../../components/instance-link';
import { isActive, type RunFailure, type RunStatus } from '../model/run-machine';
import type { RunRecord } from '../model/run-store';
import { Refusal } from './refusal';
import { StreamOutput } from './stream-output';
import { WaitOutput } from './wait-output';

export const STATUS_TEXT: Record<RunStatus, string> = {
  idle: 'No run yet',
  sending: 'Sending…',
  streaming: 'Streaming…',
  waiting: 'Waiting for the answer…',
  done: 'Done',
  failed: 'Failed',
  stopped: 'Stopped',
  interrupted: 'Interrupted',
  refused: 'Refused',
};

function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(t);
  }, []);
  return <>{((now - since) / 1000).toFixed(1)} s</>;
}

function FailurePanel({ failure }: { failure: RunFailure }) {
  return (
    <div className="error-panel" role="alert">
      <h3>Run failed: {failure.title}</h3>
      <p>{failure.detail}</p>
      {failure.code && (
        <p>
          Code <code>{failure.code}</code>
        </p>
      )}
      {failure.requestId && (
        <p>
          Request id <code>{failure.requestId}</code>
        </p>
      )}
      {failure.documentationUrl && (
        <p>
          <InstanceLink href={failure.documentationUrl}>Documentation for this error</InstanceLink>
        </p>
      )}
    </div>
  );
}

/** Who the run was: from its request, whatever is selected on the page now. */
function RunIdentity({ run }: { run: RunRecord }) {
  const { request, target } = run;
  return (
    <p className="run-identity">
      <strong>{request.agentName ?? request.agentId}</strong> <code className="muted">{request.agentId}</code> ·{' '}
      {request.flavour === 'legacy' ? 'legacy API' : 'current API'}, {request.mode} · profile {target.profileLabel} ·{' '}
      <time dateTime={new Date(run.startedAt).toISOString()}>{new Date(run.startedAt).toLocaleTimeString()}</time>
    </p>
  );
}

function Transitions({ run }: { run: RunRecord }) {
  return (
    <details>
      <summary>State history</summary>
      <ol className="transitions">
        {run.state.transitions.map((t, i) => (
          <li key={i}>
            <span className={`status status-${t.status}`}>{STATUS_TEXT[t.status]}</span> at +{t.at - run.startedAt} ms
            {t.note ? <span className="muted"> · {t.note}</span> : null}
          </li>
        ))}
      </ol>
    </details>
  );
}

/**
 * The response side: the Run and Stop controls and the status at its top, then what the run
 * (the one in flight, or the last one) answered. Run submits the request side's form.
 */
export function ResponsePanel({ run, formId, runLabel, canRun, cannotRunWhy, onStop, statusRef }: {
  run: RunRecord | undefined;
  formId: string;
  runLabel: string;
  canRun: boolean;
  cannotRunWhy?: string;
  onStop(): void;
  statusRef: Ref<HTMLSpanElement>;
}) {
  const status = run?.state.status ?? 'idle';
  const live = isActive(status);
  return (
    <section className="run-output" aria-labelledby="output-heading">
      <div className="response-head">
        <div className="toolbar">
          <h2 id="output-heading">Run</h2>
          <span ref={statusRef} tabIndex={-1} className={`status status-${status}`} role="status">
            {STATUS_TEXT[status]}
          </span>
          {run && (
            <span className="muted">
              {live ? <Elapsed since={run.startedAt} /> : `${(run.state.transitions.at(-1)?.at ?? run.startedAt) - run.startedAt} ms`}
            </span>
          )}
        </div>
        <div className="toolbar">
          <button type="submit" form={formId} className="primary" disabled={!canRun} aria-keyshortcuts="Control+Enter Meta+Enter">
            {runLabel}
          </button>
          <button type="button" onClick={onStop} disabled={!live} aria-keyshortcuts="Escape">
            Stop
          </button>
          <span className="hint">
            {cannotRunWhy ?? (live ? 'Stop (or Escape) closes this browser’s side; the run is not sent again.' : 'Ctrl+Enter (⌘+Enter) runs from anywhere in the request.')}
          </span>
        </div>
      </div>
      {run && (
        <div className="response-body">
          <RunIdentity run={run} />
          {run.state.refusal && <Refusal error={run.state.refusal} />}
          {run.state.failure && <FailurePanel failure={run.state.failure} />}
          {status === 'interrupted' && (
            <div className="warning" role="alert">
              <p>
                The connection broke before the run ended ({run.state.note}). Everything received is kept below. The run was not sent again; run it again
                yourself if you want a new answer.
              </p>
            </div>
          )}
          {status === 'stopped' && <p className="muted">{run.state.note} Everything received is kept.</p>}
          {run.log && <StreamOutput log={run.log} state={run.state} />}
          {run.answer && <WaitOutput answer={run.answer} />}
          {run.created && (
            <p>
              The service created run <code>{run.created.data.run.run_id}</code> ({run.created.data.run.state}).{' '}
              <Link to={`/runs/${encodeURIComponent(run.request.agentId)}/${encodeURIComponent(run.created.data.run.run_id)}`}>Follow the run</Link>
            </p>
          )}
          <Transitions run={run} />
        </div>
      )}
    </section>
  );
}
