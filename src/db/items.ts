/**
 * History's items (a conversation, or a run outside any), derived from the runs in one place:
 * a DBCore middleware on the `runs` table. Every write of a run, whoever makes it (a run's
 * write, an import, Undo, the migration, retention, Clear), updates its item in the same
 * transaction, so an item never disagrees with its runs; only `pinned` is the user's.
 *
 * A middleware rather than Dexie's creating/updating/deleting hooks: it sees a bulk write as
 * one request (1,000 imported turns of one conversation are one update of its item, not 1,000
 * read-modify-writes racing in one transaction), it may await reads of the rows a write
 * replaces, and it widens every read-write transaction on `runs` to `items`, so no writer has
 * to remember to name that table. It sits above Dexie's observability layer, so live queries
 * of `items` see what it writes.
 */

import type { DBCore, DBCoreKeyRange, DBCoreMutateRequest, DBCoreMutateResponse, DBCoreTable, DBCoreTransaction, Middleware } from 'dexie';
import type { HistoryEntry } from '../engine/history-entry';
import type { HistoryItem, StoredRun } from './tables';

/** When a run makes its item new: its start, or when it was imported. */
export const recencyOf = (r: Pick<HistoryEntry, 'startedAt' | 'imported'>) => Math.max(r.startedAt, r.imported?.at ?? 0);

/** The item a run belongs to: its conversation's id, or its own. */
export const itemIdOf = (e: Pick<HistoryEntry, 'id' | 'request'>) => e.request.thread?.id ?? e.id;

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

/** A sorted list with `id` in it. */
function withParent(parents: readonly string[], id: string | undefined): string[] {
  if (id === undefined || parents.includes(id)) return [...parents];
  return [...parents, id].sort();
}

/** Adds a run to an item (a new one when `item` is undefined). */
function withRun(item: HistoryItem | undefined, r: StoredRun): HistoryItem {
  const parent = r.request.thread?.parentId;
  if (!item) {
    return { id: r.item, kind: r.request.thread ? 'thread' : 'run', title: titleOfRun(r), firstAt: r.startedAt, lastAt: recencyOf(r), bytes: r.size, runs: 1, lastRunId: r.id, lastRunAt: r.startedAt, parents: withParent([], parent) };
  }
  const first = item.firstAt === undefined || r.startedAt < item.firstAt;
  const last = item.lastRunAt === undefined || item.lastRunId === undefined || r.startedAt > item.lastRunAt || (r.startedAt === item.lastRunAt && r.id >= item.lastRunId);
  return {
    ...item,
    ...(first && { title: titleOfRun(r), firstAt: r.startedAt }),
    ...(last && { lastRunId: r.id, lastRunAt: r.startedAt }),
    lastAt: Math.max(item.lastAt, recencyOf(r)),
    bytes: item.bytes + r.size,
    runs: (item.runs ?? 0) + 1,
    parents: withParent(item.parents ?? [], parent),
  };
}

/** How many branches an item's runs form: runs no other of its runs follows. */
export const branchesOf = (item: Pick<HistoryItem, 'runs' | 'parents'>) => Math.max(1, (item.runs ?? 1) - (item.parents?.length ?? 0));

/** The items of some runs, as the middleware keeps them (tests and retention's look ahead use it too). */
export function itemsOf(runs: readonly StoredRun[]): HistoryItem[] {
  const items = new Map<string, HistoryItem>();
  for (const r of runs) items.set(r.item, withRun(items.get(r.item), r));
  return [...items.values()];
}

/** An item rebuilt from all its runs, keeping what is the user's (the pin). */
function rebuilt(runs: readonly StoredRun[], before: HistoryItem | undefined): HistoryItem | undefined {
  const [item] = itemsOf(runs);
  return item && (before?.pinned ? { ...item, pinned: true } : item);
}

/** DBCoreRangeType.Any (a const enum Dexie's types declare, which isolated modules cannot read). */
const ANY_RANGE = 3;
const EQUAL_RANGE = 1;
const only = (key: string): DBCoreKeyRange => ({ type: EQUAL_RANGE, lower: key, upper: key });

async function rowsReplaced(runs: DBCoreTable, req: DBCoreMutateRequest): Promise<(StoredRun | undefined)[] | 'all'> {
  if (req.type === 'deleteRange') {
    if ((req.range.type as number) === ANY_RANGE) return 'all';
    return (await runs.query({ trans: req.trans, values: true, query: { index: runs.schema.primaryKey, range: req.range } })).result as StoredRun[];
  }
  const keys = req.type === 'delete' ? req.keys : (req.keys ?? req.values.map((v: StoredRun) => v.id));
  return (await runs.getMany({ trans: req.trans, keys })) as (StoredRun | undefined)[];
}

/** The changes of one request to the items it touches: runs added (by item), items to rebuild from their runs. */
function changesOf(req: DBCoreMutateRequest, before: (StoredRun | undefined)[], res: DBCoreMutateResponse) {
  const added = new Map<string, StoredRun[]>();
  const removed = new Map<string, StoredRun[]>();
  const rebuild = new Set<string>();
  const values = req.type === 'add' || req.type === 'put' ? (req.values as StoredRun[]) : undefined;
  before.forEach((old, i) => {
    if (res.failures[i]) return;
    const next = values?.[i];
    if (old && (!next || next.item !== old.item)) rebuild.add(old.item);
    else if (old) removed.set(old.item, [...(removed.get(old.item) ?? []), old]);
    if (next) added.set(next.item, [...(added.get(next.item) ?? []), next]);
  });
  return { added, removed, rebuild };
}

async function updateItems(runs: DBCoreTable, items: DBCoreTable, trans: DBCoreTransaction, changes: ReturnType<typeof changesOf>): Promise<void> {
  const ids = [...new Set([...changes.added.keys(), ...changes.removed.keys(), ...changes.rebuild])];
  if (!ids.length) return;
  const current = (await items.getMany({ trans, keys: ids })) as (HistoryItem | undefined)[];
  const put: HistoryItem[] = [];
  const gone: string[] = [];
  for (const [i, id] of ids.entries()) {
    const before = current[i];
    // An item of an earlier version has no count of its runs: it is rebuilt once, then kept up.
    const whole = changes.rebuild.has(id) || (before === undefined ? changes.removed.has(id) : before.runs === undefined || before.firstAt === undefined || before.lastRunId === undefined || before.parents === undefined);
    let item: HistoryItem | undefined;
    if (whole) {
      const rows = (await runs.query({ trans, values: true, query: { index: runs.schema.getIndexByKeyPath('item')!, range: only(id) } })).result as StoredRun[];
      item = rebuilt(rows, before);
    } else {
      item = before;
      // A run rewritten in place is taken out (its old size) and put back (its new one); its start never changes.
      for (const old of changes.removed.get(id) ?? []) item = item && { ...item, bytes: item.bytes - old.size, runs: (item.runs ?? 1) - 1 };
      for (const r of changes.added.get(id) ?? []) item = withRun(item, r);
    }
    if (item) put.push(item);
    else if (before) gone.push(id);
  }
  if (put.length) await items.mutate({ type: 'put', trans, values: put });
  if (gone.length) await items.mutate({ type: 'delete', trans, keys: gone });
}

export const itemsMiddleware: Middleware<DBCore> = {
  stack: 'dbcore',
  name: 'HistoryItems',
  create: (down) => ({
    ...down,
    transaction: (stores, mode, options) => down.transaction(mode === 'readwrite' && stores.includes('runs') && !stores.includes('items') ? [...stores, 'items'] : stores, mode, options),
    table: (name) => {
      const table = down.table(name);
      if (name !== 'runs') return table;
      const items = down.table('items');
      return {
        ...table,
        mutate: async (req) => {
          const before = await rowsReplaced(table, req);
          const res = await table.mutate(req);
          if (before === 'all' && req.type === 'deleteRange') await items.mutate({ type: 'deleteRange', trans: req.trans, range: req.range });
          else if (before !== 'all') await updateItems(table, items, req.trans, changesOf(req, before, res));
          return res;
        },
      };
    },
  }),
};
