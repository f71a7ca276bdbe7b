/**
 * A run as the console keeps it, whatever its kind: its request, where it went, and its one
 * state machine. Every figure shown of a run (duration, events, bytes) comes from
 * `metricsOf`, so the response head, the counters, history and exports say the same.
 */

import { durableOutputText } from '../contract/durable-runs';
import { platformRunsPath } from '../contract/run-paths';
import { transcriptOf, type RunWaitResponse } from '../contract/agents';
import type { ApiResponse, ResponseMeta } from '../lib/api-client';
import type { ActiveConnection } from '../lib/connection';
import { utf8Bytes } from '../lib/format';
import { refusalError, storedRefusal, type HistoryDetails, type HistoryEntry } from './history-entry';
import { initialRunState, isInFlight, isTerminal, type RunState, type RunStatus } from './run-machine';
import type { RunRequest } from './run-request';
import type { StreamLog } from './stream-log';
import { answerMessages, MAX_ANSWER_MESSAGES } from './thread';
import type { Message } from '../contract/agents';

/** Where a run went: the connection's identity at the moment it was sent, never its token. */
/** What a run is sent with: where, the token (never kept), and the profile it came from. */
export type RunConnection = Pick<ActiveConnection, 'baseUrl' | 'token' | 'problem' | 'profileId' | 'profileLabel' | 'mode' | 'target' | 'fingerprint'>;

export interface RunTarget {
  profileId: string;
  profileLabel: string;
  mode: ActiveConnection['mode'];
  target: string;
  baseUrl: string;
  fingerprint: string;
}

/** What is kept of a stream once its full log is let go (only the shown run keeps its log). */
export interface StreamSummary {
  eventCount: number;
  bytes: number;
  firstEventMs?: number;
  answerMessages?: Message[];
  answerTruncated?: boolean;
}

export interface RunRecord {
  readonly id: string;
  /** 'sent' from this console; 'opened' by its run id (a link, a reload, history), its request then only what history kept. */
  readonly origin: 'sent' | 'opened';
  readonly request: RunRequest;
  readonly target: RunTarget;
  /** Epoch ms of the click (or of the run's creation at the service, for a run opened by id). */
  readonly startedAt: number;
  readonly state: RunState;
  /** Durable runs: the id the service gave the run. */
  readonly runId?: string;
  /** Stream mode: what the stream delivered, as it arrives; only while the run is the one shown. */
  readonly log?: StreamLog;
  /** Stream mode: the counts, once the log was let go. */
  readonly summary?: StreamSummary;
  /** Wait mode: the answer. */
  readonly answer?: ApiResponse<RunWaitResponse>;
  /** The history entry this run is kept in, if any. */
  readonly historyId?: string;
  /**
   * A run opened from history: what its entry already said. A final entry is never written
   * again (its outcome stands whatever a later read says), and a file's turn stays marked imported.
   */
  readonly fromHistory?: { final: boolean; imported?: HistoryEntry['imported'] };
  /** A run read back from history (`recordOfEntry`): what history said of it, that the record has no other way to know. */
  readonly stored?: { durationMs: number; transcript: string };
}

export interface RunMetrics {
  /** From the click to the end; undefined while the run goes on. */
  durationMs?: number;
  eventCount: number;
  bytes: number;
  firstEventMs?: number;
}

function endedAt(record: RunRecord): number | undefined {
  if (!isTerminal(record.state.status)) return undefined;
  if (record.stored) return record.startedAt + record.stored.durationMs;
  const durable = record.state.durable?.run;
  // A durable run's life is the service's: from its creation to its last change, on the service's clock.
  if (durable) {
    const created = Date.parse(durable.created_at);
    const updated = Date.parse(durable.updated_at);
    if (Number.isFinite(created) && Number.isFinite(updated)) return record.startedAt + (updated - created);
  }
  return record.state.transitions.find((t) => isTerminal(t.status))?.at;
}

export function metricsOf(record: RunRecord): RunMetrics {
  const end = endedAt(record);
  const durationMs = end === undefined ? undefined : Math.max(0, end - record.startedAt);
  // A refused run's size is its refusal's body: the one answer it got (a refused stream's log is empty).
  const refused = record.state.refusal?.meta?.rawBody;
  if (refused !== undefined) return { durationMs, eventCount: 0, bytes: utf8Bytes(refused) };
  if (record.log) return { durationMs, eventCount: record.log.eventCount, bytes: record.log.bytes, firstEventMs: record.log.firstEventMs };
  if (record.summary) return { durationMs, eventCount: record.summary.eventCount, bytes: record.summary.bytes, firstEventMs: record.summary.firstEventMs };
  // A refused run's size is its refusal's body: the one answer it got.
  const body = record.answer?.rawBody ?? record.state.durable?.meta?.rawBody ?? record.state.refusal?.meta?.rawBody ?? '';
  return { durationMs, eventCount: 0, bytes: utf8Bytes(body) };
}

/** The stream's counts, kept when its log is let go. */
export function summaryOf(log: StreamLog): StreamSummary {
  return {
    eventCount: log.eventCount,
    bytes: log.bytes,
    firstEventMs: log.firstEventMs,
    ...(log.answerMessages && { answerMessages: log.answerMessages, answerTruncated: log.answerTruncated }),
  };
}

/** A conversation's turn: the agent's answer messages as received, whatever the kind of run. */
export function answerOf(record: RunRecord): Pick<HistoryEntry, 'answerMessages' | 'answerTruncated'> {
  if (!record.request.thread) return {};
  if (record.log?.answerMessages) return { answerMessages: record.log.answerMessages, ...(record.log.answerTruncated && { answerTruncated: true }) };
  if (record.summary?.answerMessages) return { answerMessages: record.summary.answerMessages, ...(record.summary.answerTruncated && { answerTruncated: true }) };
  const messages = record.state.durable ? record.state.durable.run.output?.messages : record.answer?.data?.messages;
  const answer = answerMessages(messages);
  return answer.length > MAX_ANSWER_MESSAGES ? { answerMessages: [], answerTruncated: true } : { answerMessages: answer };
}

/** What history keeps of an answer: everything but the body, which is kept apart. */
export function metaOf(meta: ResponseMeta | Omit<ResponseMeta, 'rawBody'> | undefined): Omit<ResponseMeta, 'rawBody'> | undefined {
  if (!meta) return undefined;
  const { method, url, status, durationMs, requestId, headers, receivedAt } = meta;
  return { method, url, status, durationMs, requestId, headers, receivedAt };
}

function transcriptOfRecord(record: RunRecord): string {
  if (record.log) return record.log.transcriptText;
  if (record.stored) return record.stored.transcript;
  if (record.state.durable) return durableOutputText(record.state.durable.run);
  return transcriptOf(record.answer?.data?.messages ?? []);
}

/** Entries already worked out, by record (a record is replaced, never changed, at each change of state; a stream's log grows). */
const entries = new WeakMap<RunRecord, { events: number; bytes: number; entry: HistoryEntry }>();

/**
 * The run as history keeps it: no token, nor anything derived from one. Worked out once per
 * record and log length: a view that asks at every render (a thread, a comparison) does not
 * join a 100,000-message transcript again each time.
 */
export function historyEntryOf(record: RunRecord): HistoryEntry {
  const events = record.log?.eventCount ?? 0;
  const bytes = record.log?.bytes ?? 0;
  const cached = entries.get(record);
  if (cached && cached.events === events && cached.bytes === bytes) return cached.entry;
  const entry = entryOfRecord(record);
  entries.set(record, { events, bytes, entry });
  return entry;
}

function entryOfRecord(record: RunRecord): HistoryEntry {
  const { state, target } = record;
  const m = metricsOf(record);
  return {
    id: record.historyId ?? record.id,
    ...(record.runId && { runId: record.runId }),
    startedAt: record.startedAt,
    request: record.request,
    target: { profileId: target.profileId, profileLabel: target.profileLabel, mode: target.mode, baseUrl: target.baseUrl },
    status: state.status,
    ...(state.unknownState && { unknownState: state.unknownState }),
    transitions: state.transitions,
    durationMs: m.durationMs ?? Math.max(0, (state.transitions.at(-1)?.at ?? record.startedAt) - record.startedAt),
    firstEventMs: m.firstEventMs,
    eventCount: m.eventCount,
    bytes: m.bytes,
    transcript: transcriptOfRecord(record),
    ...answerOf(record),
    failure: state.failure,
    problem: state.refusal?.message ?? state.note,
    ...(state.refusal && { refusal: storedRefusal(state.refusal) }),
    ...(state.note && { note: state.note }),
    meta: metaOf(state.meta),
    ...(state.durable && { lastReadAt: state.durable.readAt }),
    ...(record.fromHistory?.imported && { imported: record.fromHistory.imported }),
  };
}

/** What history keeps of a run's answer, once it ended: a stream's events, else the answer's body (a durable run as last read). */
export function detailsOf(record: RunRecord): HistoryDetails {
  if (record.log) return { events: record.log.events };
  const result = record.answer?.data ?? record.state.durable?.run ?? record.state.refusal?.body;
  return result === undefined ? {} : { result };
}

/** Whether a record is going on anywhere: in this browser, or at the service. */
export function isLive(record: RunRecord): boolean {
  return isInFlight(record.state.status) || !isTerminal(record.state.status);
}

/**
 * A run history keeps, as a record the run views show (a run ended in another tab, or before a
 * reload): its state as far as history has it, its counts as its summary, no log.
 */
export function recordOfEntry(entry: HistoryEntry): RunRecord {
  const transitions = entry.transitions ?? [{ status: entry.status as RunStatus, at: entry.startedAt + entry.durationMs }];
  return {
    id: entry.id,
    origin: 'sent',
    request: entry.request,
    target: { profileId: entry.target.profileId ?? '', profileLabel: entry.target.profileLabel, mode: entry.target.mode, target: entry.target.baseUrl, baseUrl: entry.target.baseUrl, fingerprint: '' },
    startedAt: entry.startedAt,
    state: {
      status: entry.status as RunStatus,
      transitions,
      ...(entry.meta && { meta: entry.meta }),
      ...(entry.failure && { failure: entry.failure }),
      ...(entry.refusal && { refusal: refusalError(entry.refusal) }),
      ...(entry.note && { note: entry.note }),
      ...(entry.unknownState && { unknownState: entry.unknownState }),
    },
    ...(entry.runId && { runId: entry.runId }),
    summary: {
      eventCount: entry.eventCount,
      bytes: entry.bytes,
      ...(entry.firstEventMs !== undefined && { firstEventMs: entry.firstEventMs }),
      ...(entry.answerMessages && { answerMessages: entry.answerMessages }),
      ...(entry.answerTruncated && { answerTruncated: true }),
    },
    historyId: entry.id,
    stored: { durationMs: entry.durationMs, transcript: entry.transcript },
  };
}

export function targetOf(c: RunConnection): RunTarget {
  return { profileId: c.profileId, profileLabel: c.profileLabel, mode: c.mode, target: c.target, baseUrl: c.baseUrl, fingerprint: c.fingerprint };
}

/** Whether a run was sent (or opened) with this connection: the same place and the same token, by fingerprint. */
export function sameConnection(t: RunTarget, c: Pick<RunTarget, 'mode' | 'target' | 'fingerprint'>): boolean {
  return t.mode === c.mode && t.target === c.target && t.fingerprint === c.fingerprint;
}

/**
 * The record of a durable run opened by its id: what history kept of it (`entry`: its request,
 * the states it saw, decisions included), else only its agent; reads add what follows.
 */
export function openedRecord(id: string, target: RunTarget, agentId: string, runId: string, entry?: HistoryEntry): RunRecord {
  return {
    id,
    origin: 'opened',
    request: entry?.request ?? { agentId, flavour: 'platform', mode: 'durable', path: platformRunsPath(agentId), body: {} },
    target,
    // A run opened without history starts when the service created it (set at its first read).
    startedAt: entry?.startedAt ?? Date.now(),
    state: entry?.transitions ? { ...initialRunState, transitions: entry.transitions } : initialRunState,
    runId,
    ...(entry && {
      historyId: entry.id,
      fromHistory: { final: isTerminal(entry.status as RunStatus), ...(entry.imported && { imported: entry.imported }) },
    }),
  };
}
