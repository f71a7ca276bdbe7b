import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { historyQueryOptions, type HistoryEntry } from './history';
import { isFollowed, type RunStatus } from './run-machine';
import { historyEntryOf, type RunRecord } from './run-record';
import type { RunConnection } from './run-store';
import { useRunStore, useRuns } from './run-store-context';

/** A durable run history kept that may still change at the service. */
export const goesOn = (e: HistoryEntry) => e.runId !== undefined && isFollowed(e.status as RunStatus);

export interface HeldEntries {
  entries: HistoryEntry[];
  /** Entries whose run could not be read again, with why. */
  unreadable: Map<string, string>;
  isSuccess: boolean;
  isError: boolean;
  error: unknown;
}

/**
 * History's entries, each run the console holds shown as it is now (once it has been read);
 * `extra` also lists held runs not written to history yet (a turn in flight).
 */
export function useHeldEntries(extra?: (record: RunRecord) => boolean): HeldEntries {
  const store = useRunStore();
  const { runs } = useRuns(); // a held run's changes show at once, before history is written again
  const history = useQuery(historyQueryOptions);
  const unreadable = new Map<string, string>();
  const stored = history.data ?? [];
  const entries = stored.map((e) => {
    const held = store.forEntry(e.id);
    if (!held) return e;
    // A run let go of its full log (only the shown run keeps one) has no transcript left: history's entry has it.
    if (held.origin === 'sent' && !held.runId) return held.summary ? e : historyEntryOf(held);
    if (held.state.durable) return historyEntryOf(held);
    if (held.state.refusal) unreadable.set(e.id, held.state.refusal.message);
    return e;
  });
  if (extra) {
    const ids = new Set(stored.map((e) => e.id));
    for (const r of runs) if (!ids.has(r.historyId ?? r.id) && extra(r)) entries.unshift(historyEntryOf(r));
  }
  return { entries, unreadable, isSuccess: history.isSuccess, isError: history.isError, error: history.error };
}

/**
 * Durable runs still going on, as history last saw them, are read again and followed while
 * shown, with the profile they ran on (only the current one's token is at hand: the others say so).
 */
export function useFollowActive(entries: readonly HistoryEntry[], connection: RunConnection): void {
  const store = useRunStore();
  const active = entries.filter((e) => goesOn(e) && e.target.profileId === connection.profileId);
  const ids = active.map((e) => e.id).join(' ');
  useEffect(() => {
    const unwatch = active.map((e) => store.watch((store.forEntry(e.id) ?? store.open(connection, e.request.agentId, e.runId!, e)).id));
    return () => unwatch.forEach((u) => u());
    // Once per set of active runs shown, with the connection of the moment.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ids, store]);
}
