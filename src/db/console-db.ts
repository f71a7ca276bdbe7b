/**
 * The console's one browser database (IndexedDB through Dexie): every run, conversation turn
 * and the details of each, in one versioned schema with indexes, read by live queries in every
 * tab. What the console keeps has this one home; the run store only holds what is in flight.
 *
 * Version 1 replaces the two idb-keyval stores of earlier versions ('mac-run-history' and
 * 'mac-run-details'): on first open their entries are moved here, once, in one transaction
 * (`migrateFromKeyval`), and the old databases are deleted. Version 2 adds the agent test
 * suites (`suites`, `suiteRuns`, `caseResults`, `caseDetails`); runs of version 1 stay as they are.
 */

import { Dexie, type EntityTable, type Table } from 'dexie';
import { normalizedEntry } from '../engine/history-entry';
import type { TimelineEntry } from '../engine/stream-event';
import type { Suite } from '../engine/suites/suite';
import { itemIdOf, itemsMiddleware } from './items';
import type { ClearedHistory, EventSlice, HistoryItem, MetaRow, StoredCaseDetails, StoredCaseResult, StoredDetails, StoredRun, StoredSuiteRun } from './tables';

export type { ClearedHistory, EventSlice, HistoryItem, MetaRow, StoredCaseDetails, StoredCaseResult, StoredDetails, StoredRun, StoredSuiteRun } from './tables';

export const DB_NAME = 'metadata-agents-console';

/** Version 1's tables, as the first release of this database wrote them: never edit (a new version adds). */
export const VERSION_1_STORES = {
  runs: 'id, startedAt, item, request.agentId, request.thread.id, runId, status',
  details: 'id',
  events: '[id+slice]',
  items: 'id, lastAt',
  cleared: 'id, at',
  meta: 'key',
} as const;

export class ConsoleDb extends Dexie {
  runs!: EntityTable<StoredRun, 'id'>;
  details!: EntityTable<StoredDetails, 'id'>;
  events!: Table<EventSlice, [string, number]>;
  items!: EntityTable<HistoryItem, 'id'>;
  cleared!: EntityTable<ClearedHistory, 'id'>;
  meta!: EntityTable<MetaRow, 'key'>;
  suites!: EntityTable<Suite, 'id'>;
  suiteRuns!: EntityTable<StoredSuiteRun, 'id'>;
  caseResults!: EntityTable<StoredCaseResult, 'id'>;
  caseDetails!: EntityTable<StoredCaseDetails, 'id'>;

  constructor(name = DB_NAME) {
    super(name);
    this.version(1).stores(VERSION_1_STORES);
    // Version 2: agent test suites, their runs and each case's result (and, apart, its run's events and answer).
    this.version(2).stores({
      suites: 'id, updatedAt',
      suiteRuns: 'id, suiteId, startedAt, status',
      caseResults: 'id, suiteRunId, [suiteRunId+index]',
      caseDetails: 'id',
    });
    // History's items follow its runs in every write, whoever writes them (items.ts).
    this.use(itemsMiddleware);
    this.on('ready', (vip) => migrateFromKeyval(vip as ConsoleDb));
  }
}

export const OLD_SUMMARIES_DB = 'mac-run-history';
export const OLD_DETAILS_DB = 'mac-run-details';
const MIGRATED = 'migrated-from-idb-keyval';

/**
 * Reads every key and value of an idb-keyval store (one object store with out-of-line keys) with
 * one cursor: keys and values read apart, in two transactions, were paired wrongly when a tab of
 * the previous version, still open, wrote in between.
 */
async function readKeyval(name: string, store: string): Promise<Map<string, unknown> | undefined> {
  if (!(await Dexie.exists(name))) return undefined;
  const old = new Dexie(name);
  try {
    await old.open();
    if (!old.tables.some((t) => t.name === store)) return new Map();
    const out = new Map<string, unknown>();
    await old.table(store).each((value, cursor) => void out.set(String(cursor.primaryKey), value));
    return out;
  } finally {
    old.close();
  }
}

/** Moves what earlier versions kept (two idb-keyval stores) into this database, once. */
export async function migrateFromKeyval(db: ConsoleDb): Promise<void> {
  if (await db.meta.get(MIGRATED)) return;
  let summaries: Map<string, unknown> | undefined;
  let details: Map<string, unknown> | undefined;
  try {
    [summaries, details] = await Promise.all([readKeyval(OLD_SUMMARIES_DB, 'summaries'), readKeyval(OLD_DETAILS_DB, 'details')]);
  } catch {
    // An old store that cannot be read is left where it is; this database starts empty.
    summaries = details = undefined;
  }
  const runs: StoredRun[] = [];
  const detailRows: StoredDetails[] = [];
  const slices: EventSlice[] = [];
  for (const value of summaries?.values() ?? []) {
    const entry = normalizedEntry(value);
    if (!entry) continue;
    const kept = details?.get(entry.id) as { result?: unknown; eventRecords?: number } | undefined;
    const eventRecords = typeof kept?.eventRecords === 'number' ? kept.eventRecords : 0;
    let detailsBytes = 0;
    for (let i = 0; i < eventRecords; i++) {
      const events = details?.get(`${entry.id}#${i}`);
      if (!Array.isArray(events)) continue;
      slices.push({ id: entry.id, slice: i, events: events as TimelineEntry[] });
      detailsBytes += events.reduce((n: number, e: TimelineEntry) => n + 80 + (e.data?.length ?? 0), 0);
    }
    if (kept) {
      detailRows.push({ id: entry.id, ...(kept.result !== undefined && { result: kept.result }), eventRecords });
      if (kept.result !== undefined) detailsBytes += JSON.stringify(kept.result)?.length ?? 0;
    }
    runs.push({ ...entry, item: itemIdOf(entry), size: JSON.stringify(entry).length + detailsBytes, detailsBytes });
  }
  await db.transaction('rw', [db.runs, db.details, db.events, db.meta], async () => {
    // Another tab may have moved them meanwhile.
    if (await db.meta.get(MIGRATED)) return;
    await db.runs.bulkPut(runs);
    await db.details.bulkPut(detailRows);
    await db.events.bulkPut(slices);
    await db.meta.put({ key: MIGRATED, value: { at: Date.now(), runs: runs.length } });
  });
  if (summaries) void Dexie.delete(OLD_SUMMARIES_DB).catch(() => undefined);
  if (details) void Dexie.delete(OLD_DETAILS_DB).catch(() => undefined);
}

let shared: ConsoleDb | undefined;

/** The database of this page (one connection per page, as Dexie advises). */
export function consoleDb(): ConsoleDb {
  shared ??= new ConsoleDb();
  return shared;
}
