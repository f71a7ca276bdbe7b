/**
 * Runs history holds as in flight that no tab holds any more (their page was closed or reloaded
 * mid-request) are told as interrupted, once, rather than in flight for ever. A durable run cut
 * off before the service's answer arrived may exist at the service without history knowing its
 * id: where the service can say (the bundled reference service, asked by the entry's id, which
 * the console sent with the run), it is found again and followed as usual.
 */

import type { HistoryEntry } from '../../engine/history-entry';
import { isInFlight, IN_FLIGHT_STATUSES, type RunStatus } from '../../engine/run-machine';
import type { StoredRun } from '../tables';
import { RUN_LOCK_PREFIX } from './presence';
import type { HistoryRepository } from './repository';
import { entryOf } from './rows';

export const CUT_OFF_NOTE = 'This browser’s side of the run ended when its page was closed or reloaded; the run was not sent again.';
export const ID_NEVER_ARRIVED = 'The service may have started it; its id never arrived.';
export const NEVER_STARTED = 'The reference service has no run this profile’s token started from this entry: it never started (or was started with another token).';
export const FOUND_AGAIN_NOTE = 'Its page was closed or reloaded before the service’s answer arrived; the reference service said which run it started, and it is followed from here.';

/** What the service says of a durable run started from an entry: its id, none ('none'), or nothing known (undefined). */
export type FoundRun = { runId: string } | 'none' | undefined;
export type FindRun = (entry: HistoryEntry) => Promise<FoundRun>;

/** A run in flight whose page was closed or reloaded, told as interrupted at `at`. */
function cutOff(entry: HistoryEntry, at: number, found: FoundRun): HistoryEntry {
  const durable = entry.request.mode === 'durable' && entry.runId === undefined;
  const note = durable ? `${CUT_OFF_NOTE} ${found === 'none' ? NEVER_STARTED : ID_NEVER_ARRIVED}` : CUT_OFF_NOTE;
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

/** A durable run found again by its entry's id: history now follows it as any other. */
function foundAgain(entry: HistoryEntry, runId: string, at: number): HistoryEntry {
  return { ...entry, runId, status: 'QUEUED', transitions: [...(entry.transitions ?? []), { status: 'QUEUED', at, note: FOUND_AGAIN_NOTE }] };
}

/** Answers how many entries it changed (told as interrupted, or found again). */
export async function sweepCutOff(repo: HistoryRepository, options: { at?: number; findRun?: FindRun } = {}): Promise<number> {
  const at = options.at ?? repo.now();
  // Rows first, then what tabs hold: a run started in between is not in these rows. A run whose
  // request ended in between (let go after its last write) is no longer in flight when its row is
  // read again, in the write's own transaction: it is left as it is.
  const rows = await repo.db.runs.where('status').anyOf(IN_FLIGHT_STATUSES as RunStatus[]).toArray();
  if (!rows.length) return 0;
  const { held } = await repo.presence.snapshot();
  let n = 0;
  for (const row of rows) {
    if (held.has(`${RUN_LOCK_PREFIX}${row.id}`)) continue;
    const lookup = row.request.mode === 'durable' && row.runId === undefined && options.findRun;
    const found = lookup ? await options.findRun!(entryOf(row)).catch((): FoundRun => undefined) : undefined;
    const change = (now: StoredRun | undefined) => {
      if (!now || !isInFlight(now.status as RunStatus)) return undefined;
      return typeof found === 'object' && now.runId === undefined ? foundAgain(entryOf(now), found.runId, at) : cutOff(entryOf(now), at, found);
    };
    if ((await repo.putRun(row.id, change)) === 'written') n++;
  }
  return n;
}
