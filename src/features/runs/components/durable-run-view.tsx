import { useMutation } from '@tanstack/react-query';
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { durableOutputText, type Decision } from '../../../contract/durable-runs';
import { CopyButton } from '../../../components/copy-button';
import { SpecBadge } from '../../../components/spec-badge';
import { ResponseSummary } from '../../../components/response-meta';
import { untilText } from '../../../engine/durable-follow';
import { explainActionError } from '../model/durable-words';
import { isTerminal, statusText, statusTone } from '../../../engine/run-machine';
import { metricsOf, type RunRecord } from '../../../engine/run-record';
import { formatCount } from '../../../lib/format';
import { escapeCancels } from '../../../lib/use-page-escape';
import { useRunStore, useWatch } from '../../../hooks/run-store';
import { Approvals } from './approvals';
import { FailurePanel } from './failure-panel';
import { StateLog } from './state-log';

/** Re-renders every second while `active`, for countdowns. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

/**
 * A durable run as the service keeps it, read from its record: state, approvals, cancel,
 * output, the states seen and the last answer. Followed (read again) while shown. The
 * parent keys it by the run, so nothing typed or opened here carries over to another.
 */
export function DurableRunView({ record, level = 2 }: { record: RunRecord; level?: 2 | 3 }) {
  const store = useRunStore();
  const ids = { output: useId(), states: useId() };
  const H = `h${level}` as 'h2' | 'h3';
  useWatch(record.id);
  const { status } = record.state;
  const snapshot = record.state.durable;
  const run = snapshot?.run;
  const ended = isTerminal(status);
  const now = useNow(!ended);
  const [confirming, setConfirming] = useState(false);
  const refocusCancel = useRef(false);
  const keepRunning = () => {
    refocusCancel.current = true;
    setConfirming(false);
  };
  const [reading, setReading] = useState(false);
  // How many transitions the run had when an action's answer arrived: its confirmation stays until the run moves on.
  const [acceptedAt, setAcceptedAt] = useState<{ action: 'cancel' | 'respond'; transitions: number } | null>(null);
  const accepted = (action: 'cancel' | 'respond', id: string) =>
    setAcceptedAt({ action, transitions: store.get(id)?.state.transitions.length ?? 0 });
  // Each carries the run it acts on from the moment it is called: the record's own id, and through it the connection it was sent with.
  const cancel = useMutation({
    mutationKey: ['durable-run', record.id, 'cancel'],
    mutationFn: (v: { id: string }) => store.cancel(v.id),
    onSuccess: (_, v) => accepted('cancel', v.id),
    retry: false,
  });
  const respond = useMutation({
    mutationKey: ['durable-run', record.id, 'respond'],
    mutationFn: (v: { id: string; decisions: Record<string, Decision> }) => store.respond(v.id, v.decisions),
    onSuccess: (_, v) => accepted('respond', v.id),
    retry: false,
  });
  // A decision's buttons go (disabled while it is sent, then with their card): focus would fall
  // to the page's body, and a keyboard user start again from the top. It goes to the run's
  // state instead, which says what the decision did; only after a decision made here.
  const stateRef = useRef<HTMLSpanElement>(null);
  const decided = useRef(false);
  useLayoutEffect(() => {
    if (!decided.current) return;
    const focused = document.activeElement;
    if (focused && focused !== document.body && focused.isConnected && !(focused as HTMLButtonElement).disabled) return;
    decided.current = false;
    stateRef.current?.focus();
  });
  const duration = metricsOf(record).durationMs;
  const transcript = useMemo(() => (run ? durableOutputText(run) : ''), [run]);
  const rawJson = useMemo(() => (snapshot ? JSON.stringify({ run: snapshot.run, request_id: snapshot.requestId }, null, 2) : ''), [snapshot]);
  if (!run) return <p role="status">Reading the run…</p>;
  const confirmation = acceptedAt && acceptedAt.transitions === record.state.transitions.length && !ended ? acceptedAt.action : null;
  const readAgain = () => {
    setReading(true);
    void store.read(record.id).finally(() => setReading(false));
  };

  return (
    <div className="durable-view">
      <div className="toolbar">
        <span ref={stateRef} tabIndex={-1} className={`status status-${statusTone(status)}`} role="status" aria-label="Run state">
          {statusText(status, record.state.unknownState)}
        </span>
        <span className="muted">
          {ended ? 'Ended; no more reads.' : reading ? 'Reading…' : 'Read again every few seconds while this tab is visible.'} Last read{' '}
          <time dateTime={new Date(snapshot.readAt).toISOString()}>{new Date(snapshot.readAt).toLocaleTimeString()}</time>.
        </span>
        {!ended && (
          <button type="button" onClick={readAgain} disabled={reading}>
            Read now
          </button>
        )}
      </div>
      {snapshot.meta && <ResponseSummary meta={snapshot.meta} />}
      {ended && duration !== undefined && (
        <p className="muted run-duration">
          Took {formatCount(duration)} ms, from its creation to its end on the service’s clock (the figure history and the conversation show).
        </p>
      )}
      {run.expires_at && !ended && status !== 'REQUIRES_INPUT' && (
        <p>
          Expires <time dateTime={run.expires_at}>{untilText(run.expires_at, now)}</time> (if still active then, the service marks it failed).
        </p>
      )}
      {record.state.unknownState && (
        <p className="warning">The service answered a state this console does not know, “{record.state.unknownState}”; it is shown as it came, and the run is still read.</p>
      )}
      {record.state.readError && !ended && (
        <p className="warning" role="alert">
          The last read failed: {explainActionError(record.state.readError, 'Reading the run')} What you see is the run as last read.
        </p>
      )}
      {record.state.failure && <FailurePanel failure={record.state.failure} />}
      {status === 'REQUIRES_INPUT' && run.pending_interactions.length > 0 && (
        <Approvals
          // A new batch of requests is a new set of decisions.
          key={run.pending_interactions.map((i) => i.interaction_id).join(' ')}
          interactions={run.pending_interactions}
          now={now}
          submitting={respond.isPending}
          onSubmit={(decisions) => {
            decided.current = true;
            respond.mutate({ id: record.id, decisions });
          }}
        />
      )}
      {respond.isError && !ended && (
        <p className="error" role="alert">
          {explainActionError(respond.error, 'Submitting the decisions')}
        </p>
      )}
      {confirmation === 'respond' && <p role="status">Your decisions were accepted; the run goes on.</p>}
      {!ended && (
        <section className="cancel-run" aria-label="Cancel">
          <H>Cancel the run</H>
          <p className="hint">
            <strong>Cancel run</strong> asks the service to end the run for everyone (it may take a moment: Cancelling, then Cancelled). Leaving this page
            or closing the tab only stops <em>this browser</em> reading it; the run goes on at the service.
          </p>
          {!confirming ? (
            <button
              ref={(el) => {
                // Back from "Keep it running": focus returns to the button that asked.
                if (el && refocusCancel.current) {
                  refocusCancel.current = false;
                  el.focus();
                }
              }}
              type="button"
              className="danger"
              disabled={status === 'CANCELLING' || cancel.isPending}
              onClick={() => setConfirming(true)}
            >
              {cancel.isPending ? 'Cancelling…' : 'Cancel run…'}
            </button>
          ) : (
            <div className="confirm" role="group" aria-label="Confirm cancellation" onKeyDown={(e) => escapeCancels(e, keepRunning)}>
              <p>Cancel run {record.runId} on the service? This cannot be undone.</p>
              <button
                type="button"
                className="danger"
                onClick={() => {
                  setConfirming(false);
                  cancel.mutate({ id: record.id });
                }}
              >
                Yes, cancel the run
              </button>
              {/* Focus starts on the answer that changes nothing: a cancellation cannot be undone. */}
              <button type="button" onClick={keepRunning} autoFocus>
                Keep it running
              </button>
            </div>
          )}
          {cancel.isError && (
            <p className="error" role="alert">
              {explainActionError(cancel.error, 'Cancelling')}
            </p>
          )}
          {confirmation === 'cancel' && <p role="status">The service accepted the cancellation; the run ends at its next safe point.</p>}
        </section>
      )}
      <section aria-labelledby={ids.output}>
        <div className="toolbar">
          <H id={ids.output}>Output</H>
          <CopyButton text={transcript} label="Copy transcript" />
        </div>
        <pre className="transcript durable-transcript" aria-label="Transcript">
          {transcript || 'No messages yet.'}
        </pre>
      </section>
      <section aria-labelledby={ids.states}>
        <H id={ids.states}>States seen</H>
        <StateLog record={record} />
        <p className="hint">As this console read the run; a state that came and went between two reads is not listed.</p>
      </section>
      {snapshot.meta && <SpecBadge answer={snapshot.meta} />}
      <details>
        <summary>Raw JSON of the last read</summary>
        <CopyButton text={rawJson} label="Copy response body" />
        <pre className="raw">{rawJson}</pre>
      </details>
    </div>
  );
}
