import { useEffect, useId, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { durableOutputText, isKnownState, isTerminalState, type DurableState, type RunConflictReason } from '../../../contract/durable-runs';
import { ApiError } from '../../../lib/api-client';
import { useConnection } from '../../../lib/connection';
import { useCancelDurableRun, useDurableRun, useRespondToDurableRun } from '../api/durable-run';
import { Approvals } from '../components/approvals';
import { DurableActionsCode } from '../components/durable-actions-code';
import { untilText } from '../model/durable-follow';
import { PageTitle } from '../../../components/page-title';
import { ConnectionProblem } from '../../../components/connection-problem';
import { CopyButton } from '../../../components/copy-button';
import { SpecBadge } from '../../../components/spec-badge';

const STATE_TEXT: Record<string, string> = {
  QUEUED: 'Queued',
  RUNNING: 'Running',
  REQUIRES_INPUT: 'Waiting for your approval',
  SUCCEEDED: 'Succeeded',
  FAILED: 'Failed',
  CANCELLING: 'Cancelling',
  CANCELLED: 'Cancelled',
  EXPIRED: 'Expired',
};

function stateText(state: DurableState): string {
  return STATE_TEXT[state] ?? `Unknown state “${state}”`;
}

function stateClass(state: DurableState): string {
  if (state === 'SUCCEEDED') return 'status status-done';
  if (state === 'FAILED' || state === 'EXPIRED') return 'status status-failed';
  if (state === 'CANCELLED' || state === 'CANCELLING') return 'status status-stopped';
  return 'status';
}

/** Re-renders every second while mounted, for countdowns. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

/** What each 409 `reason` of the reference service means for the person who clicked. */
const CONFLICT_TEXT: Record<RunConflictReason, string> = {
  not_cancellable: 'The run is in a step that cannot be interrupted, or nothing is executing it any more.',
  duplicate_interaction: 'The same request was answered twice in one submission.',
  conflicting_decision: 'Someone already decided otherwise on this request.',
  stale_decision: 'These requests were already answered, by you elsewhere or by someone else.',
  incomplete_decisions: 'Every pending request needs a decision in the same submission.',
  not_pending: 'The run is no longer waiting for these decisions.',
  approval_expired: 'The request expired before the decision arrived.',
};

function explain(error: unknown, action: string): string {
  if (!(error instanceof ApiError)) return String(error);
  if (error.status === 409) {
    const reason = (error.body as { reason?: string } | undefined)?.reason;
    const why = reason && reason in CONFLICT_TEXT ? `${CONFLICT_TEXT[reason as RunConflictReason]} ` : '';
    return `409 Conflict: ${error.detail} ${why}The run has moved on since this page read it; it was read again, so what you see now is current.`;
  }
  return `${action} failed: ${error.status ? `${error.status} ` : ''}${error.title}: ${error.detail}`;
}

/**
 * /runs/:agentId/:runId: a durable run, followed by reading it (GET), never by sending it
 * again; so it works from a fresh tab or after a reload. Approvals, cancellation, output.
 */
export function DurableRunPage() {
  const { agentId = '', runId = '' } = useParams();
  const connection = useConnection();
  const headingId = useId();
  const followed = useDurableRun(connection, agentId, runId);
  const cancel = useCancelDurableRun(connection, agentId, runId);
  const respond = useRespondToDurableRun(connection, agentId, runId);
  const [confirming, setConfirming] = useState(false);
  const run = followed.data?.run;
  const now = useNow(run !== undefined && !isTerminalState(run.state));
  const notFound = followed.error instanceof ApiError && followed.error.status === 404;
  // Derived once per read, not on every tick of the countdown: a run's output may be large.
  const transcript = useMemo(() => (run ? durableOutputText(run) : ''), [run]);
  const data = followed.data;
  const rawJson = useMemo(() => (data ? JSON.stringify({ run: data.run, request_id: data.requestId }, null, 2) : ''), [data]);
  const cancellable = run !== undefined && !isTerminalState(run.state) && run.state !== 'CANCELLING';

  return (
    <div className="durable-run">
      <p>
        <Link to={`/runs/${encodeURIComponent(agentId)}`}>← Run agent {agentId}</Link>
      </p>
      <PageTitle title={`Run ${runId} · ${agentId}`} />
      <h1 id={headingId}>
        Durable run <code>{runId}</code>
      </h1>
      <p className="muted">
        Agent <code>{agentId}</code>. This page reads the run (<code>GET /api/agents/{agentId}/runs/{runId}</code>) and never sends it again: reload it or
        open it in another tab safely.
      </p>
      <ConnectionProblem problem={connection.problem} />
      {followed.isLoading && <p role="status">Reading the run…</p>}
      {notFound && (
        <div className="error-panel" role="alert">
          <h3>No run “{runId}” for agent “{agentId}”</h3>
          <p>
            {followed.error instanceof ApiError ? followed.error.detail : ''} A run is visible only to the token that created it, and only under its own agent.
          </p>
        </div>
      )}
      {followed.isError && !notFound && (
        <div className="error-panel" role="alert">
          <h3>The run could not be read</h3>
          <p>{explain(followed.error, 'Reading the run')}</p>
          <button type="button" onClick={() => void followed.refetch()}>
            Read again
          </button>
        </div>
      )}
      {run && (
        <>
          <div className="toolbar">
            <span className={stateClass(run.state)} role="status" aria-label="Run state">
              {stateText(run.state)}
            </span>
            {isTerminalState(run.state) ? (
              <span className="muted">Ended; no more reads.</span>
            ) : (
              <span className="muted">{followed.isFetching ? 'Reading…' : 'Read again every few seconds while this tab is visible.'}</span>
            )}
            <button type="button" onClick={() => void followed.refetch()} disabled={followed.isFetching}>
              Refresh
            </button>
          </div>
          {run.expires_at && !isTerminalState(run.state) && (
            <p>
              Expires <time dateTime={run.expires_at}>{untilText(run.expires_at, now)}</time> (if still active then, the service marks it failed).
            </p>
          )}
          {!isKnownState(run.state) && (
            <p className="warning">The service answered a state this console does not know, “{run.state}”; it is shown as it came, and the run is still read.</p>
          )}
          {run.error && (
            <div className="error-panel" role="alert">
              <h3>The run failed: {run.error.code}</h3>
              <p>{run.error.message}</p>
            </div>
          )}
          {run.state === 'REQUIRES_INPUT' && run.pending_interactions.length > 0 && (
            <Approvals
              // A new batch of requests is a new set of decisions.
              key={run.pending_interactions.map((i) => i.interaction_id).join(' ')}
              interactions={run.pending_interactions}
              now={now}
              submitting={respond.isPending}
              onSubmit={(d) => respond.mutate(d)}
            />
          )}
          {respond.isError && (
            <p className="error" role="alert">
              {explain(respond.error, 'Submitting the decisions')}
            </p>
          )}
          {respond.isSuccess && !respond.isPending && <p role="status">Decisions accepted; the run goes on.</p>}

          <section className="cancel-run" aria-label="Cancel">
            <h2>Cancel or stop following</h2>
            <p className="hint">
              <strong>Cancel run</strong> asks the service to end the run for everyone (it may take a moment: Cancelling, then Cancelled). Leaving this page or
              closing the tab only stops <em>this browser</em> reading it; the run goes on at the service.
            </p>
            {!confirming ? (
              <button type="button" className="danger" disabled={!cancellable || cancel.isPending} onClick={() => setConfirming(true)}>
                Cancel run…
              </button>
            ) : (
              <div className="confirm" role="group" aria-label="Confirm cancellation">
                <p>Cancel run {runId} on the service? This cannot be undone.</p>
                <button
                  type="button"
                  className="danger"
                  onClick={() => {
                    setConfirming(false);
                    cancel.mutate();
                  }}
                >
                  Yes, cancel the run
                </button>
                <button type="button" onClick={() => setConfirming(false)}>
                  Keep it running
                </button>
              </div>
            )}
            {cancel.isError && (
              <p className="error" role="alert">
                {explain(cancel.error, 'Cancelling')}
              </p>
            )}
          </section>
          <DurableActionsCode agentId={agentId} run={run} />

          <section aria-labelledby={`${headingId}-output`}>
            <div className="toolbar">
              <h2 id={`${headingId}-output`}>Output</h2>
              <CopyButton text={transcript} label="Copy transcript" />
            </div>
            <pre className="transcript durable-transcript" aria-label="Transcript">
              {transcript || 'No messages yet.'}
            </pre>
          </section>

          <section aria-labelledby={`${headingId}-states`}>
            <h2 id={`${headingId}-states`}>States seen</h2>
            <ol className="transitions" aria-label="States seen">
              <li>
                Created <time dateTime={run.created_at}>{new Date(run.created_at).toLocaleTimeString()}</time>
              </li>
              {followed.data!.observed.map((o, i) => (
                <li key={i}>
                  <span className={stateClass(o.state)}>{stateText(o.state)}</span> at <time dateTime={o.at}>{new Date(o.at).toLocaleTimeString()}</time>
                </li>
              ))}
            </ol>
            <p className="hint">Read from the run as this page polled it; a state that came and went between two reads is not listed.</p>
          </section>

          {followed.data!.meta && <SpecBadge answer={followed.data!.meta} />}
          <details>
            <summary>Raw JSON of the last read</summary>
            <CopyButton text={rawJson} label="Copy response body" />
            <pre className="raw">{rawJson}</pre>
          </details>
        </>
      )}
    </div>
  );
}
