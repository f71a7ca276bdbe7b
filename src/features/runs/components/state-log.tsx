import { formatCount } from '../../../lib/format';
import { statusText, statusTone } from '../../../engine/run-machine';
import type { RunRecord } from '../../../engine/run-record';

/**
 * Every state the run went through, with its time (since the click, and of day) and why:
 * the client's states and, for a durable run, the service's, and the decisions taken on it.
 */
export function StateLog({ record }: { record: RunRecord }) {
  return (
    <ol className="transitions" aria-label="States seen">
      {record.state.transitions.map((t, i) => {
        const same = i > 0 && record.state.transitions[i - 1]!.status === t.status;
        return (
          <li key={i}>
            {same ? <span className="muted">·</span> : <span className={`status status-${statusTone(t.status)}`}>{statusText(t.status)}</span>}{' '}
            <time dateTime={new Date(t.at).toISOString()}>{new Date(t.at).toLocaleTimeString()}</time>
            {record.origin === 'sent' && <span className="muted"> (seen +{formatCount(Math.max(0, t.at - record.startedAt))} ms)</span>}
            {t.note ? <span> · {t.note}</span> : null}
          </li>
        );
      })}
    </ol>
  );
}
