/**
 * History: what the console keeps of its runs, in the browser database (console-db). Every
 * change of a run is written through here; pages read it back with live queries
 * (use-history), so every tab and pane shows the same.
 *
 * - A run's entry is written first when it starts (so the address it moves to works at once),
 *   then at each change of state; once its state is terminal it is final, never rewritten.
 * - Retention keeps the newest HISTORY_LIMIT items (a conversation is one item, its turns stay
 *   or go together) within HISTORY_BYTES_LIMIT. It never lets go of a pinned item, an item on
 *   screen in this tab (or in any other: a tab notes what it shows again and again, well within
 *   VIEWED_GRACE_MS), or a run still going on; what it lets go of is said (`evictionNotice`).
 * - Clear history keeps runs still going on and can be undone until the next Clear.
 */

import { queryOptions } from '@tanstack/react-query';
import { Dexie } from 'dexie';
import { consoleDb, itemsOf, titleOfRun, type HistoryItem, type StoredRun } from './console-db';
import type { HistoryDetails, HistoryEntry } from '../engine/history-entry';
import { FOLLOWED_STATUSES, IN_FLIGHT_STATUSES, isFollowed, isInFlight, isTerminal, type RunStatus, type Transition } from '../engine/run-machine';
import type { TimelineEntry } from '../engine/stream-event';
import { RUN_LOCK_PREFIX } from '../engine/run-writes';

export type { HistoryDetails, HistoryEntry, HistoryTarget } from '../engine/history-entry';

export const HISTORY_LIMIT = 50;
export const HISTORY_BYTES_LIMIT = 100 * 1024 * 1024;
/** A conversation shown within this long counts as on screen in some tab. */
export const VIEWED_GRACE_MS = 10 * 60_000;
/** Events are stored in slices: one structured clone of 50,000 events would block the page. */
const EVENTS_PER_RECORD = 2_000;
/** Clear history's Undo holds for this long at most (and until the next Clear). */
export const UNDO_CLEAR_MS = 24 * 60 * 60_000;

export interface RetentionLimits {
  items: number;
  bytes: number;
}

const DEFAULT_LIMITS: RetentionLimits = { items: HISTORY_LIMIT, bytes: HISTORY_BYTES_LIMIT };
let limits = DEFAULT_LIMITS;

/** Sets retention's limits (a test's smaller ones); undefined restores the defaults. */
export function setRetentionLimits(next?: Partial<RetentionLimits>): void {
  limits = { ...DEFAULT_LIMITS, ...next };
}

/** Items this tab shows: retention never lets them go. */
const onScreen = new Map<string, number>();
/** Items this tab shows are noted as shown again well within VIEWED_GRACE_MS, so other tabs' retention keeps them too. */
const stillShown = new Map<string, ReturnType<typeof setInterval>>();

/** Marks an item (a conversation, a run) as on screen until the returned function is called. */
export function keepOnScreen(itemId: string): () => void {
  onScreen.set(itemId, (onScreen.get(itemId) ?? 0) + 1);
  void touchItem(itemId);
  if (!stillShown.has(itemId)) stillShown.set(itemId, setInterval(() => void touchItem(itemId), VIEWED_GRACE_MS / 4));
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const n = (onScreen.get(itemId) ?? 1) - 1;
    if (n > 0) return void onScreen.set(itemId, n);
    onScreen.delete(itemId);
    clearInterval(stillShown.get(itemId));
    stillShown.delete(itemId);
  };
}

const itemOf = (e: HistoryEntry) => e.request.thread?.id ?? e.id;

/**
 * Whether a run's entry may still change: a tab has its request open, or it is a durable run
 * the service holds, which history follows to its end. Nothing else ever changes here: an
 * imported record (never read from here), nor an entry of an older version whose status this
 * version does not know ("success"). Clear history and retention keep only what may change.
 */
export function mayChange(e: Pick<HistoryEntry, 'status' | 'runId' | 'imported'>): boolean {
  const s = e.status as RunStatus;
  return isInFlight(s) || (isFollowed(s) && e.runId !== undefined && !e.imported);
}

function eventsSize(events: readonly TimelineEntry[]): number {
  let n = 0;
  for (const e of events) n += 80 + e.data.length;
  return n;
}

function detailsSize(details: HistoryDetails): number {
  let n = 0;
  if (details.events) n += eventsSize(details.events);
  if (details.resultText !== undefined) n += details.resultText.length;
  else if (details.result !== undefined) n += JSON.stringify(details.result)?.length ?? 0;
  return n;
}

/** 'moved-on': the entry changed since it was read, and the change asked for no longer applies. */
export type WriteResult = 'written' | 'final' | 'gone' | 'moved-on';

/**
 * Writes a run's entry (and its details, when given) through to the database. `create` says
 * the run is new here; otherwise an entry no longer there (cleared, let go) is not brought back.
 * An entry already terminal is final: nothing rewrites it.
 */
export function writeRun(entry: HistoryEntry, details?: HistoryDetails, options: { create?: boolean } = {}): Promise<WriteResult> {
  return putRun(entry.id, () => entry, details, options);
}

/**
 * Writes the entry `make` works out from the one stored now, in the same transaction (so from
 * what is there, not from what was read before); `make` answering undefined writes nothing.
 */
async function putRun(
  id: string,
  make: (existing: StoredRun | undefined) => HistoryEntry | undefined,
  details?: HistoryDetails,
  options: { create?: boolean } = {},
): Promise<WriteResult> {
  const db = consoleDb();
  const events = details?.events;
  let terminal = false;
  const result = await db.transaction('rw', [db.runs, db.items, db.details, db.events], async (): Promise<WriteResult> => {
    const existing = await db.runs.get(id);
    if (!existing && !options.create) return 'gone';
    if (existing && isTerminal(existing.status as RunStatus)) return 'final';
    const made = make(existing);
    if (!made) return 'moved-on';
    const entry = existing ? withNotesKept(existing, made) : made;
    terminal = isTerminal(entry.status as RunStatus);
    const item = itemOf(entry);
    // Details are written once; a later write of the entry alone keeps their size.
    const detailsBytes = details ? detailsSize(details) : (existing?.detailsBytes ?? 0);
    const size = JSON.stringify(entry).length + detailsBytes;
    const row: StoredRun = { ...entry, item, size, detailsBytes };
    if (details) {
      const eventRecords = events ? Math.ceil(events.length / EVENTS_PER_RECORD) : 0;
      // Each awaited write is its own task, so each clone is a short one.
      for (let i = 0; i < eventRecords; i++) await db.events.put({ id: entry.id, slice: i, events: events!.slice(i * EVENTS_PER_RECORD, (i + 1) * EVENTS_PER_RECORD) });
      await db.details.put({
        id: entry.id,
        ...(details.resultText !== undefined ? { resultText: details.resultText } : details.result !== undefined && { result: details.result }),
        eventRecords,
      });
    }
    await db.runs.put(row);
    const current = await db.items.get(item);
    const at = Math.max(entry.startedAt, entry.imported?.at ?? 0);
    await db.items.put(
      current
        ? { ...current, lastAt: Math.max(current.lastAt, at), bytes: Math.max(0, current.bytes - (existing?.size ?? 0) + size) }
        : { id: item, kind: entry.request.thread ? 'thread' : 'run', title: titleOfRun(entry), lastAt: at, bytes: size },
    );
    return 'written';
  });
  if (result === 'written' && (options.create || terminal)) await retain();
  return result;
}

/**
 * A durable run followed in two tabs is written by both, each from what it has seen. What the
 * user did in one (a decision, a cancellation asked for: the notes among its states) stays in
 * history when the other, which never saw it, writes next.
 */
function withNotesKept(existing: StoredRun, entry: HistoryEntry): HistoryEntry {
  const key = (t: Transition) => `${t.at} ${t.status} ${t.note ?? ''}`;
  const has = new Set((entry.transitions ?? []).map(key));
  const missing = (existing.transitions ?? []).filter((t) => t.note !== undefined && !has.has(key(t)));
  if (!missing.length) return entry;
  return { ...entry, transitions: [...(entry.transitions ?? []), ...missing].sort((a, b) => a.at - b.at) };
}

/** A run new to history with what it has (tests, and every run the store starts). */
export function saveRun(entry: HistoryEntry, details: HistoryDetails = {}): Promise<WriteResult> {
  return writeRun(entry, details, { create: true });
}

export interface Eviction {
  at: number;
  /** The limits it kept to. */
  limits: RetentionLimits;
  /** What was let go since the notice was last dismissed (the latest eviction's first), and why. */
  items: { id: string; kind: HistoryItem['kind']; title: string; reason: 'count' | 'size' }[];
}

const EVICTION_KEY = 'last-eviction';

/**
 * The items retention lets go: the oldest first, past `limits.items` items or `limits.bytes`
 * bytes, never one in `keep` or pinned. Recency is an item's newest run, import or showing.
 */
export function evictable(items: readonly HistoryItem[], keep: ReadonlySet<string>, max: RetentionLimits = limits, now = Date.now()): Eviction['items'] {
  const recency = (i: HistoryItem) => Math.max(i.lastAt, i.viewedAt !== undefined && now - i.viewedAt < VIEWED_GRACE_MS ? i.viewedAt : 0);
  const sorted = [...items].sort((a, b) => recency(b) - recency(a));
  const out: Eviction['items'] = [];
  let count = sorted.length;
  let bytes = sorted.reduce((n, i) => n + i.bytes, 0);
  for (let i = sorted.length - 1; i >= 0; i--) {
    const item = sorted[i]!;
    if (item.pinned || keep.has(item.id)) continue;
    const reason = count > max.items ? 'count' : bytes > max.bytes ? 'size' : undefined;
    if (!reason) break;
    out.push({ id: item.id, kind: item.kind, title: item.title, reason });
    count--;
    bytes -= item.bytes;
  }
  return out;
}

async function deleteRuns(ids: readonly string[]): Promise<void> {
  const db = consoleDb();
  for (const id of ids) await db.events.where('[id+slice]').between([id, Dexie.minKey], [id, Dexie.maxKey]).delete();
  await db.details.bulkDelete(ids as string[]);
  await db.runs.bulkDelete(ids as string[]);
}

/** Lets go of what is past the limits, and says so (`evictionNotice`, which adds to what it said until dismissed). */
export async function retain(): Promise<Eviction | undefined> {
  const db = consoleDb();
  return db.transaction('rw', [db.runs, db.items, db.details, db.events, db.meta], async () => {
    const items = await db.items.toArray();
    if (items.length <= limits.items && items.reduce((n, i) => n + i.bytes, 0) <= limits.bytes) return undefined;
    const keep = new Set(onScreen.keys());
    // A run still going on is never let go: it would come back as a stranger at its next change.
    for (const r of await db.runs.where('status').anyOf([...IN_FLIGHT_STATUSES, ...FOLLOWED_STATUSES] as RunStatus[]).toArray()) if (mayChange(r)) keep.add(r.item);
    const evicted = evictable(items, keep);
    if (!evicted.length) return undefined;
    const ids = (await db.runs.where('item').anyOf(evicted.map((i) => i.id)).primaryKeys()) as string[];
    await deleteRuns(ids);
    await db.items.bulkDelete(evicted.map((i) => i.id));
    // What an earlier eviction let go is said until the notice is dismissed, with what goes now.
    const earlier = ((await db.meta.get(EVICTION_KEY))?.value as Eviction | undefined)?.items ?? [];
    const gone = new Set(evicted.map((i) => i.id));
    const notice: Eviction = { at: Date.now(), limits, items: [...evicted, ...earlier.filter((i) => !gone.has(i.id))] };
    await db.meta.put({ key: EVICTION_KEY, value: notice });
    return notice;
  });
}

export async function evictionNotice(): Promise<Eviction | undefined> {
  return (await consoleDb().meta.get(EVICTION_KEY))?.value as Eviction | undefined;
}

export async function dismissEviction(): Promise<void> {
  await consoleDb().meta.delete(EVICTION_KEY);
}

/** Every entry, newest first. */
export async function listRuns(): Promise<HistoryEntry[]> {
  return (await consoleDb().runs.orderBy('startedAt').reverse().toArray()).map(entryOf);
}

/** The entry without the database's own fields. */
export function entryOf(row: StoredRun): HistoryEntry {
  const { item: _item, size: _size, detailsBytes: _details, ...entry } = row;
  return entry;
}

export async function runDetails(id: string): Promise<HistoryDetails | undefined> {
  const db = consoleDb();
  const stored = await db.details.get(id);
  if (!stored) return undefined;
  const events: TimelineEntry[] = [];
  const slices = await db.events.where('[id+slice]').between([id, Dexie.minKey], [id, Dexie.maxKey]).toArray();
  for (const s of slices) for (const e of s.events) events.push(e);
  const result = stored.resultText !== undefined ? parsedOrText(stored.resultText) : stored.result;
  return { ...(result !== undefined && { result }), ...(stored.eventRecords > 0 && { events }) };
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A kept run's events and answer: they never change once written, so they are read once (once there). */
export const runDetailsQueryOptions = (id: string) =>
  queryOptions({
    queryKey: ['run-details', id] as const,
    queryFn: async (): Promise<HistoryDetails> => (await runDetails(id)) ?? {},
    // Read before the run's write landed, nothing is kept as the answer: it is read again next time.
    staleTime: (q) => (q.state.data?.events !== undefined || q.state.data?.result !== undefined ? Infinity : 0),
  });

export interface ClearResult {
  /** Undo's handle; undefined when nothing was cleared. */
  id?: string;
  cleared: number;
  /** Runs still going on, which Clear leaves in history. */
  kept: number;
}

/**
 * Takes every run out of history that can no longer change, conversations included, keeping
 * them aside for Undo (until the next Clear, or a day). Runs still going on (`mayChange`) stay,
 * with their conversations: history follows them to their end.
 */
export async function clearHistory(now = Date.now()): Promise<ClearResult> {
  const db = consoleDb();
  const old = await db.cleared.toArray();
  const result = await db.transaction('rw', [db.runs, db.items, db.cleared], async (): Promise<ClearResult> => {
    const all = await db.runs.toArray();
    const goingOn = new Set(all.filter(mayChange).map((r) => r.item));
    const runs = all.filter((r) => !goingOn.has(r.item));
    const items = (await db.items.toArray()).filter((i) => !goingOn.has(i.id));
    await db.cleared.clear();
    if (!runs.length) return { cleared: 0, kept: all.length };
    const id = `cleared_${now.toString(36)}`;
    await db.cleared.put({ id, at: now, runs, items });
    await db.runs.bulkDelete(runs.map((r) => r.id));
    await db.items.bulkDelete(items.map((i) => i.id));
    return { id, cleared: runs.length, kept: all.length - runs.length };
  });
  // What an earlier Clear kept aside is let go for good now.
  await purge(old.flatMap((c) => c.runs.map((r) => r.id)));
  return result;
}

/** Runs' details no entry refers to any more. */
async function purge(ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  const db = consoleDb();
  await db.transaction('rw', [db.runs, db.details, db.events], async () => {
    const back = new Set((await db.runs.bulkGet(ids as string[])).filter(Boolean).map((r) => r!.id));
    const gone = ids.filter((id) => !back.has(id));
    for (const id of gone) await db.events.where('[id+slice]').between([id, Dexie.minKey], [id, Dexie.maxKey]).delete();
    await db.details.bulkDelete(gone as string[]);
  });
}

/** Puts back what Clear `id` took out; answers how many runs came back (0 once Undo is no longer possible). */
export async function undoClear(id: string): Promise<number> {
  const db = consoleDb();
  const n = await db.transaction('rw', [db.runs, db.items, db.cleared], async () => {
    const cleared = await db.cleared.get(id);
    if (!cleared) return 0;
    // A run written since (the same id) is newer than the copy kept aside.
    const present = new Set((await db.runs.bulkGet(cleared.runs.map((r) => r.id))).filter(Boolean).map((r) => r!.id));
    const back = cleared.runs.filter((r) => !present.has(r.id));
    await db.runs.bulkPut(back);
    for (const item of itemsOf(back)) {
      const current = await db.items.get(item.id);
      const kept = cleared.items.find((i) => i.id === item.id);
      await db.items.put(current ? { ...current, lastAt: Math.max(current.lastAt, item.lastAt), bytes: current.bytes + item.bytes } : { ...item, ...(kept?.pinned && { pinned: true }) });
    }
    await db.cleared.delete(id);
    return back.length;
  });
  await retain();
  return n;
}

/** The last Clear, while it can be undone. */
export interface LastClear {
  id: string;
  at: number;
  /** What it took out, as history lists it: conversations, and runs outside any. */
  conversations: number;
  runs: number;
}

export async function lastClear(now = Date.now()): Promise<LastClear | undefined> {
  const c = (await consoleDb().cleared.orderBy('at').last()) ?? undefined;
  if (!c || now - c.at > UNDO_CLEAR_MS) return undefined;
  const conversations = new Set(c.runs.map((r) => r.request.thread?.id).filter(Boolean)).size;
  return { id: c.id, at: c.at, conversations, runs: c.runs.filter((r) => !r.request.thread).length };
}

/** "2 conversations and 1 run", leaving out what there is none of. */
export function itemsText(conversations: number, runs: number): string {
  const parts = [
    conversations > 0 && `${conversations.toLocaleString()} ${conversations === 1 ? 'conversation' : 'conversations'}`,
    runs > 0 && `${runs.toLocaleString()} ${runs === 1 ? 'run' : 'runs'}`,
  ].filter(Boolean);
  return parts.join(' and ') || 'nothing';
}

/** Lets go of Clears too old to undo (called when the console starts). */
export async function purgeOldClears(now = Date.now()): Promise<void> {
  const db = consoleDb();
  const old = await db.cleared.where('at').below(now - UNDO_CLEAR_MS).toArray();
  if (!old.length) return;
  await db.cleared.bulkDelete(old.map((c) => c.id));
  await purge(old.flatMap((c) => c.runs.map((r) => r.id)));
}

/**
 * Adds a conversation read from a file, in one transaction: its item is as new as the import
 * (an older conversation is never let go by its own import), and retention runs once.
 */
export async function importRuns(entries: readonly HistoryEntry[], importedAt = Date.now()): Promise<void> {
  const db = consoleDb();
  const rows: StoredRun[] = entries.map((e) => ({ ...e, item: itemOf(e), size: JSON.stringify(e).length, detailsBytes: 0 }));
  const protect = new Set(rows.map((r) => r.item));
  for (const id of protect) onScreen.set(id, (onScreen.get(id) ?? 0) + 1);
  try {
    await db.transaction('rw', [db.runs, db.items], async () => {
      await db.runs.bulkPut(rows);
      await db.items.bulkPut(itemsOf(rows).map((i) => ({ ...i, lastAt: Math.max(i.lastAt, importedAt), viewedAt: importedAt })));
    });
    await retain();
  } finally {
    for (const id of protect) {
      const n = (onScreen.get(id) ?? 1) - 1;
      if (n > 0) onScreen.set(id, n);
      else onScreen.delete(id);
    }
  }
}

/** Notes that a tab shows the item now. */
export async function touchItem(itemId: string, now = Date.now()): Promise<void> {
  await consoleDb()
    .items.update(itemId, { viewedAt: now })
    .catch(() => undefined);
}

export async function setPinned(itemId: string, pinned: boolean): Promise<void> {
  await consoleDb().items.update(itemId, { pinned });
}

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


export const CUT_OFF_NOTE = 'This browser’s side of the run ended when its page was closed or reloaded; the run was not sent again.';

/**
 * Runs history holds as in flight that no tab holds any more (their page was closed or
 * reloaded mid-request) are told as interrupted, once, rather than in flight for ever.
 * Answers how many.
 */
export async function sweepCutOff(at = Date.now()): Promise<number> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (!locks) return 0;
  // Rows first, then locks: a run started in between is not in these rows. A run whose request
  // ended in between (its lock let go after its last write) is no longer in flight when its row
  // is read again, in the write's own transaction: it is left as it is, ended or going on at the service.
  const rows = await consoleDb().runs.where('status').anyOf(IN_FLIGHT_STATUSES as RunStatus[]).toArray();
  if (!rows.length) return 0;
  const held = new Set(((await locks.query()).held ?? []).map((l) => l.name));
  let n = 0;
  for (const row of rows) {
    if (held.has(`${RUN_LOCK_PREFIX}${row.id}`)) continue;
    const cut = (now: StoredRun | undefined) => (now && isInFlight(now.status as RunStatus) ? cutOff(entryOf(now), at) : undefined);
    if ((await putRun(row.id, cut)) === 'written') n++;
  }
  return n;
}

/** A run in flight whose page was closed or reloaded, told as interrupted at `at`. */
function cutOff(entry: HistoryEntry, at: number): HistoryEntry {
  const note = entry.request.mode === 'durable' ? `${CUT_OFF_NOTE} The service may have started it; its id never arrived.` : CUT_OFF_NOTE;
  const last = entry.transitions?.at(-1)?.at ?? entry.startedAt;
  return {
    ...entry,
    status: 'interrupted',
    transitions: [...(entry.transitions ?? []), { status: 'interrupted', at, note }],
    durationMs: Math.max(0, last - entry.startedAt),
    note,
    problem: entry.problem ?? note,
  };
}
