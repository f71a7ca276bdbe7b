/**
 * What retention let go, said above History's list until dismissed: every item let go since,
 * not only the last, each with why (past the count, past the size, or too large on its own).
 */

import type { ConsoleDb } from '../console-db';
import type { Dropped, RetentionLimits } from './retention';

export interface Eviction {
  at: number;
  /** The limits it kept to. */
  limits: RetentionLimits;
  /** What was let go since the notice was last dismissed (the latest eviction's first), and why. */
  items: Dropped[];
}

const EVICTION_KEY = 'last-eviction';

/** Adds what went now to the notice (inside the transaction that let it go). */
export async function noteEviction(db: ConsoleDb, dropped: readonly Dropped[], limits: RetentionLimits, at: number): Promise<Eviction> {
  const earlier = ((await db.meta.get(EVICTION_KEY))?.value as Eviction | undefined)?.items ?? [];
  const gone = new Set(dropped.map((i) => i.id));
  const notice: Eviction = { at, limits, items: [...dropped, ...earlier.filter((i) => !gone.has(i.id))] };
  await db.meta.put({ key: EVICTION_KEY, value: notice });
  return notice;
}

export async function evictionNotice(db: ConsoleDb): Promise<Eviction | undefined> {
  return (await db.meta.get(EVICTION_KEY))?.value as Eviction | undefined;
}

export async function dismissEviction(db: ConsoleDb): Promise<void> {
  await db.meta.delete(EVICTION_KEY);
}
