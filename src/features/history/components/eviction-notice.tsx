import { formatBytes, formatCount } from '../../../lib/format';
import { dismissEviction, HISTORY_BYTES_LIMIT, HISTORY_LIMIT, type Eviction } from '../../../db/history';

const itemName = (i: { kind: 'thread' | 'run'; title: string }) => `${i.kind === 'thread' ? 'conversation' : 'run'} “${i.title}”`;

function listed(items: readonly { kind: 'thread' | 'run'; title: string }[]): string {
  return items.slice(0, 5).map(itemName).join(', ') + (items.length > 5 ? `, and ${formatCount(items.length - 5)} more` : '');
}

/** What retention let go since the notice was last dismissed, and why: past the limits, or too large for history on its own. */
export function EvictionNotice({ eviction }: { eviction: Eviction }) {
  const limits = eviction.limits ?? { items: HISTORY_LIMIT, bytes: HISTORY_BYTES_LIMIT };
  const tooLarge = eviction.items.filter((i) => i.reason === 'too-large');
  const older = eviction.items.filter((i) => i.reason !== 'too-large');
  const within = [older.some((i) => i.reason === 'count') && `${limits.items} items`, older.some((i) => i.reason === 'size') && formatBytes(limits.bytes)].filter(Boolean).join(' and ');
  return (
    <div className="notice" role="status">
      {tooLarge.length > 0 && (
        <p>
          History let go of {tooLarge.map((i) => `${itemName(i)}${i.bytes !== undefined ? ` (${formatBytes(i.bytes)})` : ''}`).join(', ')}: {tooLarge.length === 1 ? 'it was' : 'each was'} too large
          for history’s {formatBytes(limits.bytes)} limit on its own.
        </p>
      )}
      {older.length > 0 && (
        <p>
          History let go of {older.length === 1 ? 'an older item' : `${formatCount(older.length)} older items`} to stay within {within} (pinned items, conversations on screen in any tab
          and runs still going on are never let go): {listed(older)}.
        </p>
      )}
      <button type="button" onClick={() => void dismissEviction()}>
        Dismiss
      </button>
    </div>
  );
}

