/**
 * History: what the console keeps of its runs, in the browser database (console-db). Every
 * change of a run is written through here; pages read it back with live queries (use-history),
 * so every tab and pane shows the same. This page's repository (repository.ts), and what the
 * rest of the console calls:
 *
 * - repository.ts   every write of a run, import and retention, one transaction each
 * - retention.ts    what retention lets go of, a pure function of the items
 * - retain.ts       retention applied inside a write's transaction, and its notice (notice.ts)
 * - clear.ts        Clear history and its Undo
 * - sweep.ts        runs cut off by a closed or reloaded page
 * - presence.ts     what every tab shows and holds (Web Locks, or a row per tab)
 */

import { queryOptions } from '@tanstack/react-query';
import type { HistoryDetails, HistoryEntry } from '../../engine/history-entry';
import { consoleDb } from '../console-db';
import * as clear from './clear';
import * as notice from './notice';
import { pagePresence } from './presence';
import { HistoryRepository, type WriteResult } from './repository';
import { DEFAULT_LIMITS, type Dropped, type RetentionLimits } from './retention';
import { entryOf, runDetails as detailsOf } from './rows';
import { sweepCutOff as sweep, type FindRun } from './sweep';

export type { HistoryDetails, HistoryEntry, HistoryTarget } from '../../engine/history-entry';
export type { ClearResult, LastClear } from './clear';
export type { Eviction } from './notice';
export { evictionCounts } from './notice';
export type { Dropped, DropReason, RetentionLimits } from './retention';
export type { FindRun, FoundRun } from './sweep';
export type { WriteResult } from './repository';
export { itemsText, UNDO_CLEAR_MS } from './clear';
export { HISTORY_BYTES_LIMIT, HISTORY_LIMIT, PIN_LIMIT, retention } from './retention';
export { entryOf, mayChange } from './rows';
export { CUT_OFF_NOTE, FOUND_AGAIN_NOTE, ID_NEVER_ARRIVED, NEVER_STARTED } from './sweep';
export { HistoryRepository } from './repository';
export { HEARTBEAT_MS, lockPresence, rowPresence, RUN_LOCK_PREFIX, TAB_STALE_MS, type Presence } from './presence';

let page: HistoryRepository | undefined;

/** This page's repository: its database, and what its tabs show and hold. */
export function historyRepository(): HistoryRepository {
  page ??= new HistoryRepository(consoleDb(), pagePresence(consoleDb()));
  return page;
}

/** Sets retention's limits (a test's smaller ones); undefined restores the defaults. */
export function setRetentionLimits(next?: Partial<RetentionLimits>): void {
  historyRepository().limits = { ...DEFAULT_LIMITS, ...next };
}

/** Marks an item (a conversation, a run) as on screen in this tab until the returned function is called: no tab's retention lets it go. */
export function keepOnScreen(itemId: string): () => void {
  return historyRepository().presence.show(itemId);
}

/** Holds a run's request open where the page has no Web Locks (the run store's lock). */
export function holdRun(name: string): Promise<() => void> {
  return historyRepository().presence.hold(name);
}

export function writeRun(entry: HistoryEntry, details?: HistoryDetails, options: { create?: boolean } = {}): Promise<WriteResult> {
  return historyRepository().writeRun(entry, details, options);
}

/** A run new to history with what it has (tests, and every run the store starts). */
export function saveRun(entry: HistoryEntry, details: HistoryDetails = {}): Promise<WriteResult> {
  return writeRun(entry, details, { create: true });
}

export function importRuns(entries: readonly HistoryEntry[], importedAt?: number): Promise<Dropped[]> {
  return historyRepository().importRuns(entries, importedAt);
}

export function retain(): Promise<Dropped[]> {
  return historyRepository().retain();
}

export function setPinned(itemId: string, pinned: boolean): Promise<boolean> {
  return historyRepository().setPinned(itemId, pinned);
}

export const clearHistory = (now?: number) => clear.clearHistory(historyRepository(), now);
export const undoClear = (id: string, now?: number) => clear.undoClear(historyRepository(), id, now);
export const lastClear = (now?: number) => clear.lastClear(consoleDb(), now);
export const purgeOldClears = (now?: number) => clear.purgeOldClears(consoleDb(), now);
export const evictionNotice = () => notice.evictionNotice(consoleDb());
export const dismissEviction = () => notice.dismissEviction(consoleDb());
export const sweepCutOff = (options?: { at?: number; findRun?: FindRun }) => sweep(historyRepository(), options);

/** Every entry, newest first. */
export async function listRuns(): Promise<HistoryEntry[]> {
  return (await consoleDb().runs.orderBy('startedAt').reverse().toArray()).map(entryOf);
}

export function runDetails(id: string): Promise<HistoryDetails | undefined> {
  return detailsOf(consoleDb(), id);
}

/** A kept run's events and answer: they never change once written, so they are read once (once there). */
export const runDetailsQueryOptions = (id: string) =>
  queryOptions({
    queryKey: ['run-details', id] as const,
    queryFn: async (): Promise<HistoryDetails> => (await runDetails(id)) ?? {},
    // Read before the run's write landed, nothing is kept as the answer: it is read again next time.
    staleTime: (q) => (q.state.data?.events !== undefined || q.state.data?.result !== undefined ? Infinity : 0),
  });

/** Empties the database (tests start from nothing; Clear history is what users have). */
export async function wipeHistory(): Promise<void> {
  const db = consoleDb();
  await db.transaction('rw', [db.runs, db.items, db.details, db.events, db.cleared, db.meta], async () => {
    await Promise.all([db.runs.clear(), db.items.clear(), db.details.clear(), db.events.clear(), db.cleared.clear(), db.meta.where('key').notEqual('migrated-from-idb-keyval').delete()]);
  });
}

/** The export of one run: everything kept, which by construction holds no token. */
export async function exportRun(entry: HistoryEntry): Promise<string> {
  return JSON.stringify({ ...entry, ...(await runDetails(entry.id)) }, null, 2);
}
