import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useState, useSyncExternalStore, type ReactNode } from 'react';
import { historyQueryOptions } from './history';
import { RunStore, type RunRecord, type RunStoreSnapshot } from './run-store';

const RunStoreContext = createContext<RunStore | null>(null);

/**
 * Holds the console's runs for as long as the app lives, above the routes, so a page can come
 * and go while its run goes on. Tests may pass their own store.
 */
export function RunStoreProvider({ children, store }: { children: ReactNode; store?: RunStore }) {
  const queryClient = useQueryClient();
  const [own] = useState(
    () => store ?? new RunStore({ onSaved: () => void queryClient.invalidateQueries({ queryKey: historyQueryOptions.queryKey }) }),
  );
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
