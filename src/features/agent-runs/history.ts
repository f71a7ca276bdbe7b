import { createStore, del, get, keys, set, values } from 'idb-keyval';
import type { ResponseMeta } from '../../lib/api-client';
import type { RunFailure, RunStatus, TimelineEntry } from './run-session';
import type { RunRequest } from './run-request';

export type WaitStatus = 'waiting' | 'success' | 'error' | 'refused' | 'cancelled' | 'timeout';

/** What the history keeps of an answer: everything but the body, which is kept apart. */
export function metaOf(meta: ResponseMeta | Omit<ResponseMeta, 'rawBody'> | undefined): Omit<ResponseMeta, 'rawBody'> | undefined {
  if (!meta) return undefined;
  const { method, url, status, durationMs, requestId, headers, receivedAt } = meta;
  return { method, url, status, durationMs, requestId, headers, receivedAt };
}

/** One finished run as kept in IndexedDB. Tokens never enter it. */
export interface HistoryEntry {
  id: string;
  startedAt: number;
  agentId: string;
  agentName?: string;
  request: RunRequest;
  baseUrl: string;
  status: RunStatus | WaitStatus;
  durationMs: number;
  firstEventMs?: number;
  eventCount: number;
  bytes: number;
  transcript: string;
  failure?: RunFailure;
  /** The refusal or transport problem, as text. */
  problem?: string;
  meta?: Omit<ResponseMeta, 'rawBody'>;
}

export interface HistoryDetails {
  events?: TimelineEntry[];
  /** Wait mode: the answer's body. */
  result?: unknown;
}

// Summaries and details live apart so listing the history never loads 50,000 events.
const summaries = createStore('mac-run-history', 'summaries');
const details = createStore('mac-run-details', 'details');
export const HISTORY_LIMIT = 50;

/** Events are stored in slices: one structured clone of 50,000 events would block the page. */
const EVENTS_PER_RECORD = 2_000;

interface StoredDetails {
  result?: unknown;
  eventRecords: number;
}

const sliceKey = (id: string, i: number) => `${id}#${i}`;

async function deleteRun(id: string): Promise<void> {
  const stored = await get<StoredDetails>(id, details);
  for (let i = 0; i < (stored?.eventRecords ?? 0); i++) await del(sliceKey(id, i), details);
  await del(id, details);
  await del(id, summaries);
}

export async function saveRun(entry: HistoryEntry, extra: HistoryDetails): Promise<void> {
  const events = extra.events ?? [];
  const eventRecords = Math.ceil(events.length / EVENTS_PER_RECORD);
  // Each awaited write is its own task, so each clone is a short one.
  for (let i = 0; i < eventRecords; i++) {
    await set(sliceKey(entry.id, i), events.slice(i * EVENTS_PER_RECORD, (i + 1) * EVENTS_PER_RECORD), details);
  }
  await set(entry.id, { result: extra.result, eventRecords } satisfies StoredDetails, details);
  await set(entry.id, entry, summaries);
  const all = (await values<HistoryEntry>(summaries)).sort((a, b) => b.startedAt - a.startedAt);
  for (const old of all.slice(HISTORY_LIMIT)) await deleteRun(old.id);
}

export async function listRuns(): Promise<HistoryEntry[]> {
  return (await values<HistoryEntry>(summaries)).sort((a, b) => b.startedAt - a.startedAt);
}

export async function runDetails(id: string): Promise<HistoryDetails | undefined> {
  const stored = await get<StoredDetails>(id, details);
  if (!stored) return undefined;
  const events: TimelineEntry[] = [];
  for (let i = 0; i < stored.eventRecords; i++) events.push(...((await get<TimelineEntry[]>(sliceKey(id, i), details)) ?? []));
  return { result: stored.result, ...(stored.eventRecords > 0 && { events }) };
}

export async function clearHistory(): Promise<void> {
  for (const k of await keys(summaries)) await deleteRun(String(k));
}

/** The export of one run: everything kept, which by construction holds no token. */
export async function exportRun(entry: HistoryEntry): Promise<string> {
  return JSON.stringify({ ...entry, ...(await runDetails(entry.id)) }, null, 2);
}
