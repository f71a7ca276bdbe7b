/**
 * History's rows as the repository writes and reads them: an entry's sizes, its events in
 * slices, its details read back, and runs deleted with everything that is theirs.
 */

import { Dexie } from 'dexie';
import type { HistoryDetails, HistoryEntry } from '../../engine/history-entry';
import { isFollowed, isInFlight, type RunStatus } from '../../engine/run-machine';
import type { TimelineEntry } from '../../engine/stream-event';
import type { ConsoleDb } from '../console-db';
import type { StoredRun } from '../tables';

/**
 * Events are stored in slices of at most this many events and bytes: one structured clone of
 * 50,000 events, or of a few events of 10 MB each, would block the page.
 */
const EVENTS_PER_SLICE = 2_000;
const SLICE_BYTES = 1024 * 1024;

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

const eventBytes = (e: TimelineEntry) => 80 + (e.data?.length ?? 0);

export function detailsSize(details: HistoryDetails): number {
  let n = 0;
  for (const e of details.events ?? []) n += eventBytes(e);
  if (details.resultText !== undefined) n += details.resultText.length;
  else if (details.result !== undefined) n += JSON.stringify(details.result)?.length ?? 0;
  return n;
}

/** A stream's events cut into slices of bounded count and bytes. */
export function slicesOf(events: readonly TimelineEntry[]): TimelineEntry[][] {
  const slices: TimelineEntry[][] = [];
  let slice: TimelineEntry[] = [];
  let bytes = 0;
  for (const e of events) {
    if (slice.length && (slice.length >= EVENTS_PER_SLICE || bytes + eventBytes(e) > SLICE_BYTES)) {
      slices.push(slice);
      slice = [];
      bytes = 0;
    }
    slice.push(e);
    bytes += eventBytes(e);
  }
  if (slice.length) slices.push(slice);
  return slices;
}

/** The entry without the database's own fields. */
export function entryOf(row: StoredRun): HistoryEntry {
  const { item: _item, size: _size, detailsBytes: _details, ...entry } = row;
  return entry;
}

const sliceRange = (id: string) => [[id, Dexie.minKey], [id, Dexie.maxKey]] as const;

/** Deletes runs with their details and events (their items follow, items.ts). */
export async function deleteRuns(db: ConsoleDb, ids: readonly string[]): Promise<void> {
  await deleteDetails(db, ids);
  await db.runs.bulkDelete(ids as string[]);
}

export async function deleteDetails(db: ConsoleDb, ids: readonly string[]): Promise<void> {
  for (const id of ids) await db.events.where('[id+slice]').between(...sliceRange(id)).delete();
  await db.details.bulkDelete(ids as string[]);
}

export async function runDetails(db: ConsoleDb, id: string): Promise<HistoryDetails | undefined> {
  const stored = await db.details.get(id);
  if (!stored) return undefined;
  const events: TimelineEntry[] = [];
  const slices = await db.events.where('[id+slice]').between(...sliceRange(id)).toArray();
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
