import { useEffect, useState, type ReactNode, type Ref } from 'react';
import { ResponseSummary } from '../../../components/response-meta';
import { formatCount } from '../../../lib/format';
import { isInFlight, isTerminal, statusText, statusTone } from '../../../engine/run-machine';
import { metricsOf, type RunRecord } from '../../../engine/run-record';
import { faultOfRequest, partsOf } from '../../../engine/run-request';
import { useRecordFigures } from '../../../hooks/use-history';
import { RunBody } from './run-body';

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
  // Live: a stream's size grows as its events arrive (the same figure as its counters).
  const m = useRecordFigures(run);
  const fault = faultOfRequest(request);
  return (
    <>
      <p className="run-identity">
        <strong>{request.agentName ?? request.agentId}</strong> <code className="muted">{request.agentId}</code> ·{' '}
        {request.flavour === 'legacy' ? 'legacy API' : 'current API'}, {request.mode} · profile {target.profileLabel} ·{' '}
        <time dateTime={new Date(run.startedAt).toISOString()}>{new Date(run.startedAt).toLocaleTimeString()}</time>
        {fault !== undefined && (
          <>
            {' '}
            · with fault <code>{fault}</code>
          </>
        )}
      </p>
      {meta && <ResponseSummary meta={meta} bytes={m.bytes} />}
    </>
  );
}

/** Brings the newest decision waiting in the run's output into view, its first choice focused. */
function goToDecision() {
  const all = document.querySelectorAll<HTMLElement>('#run-output .approvals');
  const section = all[all.length - 1];
  if (!section) return;
  const choice = section.querySelector<HTMLElement>('button:not(:disabled), input:not(:disabled)');
  // The run's head covers the pane's top (sticky, wide screens) or the screen's foot (fixed, on
  // a phone). The approval is shown from its heading (the tool and what it does), just below a
  // sticky head; the choice itself goes to the middle only when the card is too tall for both.
  const head = document.querySelector<HTMLElement>('.response-head');
  const position = head ? getComputedStyle(head).position : '';
  const headHeight = head?.getBoundingClientRect().height ?? 0;
  section.style.scrollMarginTop = `${(position === 'sticky' ? headHeight : 0) + 8}px`;
  section.scrollIntoView({ block: 'start' });
  const bottom = window.innerHeight - (position === 'fixed' ? headHeight : 0);
  if (choice && choice.getBoundingClientRect().bottom > bottom) choice.scrollIntoView({ block: 'center' });
  choice?.focus({ preventScroll: true });
}

/**
 * The response side: the Run and Stop controls and the status at its top, then what the run
 * (the one in flight, or the last one) answered, whatever its kind. Run submits the request
 * side's form. Everything shown of a run is keyed by the run, so nothing opened in one shows in the next.
 */
export function ResponsePanel({ run, stoppable = false, idleText, body, formId, runLabel, canRun, cannotRunWhy, onStop, onRunAsDurable, onRunAgain, runAgainBlockedWhy, statusRef }: {
  run: RunRecord | undefined;
  /** A run is in flight, whether or not it is the one shown (a conversation's other branch): Stop stops it. */
  stoppable?: boolean;
  /** The status said when no run is held (a conversation opened from history). */
  idleText?: string;
  /** What to show instead of the run's own body (a conversation, whose turns show their runs). */
  body?: ReactNode;
  formId: string;
  runLabel: string;
  canRun: boolean;
  cannotRunWhy?: string;
  onStop(): void;
  /** Sends the refused run's input again as a durable run (when the refusal asks for one). */
  onRunAsDurable?(run: RunRecord): void;
  /** Sends the refused run's request again, as it was (once its tools are authorized). */
  onRunAgain?(run: RunRecord): void;
  runAgainBlockedWhy?: string;
  statusRef: Ref<HTMLSpanElement>;
}) {
  const status = run?.state.status ?? 'idle';
  const canStop = isInFlight(status) || stoppable;
  const metrics = run && metricsOf(run);
  return (
    <section className="run-output" id="run-output" aria-labelledby="output-heading">
      <div className="response-head">
        <div className="toolbar">
          <h2 id="output-heading">Run</h2>
          {/* data-run-id: whose status this is; a test waits for a new run's identity, not for a status an earlier run also had. */}
          <span ref={statusRef} tabIndex={-1} className={`status status-${statusTone(status)}`} role="status" data-run-id={run?.id}>
            {run ? statusText(status, run.state.unknownState) : (idleText ?? statusText('idle'))}
          </span>
          {run && status !== 'idle' && (
            <span className="muted">{isTerminal(status) ? `${formatCount(metrics!.durationMs ?? 0)} ms` : <Elapsed since={run.startedAt} />}</span>
          )}
        </div>
        <div className="toolbar">
          <button type="submit" form={formId} className="primary" disabled={!canRun} aria-keyshortcuts="Control+Enter Meta+Enter">
            {runLabel}
          </button>
          <button type="button" onClick={onStop} disabled={!canStop} aria-keyshortcuts="Escape">
            Stop
          </button>
          {status === 'REQUIRES_INPUT' ? (
            // The decision sits below the run's output, often out of view: the head says so and takes the user there.
            <span className="hint">
              The run waits for your decision (or <strong>Cancel run…</strong>, below it, to end it).{' '}
              <button type="button" className="link-button" onClick={goToDecision}>
                Go to the approval
              </button>
            </span>
          ) : (
            /* Keyboard advice is no use on a touch screen, where this bar is sticky and every line costs the answer room. */
            <span className={cannotRunWhy || canStop ? 'hint' : 'hint keyboard-hint'}>
              {cannotRunWhy ?? (canStop ? 'Stop (or Escape) closes this browser’s side; the run is not sent again.' : 'Ctrl+Enter (⌘+Enter) runs from anywhere in the request.')}
            </span>
          )}
        </div>
      </div>
      {body ??
        (run && (
          <div className="response-body" key={run.id}>
            <RunIdentity run={run} />
            <RunBody run={run} onRunAsDurable={onRunAsDurable} onRunAgain={onRunAgain} runAgainBlockedWhy={runAgainBlockedWhy} />
            {isTerminal(status) && !run.request.thread && partsOf(run.request).messages === undefined && (
              <p className="hint">
                {run.request.agentName ?? run.request.agentId} takes an input form, not a conversation: there is nothing to reply to. Change the form and run
                it again for another answer.
              </p>
            )}
          </div>
        ))}
    </section>
  );
}
