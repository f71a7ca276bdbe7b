import { formatBytes, formatCount } from '../../../lib/format';
import { dismissEviction, evictionCounts, HISTORY_BYTES_LIMIT, HISTORY_LIMIT, type Eviction } from '../../../db/history';

const itemName = (i: { kind: 'thread' | 'run'; title: string }) => `${i.kind === 'thread' ? 'conversation' : 'run'} “${i.title}”`;

/** The first five named, then how many more of `total` (the notice names only the newest it let go). */
function listed(names: readonly string[], total: number): string {
  return names.slice(0, 5).join(', ') + (total > 5 ? `, and ${formatCount(total - Math.min(5, names.length))} more` : '');
}

/** What retention let go since the notice was last dismissed, and why: past the limits, or too large for history on its own. */
export function EvictionNotice({ eviction }: { eviction: Eviction }) {
  const limits = eviction.limits ?? { items: HISTORY_LIMIT, bytes: HISTORY_BYTES_LIMIT };
  const counts = evictionCounts(eviction);
  const tooLarge = eviction.items.filter((i) => i.reason === 'too-large');
  const older = eviction.items.filter((i) => i.reason !== 'too-large');
  const tooLargeCount = counts['too-large'];
  const olderCount = counts.count + counts.size;
  const within = [counts.count > 0 && `${limits.items} items`, counts.size > 0 && formatBytes(limits.bytes)].filter(Boolean).join(' and ');
  return (
    <div className="notice" role="status">
      {tooLargeCount > 0 && (
        <p>
          History let go of {listed(tooLarge.map((i) => `${itemName(i)}${i.bytes !== undefined ? ` (${formatBytes(i.bytes)})` : ''}`), tooLargeCount)}:{' '}
          {tooLargeCount === 1 ? 'it was' : 'each was'} too large for history’s {formatBytes(limits.bytes)} limit on its own.
        </p>
      )}
      {olderCount > 0 && (
        <p>
          History let go of {olderCount === 1 ? 'an older item' : `${formatCount(olderCount)} older items`} to stay within {within} (pinned items, conversations on screen in any tab
          and runs still going on are never let go): {listed(older.map(itemName), olderCount)}.
        </p>
      )}
      <button type="button" onClick={() => void dismissEviction()}>
        Dismiss
      </button>
    </div>
  );
}

