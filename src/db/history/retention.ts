/**
 * Retention, as a pure function of history's items: what to let go so history keeps within its
 * limits, and why. Nothing here reads the database; the repository asks it before each write
 * and applies its answer in the write's own transaction.
 *
 * - Pinned items are outside the limits: they neither count nor go (at most PIN_LIMIT of them).
 * - Protected items (on screen in any tab, a durable run still going on, what was just imported
 *   or restored) count, but never go.
 * - An item with a request still open (`pending`: a run in flight, whose size is not known until
 *   it ends) neither counts nor goes until then: a new run in a full history does not push an
 *   older item out before it is known whether it is kept itself (a run too large goes alone).
 * - An item larger than the size limit on its own goes first ('too-large'): no history within
 *   the limit can hold it, so keeping it would only push everything else out.
 * - Then the oldest go, one by one, until both limits are met ('count', 'size'), but only when
 *   they can be met: when what is protected is over a limit by itself, nothing is let go for
 *   it (letting go of everything else would not bring history within it).
 */

export const HISTORY_LIMIT = 50;
// In the units the page shows sizes in (1 MB = 1,000,000 bytes): 100 MiB read "104.9 MB" beside the README's 100 MB.
export const HISTORY_BYTES_LIMIT = 100_000_000;
/** Pins are outside the limits, so they are capped themselves. */
export const PIN_LIMIT = 50;

export interface RetentionLimits {
  items: number;
  bytes: number;
}

export const DEFAULT_LIMITS: RetentionLimits = { items: HISTORY_LIMIT, bytes: HISTORY_BYTES_LIMIT };

/** What retention reads of an item. */
export interface RetainedItem {
  id: string;
  kind: 'thread' | 'run';
  title: string;
  /** Its recency: its newest run's start, or its import. */
  lastAt: number;
  bytes: number;
  pinned?: boolean;
}

/** Why an item was let go: past the count, past the size, or larger than the size limit on its own. */
export type DropReason = 'count' | 'size' | 'too-large';

export interface Dropped {
  id: string;
  kind: RetainedItem['kind'];
  title: string;
  bytes: number;
  reason: DropReason;
}

export interface RetentionResult {
  /** What goes, in the order it was chosen. */
  dropped: Dropped[];
  /** Limits history stays over because what is protected is over them by itself. */
  over: ('count' | 'size')[];
}

/** Whether the items that count (unpinned, not `pending`) are within the limits. */
export function withinLimits(items: readonly RetainedItem[], limits: RetentionLimits, pending: ReadonlySet<string> = new Set()): boolean {
  let count = 0;
  let bytes = 0;
  for (const i of items) {
    if (i.pinned || pending.has(i.id)) continue;
    count++;
    bytes += i.bytes;
  }
  return count <= limits.items && bytes <= limits.bytes;
}

export function retention(items: readonly RetainedItem[], protect: ReadonlySet<string>, limits: RetentionLimits, pending: ReadonlySet<string> = new Set()): RetentionResult {
  const counted = items.filter((i) => !i.pinned && !pending.has(i.id));
  const kept = counted.filter((i) => protect.has(i.id));
  const dropped: Dropped[] = [];
  const drop = (i: RetainedItem, reason: DropReason) => dropped.push({ id: i.id, kind: i.kind, title: i.title, bytes: i.bytes, reason });
  let count = counted.length;
  let bytes = counted.reduce((n, i) => n + i.bytes, 0);
  const keptBytes = kept.reduce((n, i) => n + i.bytes, 0);
  const countReachable = kept.length <= limits.items;
  const sizeReachable = keptBytes <= limits.bytes;
  // Oldest first; among items as old, the larger first (fewer go).
  const candidates = counted.filter((i) => !protect.has(i.id)).sort((a, b) => a.lastAt - b.lastAt || b.bytes - a.bytes || (a.id < b.id ? -1 : 1));
  const rest: RetainedItem[] = [];
  for (const i of candidates) {
    if (i.bytes > limits.bytes) {
      drop(i, 'too-large');
      count--;
      bytes -= i.bytes;
    } else rest.push(i);
  }
  for (const i of rest) {
    const reason = countReachable && count > limits.items ? 'count' : sizeReachable && bytes > limits.bytes ? 'size' : undefined;
    if (!reason) break;
    drop(i, reason);
    count--;
    bytes -= i.bytes;
  }
  const over: RetentionResult['over'] = [];
  if (count > limits.items) over.push('count');
  if (bytes > limits.bytes) over.push('size');
  return { dropped, over };
}
