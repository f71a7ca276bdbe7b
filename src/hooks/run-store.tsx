import { createContext, use, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import type { ConnectionIdentity } from '../lib/connection';
import type { HistoryEntry } from '../engine/history-entry';
import type { RunRecord } from '../engine/run-record';
import type { RunStore, RunStoreSnapshot } from '../engine/run-store';
import type { RunConnection } from '../engine/run-record';

const RunStoreContext = createContext<RunStore | Promise<RunStore> | null>(null);

/**
 * Holds the console's runs for as long as the app lives, above the routes, so a page can come
 * and go while its run goes on. The store (and the engine with it) loads as the app starts, but
 * not with the first page's code: what reads it before it is there waits (Suspense). Tests may
 * pass their own store.
 */
export function RunStoreProvider({ children, store }: { children: ReactNode; store?: RunStore }) {
  const [own] = useState<RunStore | Promise<RunStore>>(() => store ?? import('./console-run-store').then((m) => m.consoleRunStore()));
  return <RunStoreContext.Provider value={own}>{children}</RunStoreContext.Provider>;
}

/** The console's run store; suspends while it loads. */
export function useRunStore(): RunStore {
  const store = useContext(RunStoreContext);
  if (!store) throw new Error('useRunStore must be used inside RunStoreProvider.');
  return store instanceof Promise ? use(store) : store;
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
