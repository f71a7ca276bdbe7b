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
import type { HistoryDetails, HistoryEntry } from '../engine/history-entry';
import { normalizedEntry } from '../engine/history-entry';
import type { TimelineEntry } from '../engine/stream-event';
import type { CaseResult } from '../engine/suites/runner';
import type { Flavour } from '../engine/run-request';
import type { Suite } from '../engine/suites/suite';
import type { SuiteSummary } from '../engine/suites/summary';

export const DB_NAME = 'metadata-agents-console';

/** A run as the database keeps it: history's entry, the item it belongs to and its size. */
export interface StoredRun extends HistoryEntry {
  /** The history item: its conversation's id, or its own id for a run outside any conversation. */
  item: string;
  /** What it takes in the database, in bytes (its entry, answer and events), for retention by size. */
  size: number;
  /** Of which its details (answer, events). */
  detailsBytes: number;
}

/** A run's answer, apart from its entry so listing history never loads it. */
export interface StoredDetails {
  id: string;
  /** Wait mode: the answer's body; durable: the run as last read. */
  result?: unknown;
  /** Wait mode: the answer's body as received (parsed when read). */
  resultText?: string;
  /** How many slices of events the run's stream has in `events`. */
  eventRecords: number;
}

/** Events are kept in slices: one structured clone of 50,000 events would block the page. */
export interface EventSlice {
  id: string;
  slice: number;
  events: TimelineEntry[];
}

/** What retention counts: a conversation, or a run outside any. */
export interface HistoryItem {
  id: string;
  kind: 'thread' | 'run';
  /** What history names it by: a conversation's first question, a run's agent. */
  title: string;
  /** Its newest run's start, or when it was imported. */
  lastAt: number;
  /** When a tab last showed it: a conversation on screen is the newest item, so it is never let go. */
  viewedAt?: number;
  bytes: number;
  /** Pinned by the user: never let go by retention. */
  pinned?: boolean;
}

/** Runs and items taken out by Clear history, kept until Undo, the next Clear or a day later. */
export interface ClearedHistory {
  id: string;
  at: number;
  runs: StoredRun[];
  items: HistoryItem[];
}

/** A suite run as kept: where it ran, how far it got, what it came to. Its results are rows of their own. */
export interface StoredSuiteRun {
  id: string;
  suiteId: string;
  suiteName: string;
  startedAt: number;
  endedAt?: number;
  /** `running` while a tab runs it; `interrupted` when its tab closed first. */
  status: 'running' | 'done' | 'stopped' | 'interrupted';
  /** Where it ran: the profile (never its token), and what it changed for every case. */
  target: { profileId: string; profileLabel: string; api?: Flavour; agentId?: string };
  concurrency: number;
  /** Runs the suite makes (cases and rows). */
  total: number;
  summary?: SuiteSummary;
}

/** One case's (or row's) result in a suite run, without its run's events and answer (`caseDetails`). */
export interface StoredCaseResult extends Omit<CaseResult, 'details'> {
  /** `${suiteRunId}:${key}` */
  id: string;
  suiteRunId: string;
  /** Its place in the suite, to list results in the suite's order. */
  index: number;
}

export interface StoredCaseDetails extends HistoryDetails {
  id: string;
}

export interface MetaRow {
  key: string;
  value: unknown;
}

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
    runs.push({ ...entry, item: entry.request.thread?.id ?? entry.id, size: JSON.stringify(entry).length + detailsBytes, detailsBytes });
  }
  await db.transaction('rw', [db.runs, db.details, db.events, db.items, db.meta], async () => {
    // Another tab may have moved them meanwhile.
    if (await db.meta.get(MIGRATED)) return;
    await db.runs.bulkPut(runs);
    await db.details.bulkPut(detailRows);
    await db.events.bulkPut(slices);
    await db.items.bulkPut(itemsOf(runs));
    await db.meta.put({ key: MIGRATED, value: { at: Date.now(), runs: runs.length } });
  });
  if (summaries) void Dexie.delete(OLD_SUMMARIES_DB).catch(() => undefined);
  if (details) void Dexie.delete(OLD_DETAILS_DB).catch(() => undefined);
}

/** The items of some runs: a conversation is one item, named by its first question. */
export function itemsOf(runs: readonly StoredRun[]): HistoryItem[] {
  const items = new Map<string, HistoryItem>();
  const sorted = [...runs].sort((a, b) => a.startedAt - b.startedAt);
  for (const r of sorted) {
    const at = Math.max(r.startedAt, r.imported?.at ?? 0);
    const item = items.get(r.item);
    if (item) {
      item.lastAt = Math.max(item.lastAt, at);
      item.bytes += r.size;
    } else items.set(r.item, { id: r.item, kind: r.request.thread ? 'thread' : 'run', title: titleOfRun(r), lastAt: at, bytes: r.size });
  }
  return [...items.values()];
}

/** What history names a run's item by: a conversation's first question, else the agent and mode. */
export function titleOfRun(r: HistoryEntry): string {
  if (r.request.thread) {
    const messages = (r.request.body as { messages?: unknown }).messages;
    const last = Array.isArray(messages) ? [...messages].reverse().find((m) => (m as { role?: unknown })?.role === 'USER') : undefined;
    const content = (last as { content?: unknown } | undefined)?.content;
    const text = Array.isArray(content) ? content.map((b) => (typeof (b as { text?: unknown })?.text === 'string' ? (b as { text: string }).text : '')).join('') : '';
    return text.trim().slice(0, 120) || '(no question)';
  }
  return `${r.request.agentName ?? r.request.agentId} (${r.request.mode})`;
}

let shared: ConsoleDb | undefined;

/** The database of this page (one connection per page, as Dexie advises). */
export function consoleDb(): ConsoleDb {
  shared ??= new ConsoleDb();
  return shared;
}
