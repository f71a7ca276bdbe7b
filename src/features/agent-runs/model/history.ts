import { queryOptions } from '@tanstack/react-query';
import { createStore, del, get, keys, set, values } from 'idb-keyval';
import type { Message } from '../../../contract/agents';
import type { ResponseMeta } from '../../../lib/api-client';
import type { ConnectionMode } from '../../../lib/connection';
import type { RunFailure, RunStatus, Transition } from './run-machine';
import type { RunRequest } from './run-request';
import type { TimelineEntry } from './stream-log';

/** Where a run was sent, as history keeps it: no token, nor anything derived from one. */
export interface HistoryTarget {
  /** The profile it ran on (entries of older versions have only its label). */
  profileId?: string;
  profileLabel: string;
  mode: ConnectionMode;
  baseUrl: string;
}

/** One finished run as kept in IndexedDB. Tokens never enter it. */
export interface HistoryEntry {
  id: string;
  startedAt: number;
  /** The run as it was sent: its agent, API, mode and body. */
  request: RunRequest;
  /** Durable runs: the id the service gave the run, to follow it at /runs/:agentId/:runId. */
  runId?: string;
  target: HistoryTarget;
  /** A status of the run state machine (a durable run's service state included); entries from older versions may hold others ("success"). */
  status: RunStatus | string;
  /** A durable run's state the console did not know when it read it. */
  unknownState?: string;
  /** Durable runs: when the console last read the run (epoch ms). */
  lastReadAt?: number;
  transitions?: readonly Transition[];
  durationMs: number;
  firstEventMs?: number;
  eventCount: number;
  bytes: number;
  transcript: string;
  /** A conversation's turn: the agent's answer messages as received, which the next turn sends back. */
  answerMessages?: Message[];
  /** More answer messages came than a turn keeps: the answer cannot be sent back whole. */
  answerTruncated?: boolean;
  failure?: RunFailure;
  /** The refusal or transport problem, as text. */
  problem?: string;
  meta?: Omit<ResponseMeta, 'rawBody'>;
  /** A turn read from a conversation file, not run from this browser. */
  imported?: { at: number; fileName?: string };
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
  for (const old of beyondLimit(await values<HistoryEntry>(summaries))) await deleteRun(old.id);
}

/**
 * The entries history lets go: all but the newest HISTORY_LIMIT items, where a conversation
 * is one item (its turns stay or go together, so a thread never loses its beginning).
 */
export function beyondLimit(all: readonly HistoryEntry[]): HistoryEntry[] {
  const itemOf = (e: HistoryEntry) => e.request.thread?.id ?? e.id;
  const newest = new Map<string, number>();
  for (const e of all) newest.set(itemOf(e), Math.max(newest.get(itemOf(e)) ?? 0, e.startedAt));
  const kept = new Set([...newest.entries()].sort((a, b) => b[1] - a[1]).slice(0, HISTORY_LIMIT).map(([item]) => item));
  return all.filter((e) => !kept.has(itemOf(e)));
}

/** Entries written before the request carried its agent kept it beside the request. */
type StoredEntry = HistoryEntry & { agentId?: string; agentName?: string; baseUrl?: string };

function normalized(e: StoredEntry): HistoryEntry {
  if (e.request.agentId && e.target) return e;
  const { agentId, agentName, baseUrl, ...rest } = e;
  return {
    ...rest,
    request: { ...e.request, agentId: e.request.agentId ?? agentId ?? '', ...(agentName !== undefined && !e.request.agentName && { agentName }) },
    target: e.target ?? { profileLabel: '', mode: 'same-origin', baseUrl: baseUrl ?? '' },
  };
}

export async function listRuns(): Promise<HistoryEntry[]> {
  return (await values<StoredEntry>(summaries)).map(normalized).sort((a, b) => b.startedAt - a.startedAt);
}

export const historyQueryOptions = queryOptions({ queryKey: ['run-history'] as const, queryFn: listRuns });

export async function runDetails(id: string): Promise<HistoryDetails | undefined> {
  const stored = await get<StoredDetails>(id, details);
  if (!stored) return undefined;
  const events: TimelineEntry[] = [];
  for (let i = 0; i < stored.eventRecords; i++) events.push(...((await get<TimelineEntry[]>(sliceKey(id, i), details)) ?? []));
  return { result: stored.result, ...(stored.eventRecords > 0 && { events }) };
}

/** A kept run's events and answer: they never change once written, so they are read once (once there). */
export const runDetailsQueryOptions = (id: string) =>
  queryOptions({
    queryKey: ['run-details', id] as const,
    queryFn: async (): Promise<HistoryDetails> => (await runDetails(id)) ?? {},
    // Read before the run's write landed, nothing is kept as the answer: it is read again next time.
    staleTime: (q) => (q.state.data?.events !== undefined || q.state.data?.result !== undefined ? Infinity : 0),
  });

export async function clearHistory(): Promise<void> {
  for (const k of await keys(summaries)) await deleteRun(String(k));
}

/** The export of one run: everything kept, which by construction holds no token. */
export async function exportRun(entry: HistoryEntry): Promise<string> {
  return JSON.stringify({ ...entry, ...(await runDetails(entry.id)) }, null, 2);
}
