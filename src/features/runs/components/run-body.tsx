import { Link } from 'react-router';
import { expectedEventsOf } from '../../../engine/progress';
import { metricsOf, type RunRecord } from '../../../engine/run-record';
import { DurableRunView } from './durable-run-view';
import { FailurePanel } from './failure-panel';
import { Refusal } from './refusal';
import { StateLog } from './state-log';
import { StreamOutput } from './stream-output';
import { WaitOutput } from './wait-output';
import { useSlots, type RunBodyProps } from '../../../components/slots';

/** Where a run's state chart ends: at its duration once it ended (the one figure the head and history show), else at its last state seen. */
function chartEnd(run: RunRecord): number {
  const { durationMs } = metricsOf(run);
  return durationMs === undefined ? run.state.transitions.at(-1)!.at : run.startedAt + durationMs;
}

/**
 * What one run answered, whatever its kind: its refusal or failure, the stream's transcript
 * and timeline, the wait's answer, or the durable run as the service keeps it (approvals and
 * cancel included). The caller keys it by the run, so nothing opened in one shows in the next.
 */
export function RunBody({ run, onRunAsDurable, onRunAgain, runAgainBlockedWhy, level = 3 }: RunBodyProps) {
  const { StateChart } = useSlots();
  const { status } = run.state;
  return (
    <>
      {run.state.refusal && (
        <Refusal
          error={run.state.refusal}
          onRunAsDurable={onRunAsDurable && (() => onRunAsDurable(run))}
          onRunAgain={onRunAgain && (() => onRunAgain(run))}
          runAgainBlockedWhy={runAgainBlockedWhy}
          sentWith={run.target}
        />
      )}
      {run.state.failure && !run.state.durable && <FailurePanel failure={run.state.failure} />}
      {status === 'interrupted' && (
        <div className="warning" role="alert">
          <p>
            The connection broke before the run ended ({run.state.note}). Everything received is kept below. The run was not sent again; run it again yourself
            if you want a new answer.
          </p>
        </div>
      )}
      {status === 'stopped' && <p className="muted">{run.state.note} Everything received is kept.</p>}
      {run.log && <StreamOutput log={run.log} state={run.state} durationMs={metricsOf(run).durationMs} expectedEvents={expectedEventsOf(run.request.body)} />}
      {run.answer && <WaitOutput answer={run.answer} />}
      {!run.log && run.state.transitions.length > 1 && (
        <StateChart transitions={run.state.transitions} startedAt={run.startedAt} endAt={chartEnd(run)} label="Over time" />
      )}
      {run.runId && (
        <>
          <p>
            The service keeps this run as <code>{run.runId}</code>; it goes on without this page.{' '}
            <Link to={`/runs/${encodeURIComponent(run.request.agentId)}/${encodeURIComponent(run.runId)}`}>Open the run’s own page</Link> (a link you can keep
            or share with the same token).
          </p>
          <DurableRunView record={run} level={level} />
        </>
      )}
      {!run.runId && (
        <details>
          <summary>State history</summary>
          <StateLog record={run} />
        </details>
      )}
    </>
  );
}
