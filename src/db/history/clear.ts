/**
 * Clear history and its Undo, each one transaction. Clear takes out every run that can no
 * longer change, conversations included, and keeps them aside for Undo until the next Clear
 * that takes anything out, or a day. Runs still going on (`mayChange`) stay, with their
 * conversations: history follows them to their end. Undo puts back what is not there again,
 * with its pins, and retention never lets go of what it just put back.
 */

import type { ConsoleDb } from '../console-db';
import type { StoredRun } from '../tables';
import type { HistoryRepository } from './repository';
import { retainIn } from './retain';
import { deleteDetails, mayChange } from './rows';

/** Clear history's Undo holds for this long at most (and until the next Clear). */
export const UNDO_CLEAR_MS = 24 * 60 * 60_000;

export interface ClearResult {
  /** Undo's handle; undefined when nothing was cleared. */
  id?: string;
  cleared: number;
  /** Runs still going on, which Clear leaves in history. */
  kept: number;
}

/** The details of runs an earlier Clear kept aside, let go for good (but of a run history has again). */
async function purge(db: ConsoleDb, runs: readonly StoredRun[]): Promise<void> {
  if (!runs.length) return;
  const ids = runs.map((r) => r.id);
  const back = new Set((await db.runs.bulkGet(ids)).filter(Boolean).map((r) => r!.id));
  await deleteDetails(
    db,
    ids.filter((id) => !back.has(id)),
  );
}

export async function clearHistory(repo: HistoryRepository, now = repo.now()): Promise<ClearResult> {
  const { db } = repo;
  return db.transaction('rw', [db.runs, db.items, db.cleared, db.details, db.events], async (): Promise<ClearResult> => {
    const all = await db.runs.toArray();
    const goingOn = new Set(all.filter(mayChange).map((r) => r.item));
    const runs = all.filter((r) => !goingOn.has(r.item));
    // A Clear that takes nothing out changes nothing: the last Clear can still be undone.
    if (!runs.length) return { cleared: 0, kept: all.length };
    const items = (await db.items.toArray()).filter((i) => !goingOn.has(i.id));
    const old = await db.cleared.toArray();
    await db.cleared.clear();
    const id = `cleared_${now.toString(36)}`;
    await db.cleared.put({ id, at: now, runs, items });
    await db.runs.bulkDelete(runs.map((r) => r.id));
    // What an earlier Clear kept aside is let go for good now.
    await purge(
      db,
      old.flatMap((c) => c.runs),
    );
    return { id, cleared: runs.length, kept: all.length - runs.length };
  });
}

/** Puts back what Clear `id` took out; answers how many runs came back (0 once Undo is no longer possible). */
export async function undoClear(repo: HistoryRepository, id: string, now = repo.now()): Promise<number> {
  const { db } = repo;
  const shown = await repo.shown();
  return db.transaction('rw', [db.runs, db.items, db.cleared, db.details, db.events, db.meta], async () => {
    const cleared = await db.cleared.get(id);
    if (!cleared) return 0;
    if (now - cleared.at > UNDO_CLEAR_MS) {
      await db.cleared.delete(id);
      await purge(db, cleared.runs);
      return 0;
    }
    // A run written since (the same id) is newer than the copy kept aside.
    const present = new Set((await db.runs.bulkGet(cleared.runs.map((r) => r.id))).filter(Boolean).map((r) => r!.id));
    const back = cleared.runs.filter((r) => !present.has(r.id));
    await db.runs.bulkPut(back);
    const restored = new Set(back.map((r) => r.item));
    for (const item of cleared.items) if (item.pinned && restored.has(item.id)) await db.items.update(item.id, { pinned: true });
    await db.cleared.delete(id);
    await retainIn(db, { limits: repo.limits, protect: new Set([...shown, ...restored]), at: now });
    return back.length;
  });
}

/** The last Clear, while it can be undone. */
export interface LastClear {
  id: string;
  at: number;
  /** What it took out, as history lists it: conversations, and runs outside any. */
  conversations: number;
  runs: number;
}

export async function lastClear(db: ConsoleDb, now = Date.now()): Promise<LastClear | undefined> {
  const c = (await db.cleared.orderBy('at').last()) ?? undefined;
  if (!c || now - c.at > UNDO_CLEAR_MS) return undefined;
  const conversations = new Set(c.runs.map((r) => r.request.thread?.id).filter(Boolean)).size;
  return { id: c.id, at: c.at, conversations, runs: c.runs.filter((r) => !r.request.thread).length };
}

/** Lets go of Clears too old to undo (called when the console starts). */
export async function purgeOldClears(db: ConsoleDb, now = Date.now()): Promise<void> {
  await db.transaction('rw', [db.runs, db.cleared, db.details, db.events], async () => {
    const old = await db.cleared.where('at').below(now - UNDO_CLEAR_MS).toArray();
    if (!old.length) return;
    await db.cleared.bulkDelete(old.map((c) => c.id));
    await purge(
      db,
      old.flatMap((c) => c.runs),
    );
  });
}

/** "2 conversations and 1 run", leaving out what there is none of. */
export function itemsText(conversations: number, runs: number): string {
  const parts = [
    conversations > 0 && `${conversations.toLocaleString()} ${conversations === 1 ? 'conversation' : 'conversations'}`,
    runs > 0 && `${runs.toLocaleString()} ${runs === 1 ? 'run' : 'runs'}`,
  ].filter(Boolean);
  return parts.join(' and ') || 'nothing';
}
