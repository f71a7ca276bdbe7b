import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import type { ConnectionIdentity } from '../lib/connection';
import type { HistoryEntry } from '../engine/history-entry';
import { RunStore, type RunConnection, type RunRecord, type RunStoreOptions, type RunStoreSnapshot, type WriteRun } from '../engine/run-store';
import { nextFrame } from '../lib/next-frame';
import { pageVisibility, webLocks } from '../lib/web-locks';

const RunStoreContext = createContext<RunStore | null>(null);

/** History's writer, loaded with the history module (and its database) on first use, not with the app. */
const writeToHistory: WriteRun = async (entry, details, options) => (await import('../db/history')).writeRun(entry, details, options);

/** Where the page has no Web Locks, a run's request is held by this tab's row in the database (history's presence). */
const holdInHistory = async (name: string) => (await import('../db/history')).holdRun(name);

/** The page's run store: runs written through to history, held by Web Locks (else a row per tab), read while the tab is shown, rendered at animation frames. */
export function consoleRunStore(options: RunStoreOptions = {}): RunStore {
  return new RunStore({ save: writeToHistory, visibility: pageVisibility, schedule: nextFrame, lock: webLocks ?? holdInHistory, ...options });
}

/**
 * Holds the console's runs for as long as the app lives, above the routes, so a page can come
 * and go while its run goes on. Tests may pass their own store.
 */
export function RunStoreProvider({ children, store }: { children: ReactNode; store?: RunStore }) {
  const [own] = useState(() => store ?? consoleRunStore());
  return <RunStoreContext.Provider value={own}>{children}</RunStoreContext.Provider>;
}

export function useRunStore(): RunStore {
  const store = useContext(RunStoreContext);
  if (!store) throw new Error('useRunStore must be used inside RunStoreProvider.');
  return store;
}

/** The runs, re-rendering when one starts or changes status (not on every streamed event). */
export function useRuns(): RunStoreSnapshot {
  const store = useRunStore();
  return useSyncExternalStore(store.subscribe, store.getSnapshot);
}

/** The run in flight, for the navigation's "live" mark. */
export function useLiveRun(): RunRecord | undefined {
  return useRuns().active;
}

/** One run, as it is now. */
export function useRun(id: string | undefined): RunRecord | undefined {
  const store = useRunStore();
  return useSyncExternalStore(store.subscribe, () => (id ? store.get(id) : undefined));
}

/** Follows a durable run (reads it while the component is shown). */
export function useWatch(id: string | undefined): void {
  const store = useRunStore();
  useEffect(() => (id ? store.watch(id) : undefined), [store, id]);
}

/**
 * The durable run `runId` as this connection sees it, opened by its id when the console does
 * not hold it yet (`entry`: what history kept of it), and followed while shown. The caller
 * keys its component by connection and run, so nothing of one carries over to another.
 */
export function useOpenedRun(connection: RunConnection & ConnectionIdentity, agentId: string, runId: string, entry: HistoryEntry | undefined): RunRecord | undefined {
  const store = useRunStore();
  const record = useSyncExternalStore(store.subscribe, () => store.find(connection, agentId, runId));
  useEffect(() => {
    if (!store.find(connection, agentId, runId)) store.open(connection, agentId, runId, entry);
    // The connection and entry are fixed for this component's life: its parent keys it by them.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [store, agentId, runId]);
  useWatch(record?.id);
  return record;
}
