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

export async function saveRun(entry: HistoryEntry, extra: HistoryDetails): Promise<void> {
  await set(entry.id, extra, details);
  await set(entry.id, entry, summaries);
  const all = (await values<HistoryEntry>(summaries)).sort((a, b) => b.startedAt - a.startedAt);
  for (const old of all.slice(HISTORY_LIMIT)) {
    await del(old.id, summaries);
    await del(old.id, details);
  }
}

export async function listRuns(): Promise<HistoryEntry[]> {
  return (await values<HistoryEntry>(summaries)).sort((a, b) => b.startedAt - a.startedAt);
}

export async function runDetails(id: string): Promise<HistoryDetails | undefined> {
  return get<HistoryDetails>(id, details);
}

export async function clearHistory(): Promise<void> {
  for (const k of await keys(summaries)) {
    await del(k, summaries);
    await del(k, details);
  }
}

/** The export of one run: everything kept, which by construction holds no token. */
export async function exportRun(entry: HistoryEntry): Promise<string> {
  return JSON.stringify({ ...entry, ...(await runDetails(entry.id)) }, null, 2);
}
