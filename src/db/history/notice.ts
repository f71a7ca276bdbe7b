/**
 * What retention let go, said above History's list until dismissed: every item let go since,
 * not only the last, each with why (past the count, past the size, or too large on its own).
 * The notice is rewritten inside every write that lets something go, so it keeps names of the
 * newest few only and counts the rest: hundreds of evictions before a dismissal would otherwise
 * make each write carry them all.
 */

import type { ConsoleDb } from '../console-db';
import type { DropReason, Dropped, RetentionLimits } from './retention';

/** How many of the items let go are named; the rest are counted. */
export const NAMED_EVICTIONS = 20;

export interface Eviction {
  at: number;
  /** The limits it kept to. */
  limits: RetentionLimits;
  /** The newest of what was let go since the notice was last dismissed (the latest eviction's first), and why. */
  items: Dropped[];
  /** Everything let go since, named or not, by why. Absent from notices written before it was kept. */
  counts?: Record<DropReason, number>;
}

/** How many were let go for each reason, the unnamed ones included. */
export function evictionCounts(notice: Eviction): Record<DropReason, number> {
  if (notice.counts) return notice.counts;
  const counts: Record<DropReason, number> = { count: 0, size: 0, 'too-large': 0 };
  for (const i of notice.items) counts[i.reason]++;
  return counts;
}

const EVICTION_KEY = 'last-eviction';

/** Adds what went now to the notice (inside the transaction that let it go). */
export async function noteEviction(db: ConsoleDb, dropped: readonly Dropped[], limits: RetentionLimits, at: number): Promise<Eviction> {
  const before = (await db.meta.get(EVICTION_KEY))?.value as Eviction | undefined;
  const counts = before ? { ...evictionCounts(before) } : { count: 0, size: 0, 'too-large': 0 };
  const gone = new Set(dropped.map((i) => i.id));
  const earlier = (before?.items ?? []).filter((i) => !gone.has(i.id));
  // An item named before and let go again (restored by Undo meanwhile) counts once.
  for (const i of before?.items ?? []) if (gone.has(i.id)) counts[i.reason]--;
  for (const i of dropped) counts[i.reason]++;
  const notice: Eviction = { at, limits, items: [...dropped, ...earlier].slice(0, NAMED_EVICTIONS), counts };
  await db.meta.put({ key: EVICTION_KEY, value: notice });
  return notice;
}

export async function evictionNotice(db: ConsoleDb): Promise<Eviction | undefined> {
  return (await db.meta.get(EVICTION_KEY))?.value as Eviction | undefined;
}

export async function dismissEviction(db: ConsoleDb): Promise<void> {
  await db.meta.delete(EVICTION_KEY);
}
