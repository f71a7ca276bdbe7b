/**
 * History as pages read it: live queries of the browser database (dexie-react-hooks), so a run
 * that changes in this tab, another pane or another tab shows everywhere within a frame. The
 * store's records add only what lives in memory while a run is held (its log, a read refused
 * to this connection).
 */

import { useEffect, useSyncExternalStore } from 'react';
import { consoleDb } from '../db/console-db';
import { entryOf, evictionNotice, keepOnScreen, lastClear, type Eviction, type HistoryEntry, type LastClear } from '../db/history';
import { isFollowed, type RunStatus } from '../engine/run-machine';
import { historyEntryOf, metricsOf, type RunRecord } from '../engine/run-record';
import type { RunConnection } from '../engine/run-record';
import { UNREADABLE } from '../engine/session';
import { useLive } from './live-query';
import { useRunStore } from './run-store';

/** A durable run history kept that may still change at the service (an imported one is only a record of it). */
export const goesOn = (e: HistoryEntry) => e.runId !== undefined && isFollowed(e.status as RunStatus) && !e.imported;

export interface HistoryView {
  entries: HistoryEntry[];
  /** Entries whose run could not be read again with this connection, with why. */
  unreadable: Map<string, string>;
  isSuccess: boolean;
  isError: boolean;
  error: unknown;
}

export function unreadableOf(store: ReturnType<typeof useRunStore>, entries: readonly HistoryEntry[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of entries) {
    const refusal = store.forEntry(e.id)?.state.refusal;
    if (refusal && e.runId) out.set(e.id, refusal.message);
  }
  return out;
}

export function useStoreVersion(): void {
  const store = useRunStore();
  useSyncExternalStore(store.subscribe, store.getSnapshot);
}

/** The turns of one conversation, oldest first. */
export function useThreadEntries(threadId: string): HistoryView {
  const store = useRunStore();
  useStoreVersion();
  const live = useLive(async () => {
    const asOf = store.storedRuns;
    return { asOf, entries: (await consoleDb().runs.where('request.thread.id').equals(threadId).sortBy('startedAt')).map(entryOf) };
  }, [threadId, store]);
  const stored = live.data?.entries ?? [];
  const asOf = live.data?.asOf ?? 0;
  // A turn the console holds shows as it is now; one just sent shows before its entry lands (a
  // moment later). Once a read begun after its entry landed has not found it, it was cleared
  // or let go: it is not shown from memory as if history still had it.
  const ids = new Set(stored.map((e) => e.id));
  const gone = (r: RunRecord) => (store.storedAt(r.id) ?? Infinity) <= asOf;
  const sent = store.getSnapshot().runs.filter((r) => r.request.thread?.id === threadId && !ids.has(r.id) && !gone(r));
  const entries = [...stored.map((e) => liveEntry(e, store.forEntry(e.id))!), ...sent.map(historyEntryOf)].sort((a, b) => a.startedAt - b.startedAt);
  return { entries, unreadable: unreadableOf(store, entries), isSuccess: live.isSuccess, isError: live.isError, error: live.error };
}

/** Some entries by id (a comparison's two), in the order asked; undefined where history has none. */
export function useEntries(ids: readonly string[]): { entries: (HistoryEntry | undefined)[]; isSuccess: boolean; isError: boolean; error: unknown } {
  const key = ids.join(' ');
  const live = useLive(async () => (await consoleDb().runs.bulkGet([...ids])).map((r) => (r ? entryOf(r) : undefined)), [key]);
  return { entries: live.data ?? ids.map(() => undefined), isSuccess: live.isSuccess, isError: live.isError, error: live.error };
}

/** What history kept of the durable run `runId` of `agentId` on this profile (never an imported record of it). */
export function useEntryOfRun(agentId: string, runId: string, profileId: string): { entry?: HistoryEntry; isPending: boolean } {
  const live = useLive(async () => {
    const rows = await consoleDb().runs.where('runId').equals(runId).toArray();
    const row = rows.filter((e) => e.request.agentId === agentId && !e.imported && (e.target.profileId ?? profileId) === profileId).sort((a, b) => b.startedAt - a.startedAt)[0];
    return { entry: row && entryOf(row) };
  }, [agentId, runId, profileId]);
  return { entry: live.data?.entry, isPending: !live.isSuccess && !live.isError };
}

/** Past this many runs of one agent, its last run is looked for from the newest run back rather than by reading them all. */
const AGENT_RUNS_READ = 200;

/** The newest run of an agent history has that was sent with this profile (an entry older than profiles counts as any's). */
export function useLastRunOf(agentId: string, profileId: string): HistoryEntry | undefined {
  const live = useLive(async () => {
    const runs = consoleDb().runs;
    const mine = (e: HistoryEntry) => e.request.agentId === agentId && (e.target.profileId ?? profileId) === profileId;
    // Counted by the index alone; 10,000 runs of one agent are not read to find its newest.
    const count = agentId ? await runs.where('request.agentId').equals(agentId).count() : 0;
    if (count === 0) return { entry: undefined };
    const newest =
      count <= AGENT_RUNS_READ
        ? (await runs.where('request.agentId').equals(agentId).toArray()).filter(mine).sort((a, b) => b.startedAt - a.startedAt)[0]
        : await runs.orderBy('startedAt').reverse().filter(mine).first();
    return { entry: newest && entryOf(newest) };
  }, [agentId, profileId]);
  return live.data?.entry;
}

/** What retention let go last, until dismissed. */
export function useEviction(): Eviction | undefined {
  return useLive(() => evictionNotice(), []).data;
}

/** The last Clear history, while it can be undone. */
export function useLastClear(): LastClear | undefined {
  return useLive(async () => (await lastClear()) ?? null, []).data ?? undefined;
}

/** Marks an item (a conversation) as on screen while the component is: retention never lets it go. */
export function useKeepOnScreen(itemId: string | undefined): void {
  useEffect(() => (itemId ? keepOnScreen(itemId) : undefined), [itemId]);
}

/** How soon a run history follows is opened again after its first read failed for a reason that may pass. */
export const FOLLOW_RETRY_MS = 5_000;

/** A first read that failed for a reason that may pass (the network, a busy or restarting service), unlike 401, 403 or 404. */
function mayReadLater(record: RunRecord): boolean {
  return record.origin === 'opened' && record.state.status === 'refused' && !UNREADABLE.includes(record.state.refusal?.status ?? 0);
}

/**
 * Durable runs still going on, as history last saw them, are read again and followed to their
 * end, with the profile they ran on (only the current one's token is at hand: the others say so).
 * A run whose first read failed for a reason that may pass is opened again until it can be read.
 */
export function useFollowActive(connection: RunConnection): void {
  const store = useRunStore();
  const live = useLive(async () => (await consoleDb().runs.where('status').anyOf(['QUEUED', 'RUNNING', 'REQUIRES_INPUT', 'CANCELLING']).toArray()).map(entryOf), []);
  const active = (live.data ?? []).filter((e) => goesOn(e) && e.target.profileId === connection.profileId);
  const ids = active.map((e) => e.id).join(' ');
  useEffect(() => {
    const follow = (e: HistoryEntry, again = false) => {
      const held = store.forEntry(e.id);
      return store.watch((held && !again ? held : store.open(connection, e.request.agentId, e.runId!, e)).id);
    };
    const unwatch = new Map(active.map((e) => [e.id, follow(e)]));
    const retry = setInterval(() => {
      for (const e of active) {
        const held = store.forEntry(e.id);
        if (!held || !mayReadLater(held)) continue;
        unwatch.get(e.id)?.();
        unwatch.set(e.id, follow(e, true));
      }
    }, FOLLOW_RETRY_MS);
    return () => {
      clearInterval(retry);
      unwatch.forEach((u) => u());
    };
    // Once per set of active runs, with the connection of the moment.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ids, store, connection.profileId, connection.fingerprint]);
}

/**
 * History's entry, or, while the console holds the run's live state (its log, its answer, its
 * last read), the run as it is now: the entry lands in the database a moment after each change.
 */
export function liveEntry(entry: HistoryEntry | undefined, held: RunRecord | undefined): HistoryEntry | undefined {
  if (!held || held.state.status === 'idle' || (held.state.status === 'refused' && held.origin === 'opened')) return entry;
  if (held.log || held.answer || held.state.durable || !entry) return historyEntryOf(held);
  return entry;
}

export interface Figures {
  durationMs?: number;
  eventCount: number;
  bytes: number;
  firstEventMs?: number;
  lastReadAt?: number;
}

/**
 * One set of figures per run, the same everywhere: while the console holds the run, they are
 * its record's, live (a stream's counters as events arrive); otherwise history's.
 */
export function useFigures(entry: HistoryEntry): Figures {
  const store = useRunStore();
  useStoreVersion();
  const held = store.forEntry(entry.id);
  const log = held?.log;
  useSyncExternalStore(log?.subscribe ?? noSubscribe, log?.getVersion ?? zero);
  if (!held || held.state.status === 'idle' || held.state.status === 'refused') return { ...figuresOfEntry(entry) };
  const m = metricsOf(held);
  return { ...m, ...(held.state.durable && { lastReadAt: held.state.durable.readAt }) };
}

const noSubscribe = () => () => undefined;
const zero = () => 0;

export function figuresOfEntry(e: HistoryEntry): Figures {
  return {
    ...(!goesOn(e) && { durationMs: e.durationMs }),
    eventCount: e.eventCount,
    bytes: e.bytes,
    ...(e.firstEventMs !== undefined && { firstEventMs: e.firstEventMs }),
    ...(e.lastReadAt !== undefined && { lastReadAt: e.lastReadAt }),
  };
}

/** Live figures of a record (a stream's as its events arrive). */
export function useRecordFigures(record: RunRecord): Figures {
  const log = record.log;
  useSyncExternalStore(log?.subscribe ?? noSubscribe, log?.getVersion ?? zero);
  return metricsOf(record);
}
