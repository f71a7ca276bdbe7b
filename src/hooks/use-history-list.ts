/**
 * History's list: its items (a conversation, or a run outside any), each told by its newest run,
 * read live from the items table and those runs only, so a history of 10,000 runs opens, and
 * follows a change, as fast as one of fifty. A search reads every run, as it must.
 */

import { consoleDb, type HistoryItem } from '../db/console-db';
import { entryOf, mayChange, type HistoryEntry } from '../db/history';
import { branchesOf } from '../db/items';
import { FOLLOWED_STATUSES, IN_FLIGHT_STATUSES, type RunStatus } from '../engine/run-machine';
import { branchCount, matches, threadsOf, titleOf } from '../engine/thread';
import { useLive } from './live-query';
import { useRunStore } from './run-store';
import { unreadableOf, useStoreVersion } from './use-history';

/** One line of History: an item (a conversation, or a run outside any) told by its newest run. */
export interface HistoryLine {
  id: string;
  kind: HistoryItem['kind'];
  /** A conversation's first question. */
  title: string;
  /** Its runs (a conversation's turns), and the branches they form. */
  runs: number;
  branches: number;
  pinned: boolean;
  last: HistoryEntry;
}

export interface HistoryList {
  /** Newest first (by their newest run's start). */
  lines: HistoryLine[];
  /** Runs that may still change (Clear history leaves them, with their conversations). */
  goingOn: HistoryEntry[];
  /** Lines whose run could not be read again with this connection, with why. */
  unreadable: Map<string, string>;
  /** How many items history holds, and of them pinned. */
  items: number;
  pinned: number;
  /** What Clear history would take out: items with no run still going on, and how many of them are pinned. */
  clearable: { conversations: number; runs: number; pinned: number };
  isSuccess: boolean;
  isError: boolean;
  error: unknown;
}

const GOING_ON: readonly RunStatus[] = [...IN_FLIGHT_STATUSES, ...FOLLOWED_STATUSES];

/** History as its list shows it; `query` searches every run instead (questions, answers, agents). */
export function useHistoryList(query: string): HistoryList {
  const store = useRunStore();
  useStoreVersion();
  const q = query.trim();
  const live = useLive(async () => {
    const db = consoleDb();
    const items = await db.items.toArray();
    const going = db.runs.where('status').anyOf(GOING_ON as RunStatus[]).toArray();
    const byId = new Map(items.map((i) => [i.id, i]));
    let lines: HistoryLine[];
    if (q) {
      const entries = (await db.runs.toArray()).map(entryOf);
      const line = (id: string, last: HistoryEntry, rest: Omit<HistoryLine, 'id' | 'last' | 'pinned'>): HistoryLine => ({ id, last, pinned: Boolean(byId.get(id)?.pinned), ...rest });
      lines = [
        ...threadsOf(entries)
          .filter((t) => matches(t, q))
          .map((t) => line(t.id, t.turns.at(-1)!, { kind: 'thread', title: titleOf(t), runs: t.turns.length, branches: branchCount(t) })),
        ...entries.filter((e) => !e.request.thread && runMatches(e, q)).map((e) => line(e.id, e, { kind: 'run', title: byId.get(e.id)?.title ?? e.id, runs: 1, branches: 1 })),
      ];
    } else {
      const last = await db.runs.bulkGet(items.map((i) => i.lastRunId ?? ''));
      lines = [];
      for (const [n, item] of items.entries()) {
        // An item of an earlier version names no newest run (until its next write): it is looked up.
        const row = last[n] ?? (await db.runs.where('item').equals(item.id).toArray()).sort((a, b) => a.startedAt - b.startedAt).at(-1);
        if (row) lines.push({ id: item.id, kind: item.kind, title: item.title, runs: item.runs ?? 1, branches: branchesOf(item), pinned: Boolean(item.pinned), last: entryOf(row) });
      }
    }
    lines.sort((a, b) => b.last.startedAt - a.last.startedAt);
    const goingOn = (await going).filter(mayChange).map(entryOf);
    // A run still going on stays with its whole conversation: neither is among what Clear takes out.
    const staying = new Set(goingOn.map((e) => e.request.thread?.id ?? e.id));
    const left = items.filter((i) => !staying.has(i.id));
    const clearable = {
      conversations: left.filter((i) => i.kind === 'thread').length,
      runs: left.filter((i) => i.kind === 'run').length,
      pinned: left.filter((i) => i.pinned).length,
    };
    return { lines, goingOn, items: items.length, pinned: items.filter((i) => i.pinned).length, clearable };
  }, [q]);
  const lines = live.data?.lines ?? [];
  return {
    lines,
    unreadable: unreadableOf(store, lines.map((l) => l.last)),
    goingOn: live.data?.goingOn ?? [],
    items: live.data?.items ?? 0,
    pinned: live.data?.pinned ?? 0,
    clearable: live.data?.clearable ?? { conversations: 0, runs: 0, pinned: 0 },
    isSuccess: live.isSuccess,
    isError: live.isError,
    error: live.error,
  };
}

/** Whether a run outside any conversation has `query` in its agent, body or answer. */
function runMatches(e: HistoryEntry, query: string): boolean {
  const q = query.toLowerCase();
  return [e.request.agentName ?? '', e.request.agentId, JSON.stringify(e.request.body), e.transcript].some((s) => s.toLowerCase().includes(q));
}

/** Every run of a conversation, oldest first (to export it whole). */
export async function conversationEntries(threadId: string): Promise<HistoryEntry[]> {
  return (await consoleDb().runs.where('request.thread.id').equals(threadId).sortBy('startedAt')).map(entryOf);
}

