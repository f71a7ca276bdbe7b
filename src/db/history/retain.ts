/**
 * Retention applied inside the transaction of the write that calls for it: the items as they
 * are (or will be, once the write lands), what is protected, and what goes, with its runs,
 * details and events, and the notice that says so.
 */

import { FOLLOWED_STATUSES, IN_FLIGHT_STATUSES, isInFlight, type RunStatus } from '../../engine/run-machine';
import type { ConsoleDb } from '../console-db';
import { itemsOf, recencyOf } from '../items';
import type { HistoryItem, StoredRun } from '../tables';
import { noteEviction } from './notice';
import { retention, withinLimits, type Dropped, type RetentionLimits } from './retention';
import { deleteRuns, mayChange } from './rows';

export interface RetainStep {
  limits: RetentionLimits;
  /** Items retention must keep: shown in some tab, just imported or restored. */
  protect: ReadonlySet<string>;
  /** A run about to be written (replacing `existing`): retention counts history as it will be once it lands. */
  write?: { row: StoredRun; existing?: StoredRun };
  at: number;
}

/** The items as they will be once `row` replaces `existing`. */
function itemsAfter(items: HistoryItem[], row: StoredRun, existing: StoredRun | undefined): HistoryItem[] {
  const item = items.find((i) => i.id === row.item);
  if (!item) return [...items, ...itemsOf([row])];
  const changed = { ...item, lastAt: Math.max(item.lastAt, recencyOf(row)), bytes: item.bytes - (existing?.item === row.item ? existing.size : 0) + row.size };
  return items.map((i) => (i === item ? changed : i));
}

/** Lets go of what retention says, in the caller's transaction (runs, items, details, events, meta); answers what went. */
export async function retainIn(db: ConsoleDb, step: RetainStep): Promise<Dropped[]> {
  const stored = await db.items.toArray();
  const { write } = step;
  const items = write ? itemsAfter(stored, write.row, write.existing) : stored;
  // A run still going on is never let go: it would come back as a stranger at its next change.
  // One whose request is open does not count yet either: its size is known when it ends.
  const going = await db.runs.where('status').anyOf([...IN_FLIGHT_STATUSES, ...FOLLOWED_STATUSES] as RunStatus[]).toArray();
  const protect = new Set(step.protect);
  const pending = new Set<string>();
  for (const r of write ? [...going.filter((g) => g.id !== write.row.id), write.row] : going) {
    if (!mayChange(r)) continue;
    protect.add(r.item);
    if (isInFlight(r.status as RunStatus)) pending.add(r.item);
  }
  if (withinLimits(items, step.limits, pending)) return [];
  const { dropped } = retention(items, protect, step.limits, pending);
  if (!dropped.length) return [];
  const ids = (await db.runs.where('item').anyOf(dropped.map((i) => i.id)).primaryKeys()) as string[];
  await deleteRuns(db, ids);
  await noteEviction(db, dropped, step.limits, step.at);
  return dropped;
}
