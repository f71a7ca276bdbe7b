import { formatCount } from '../../../lib/format';
import { progressOf } from '../../../engine/progress';

/** "N of M events" for a run that said up front how many it would send. */
export function StreamProgress({ received, expected }: { received: number; expected: number }) {
  const { percent } = progressOf(received, expected);
  return (
    <div className="stream-progress">
      <progress aria-label="Events received" max={expected} value={Math.min(received, expected)} />
      <span>
        {formatCount(received)} of {formatCount(expected)} events ({percent}%)
      </span>
    </div>
  );
}
