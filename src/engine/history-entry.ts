/**
 * What the console keeps of a run: its entry (everything history lists and a thread shows),
 * apart from its details (events, the answer's body). No token, nor anything derived from one,
 * ever enters it.
 */

import type { Message } from '../contract/agents';
import { ApiError, type ApiErrorKind, type ResponseMeta } from '../lib/api-client';
import type { ConnectionMode } from '../lib/connection';
import { joinFragments } from './answer-messages';
import type { RunFailure, RunStatus, Transition } from './run-machine';
import type { RunRequest } from './run-request';
import type { TimelineEntry } from './stream-event';

/** Where a run was sent, as history keeps it: no token, nor anything derived from one. */
export interface HistoryTarget {
  /** The profile it ran on (entries of older versions have only its label). */
  profileId?: string;
  profileLabel: string;
  mode: ConnectionMode;
  baseUrl: string;
}

/** A refusal as the database keeps it: the error's parts, its body's text capped. */
export interface StoredRefusal {
  kind: ApiErrorKind;
  status: number;
  title: string;
  detail: string;
  body?: unknown;
  code?: string;
  requestId?: string;
  meta?: ResponseMeta;
}

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
  /** A conversation's turn: the messages the agent's answer formed, which the next turn sends back. */
  answerMessages?: Message[];
  /** More answer messages came than a turn keeps: the answer cannot be sent back whole. */
  answerTruncated?: boolean;
  failure?: RunFailure;
  /** The refusal or transport problem, as text. */
  problem?: string;
  /** The refusal itself, so a run refused in another tab, or before a reload, is told the same way. */
  refusal?: StoredRefusal;
  /** Why this browser's side ended, in words (a stop, a break). */
  note?: string;
  meta?: Omit<ResponseMeta, 'rawBody'>;
  /** A turn read from a conversation file, not run from this browser. */
  imported?: { at: number; fileName?: string };
}

export interface HistoryDetails {
  events?: TimelineEntry[];
  /** Wait mode: the answer's body; durable: the run as last read. */
  result?: unknown;
  /**
   * Wait mode, when written: the answer's body as received, kept as text (one string is cloned
   * into the database at once; 100,000 parsed messages would hold the page). Read back as `result`.
   */
  resultText?: string;
}

/** How much of a refusal's body is kept: enough to read it, never a whole page an instance sent. */
const REFUSAL_BODY_CHARS = 64 * 1024;

export function storedRefusal(error: ApiError): StoredRefusal {
  const meta = error.meta && { ...error.meta, rawBody: error.meta.rawBody.slice(0, REFUSAL_BODY_CHARS) };
  const body = typeof error.body === 'string' ? error.body.slice(0, REFUSAL_BODY_CHARS) : error.body;
  return {
    kind: error.kind,
    status: error.status,
    title: error.title,
    detail: error.detail,
    ...(body !== undefined && { body }),
    ...(error.code !== undefined && { code: error.code }),
    ...(error.requestId !== undefined && { requestId: error.requestId }),
    ...(meta && { meta }),
  };
}

export function refusalError(r: StoredRefusal): ApiError {
  return new ApiError(r.kind, r.status, r.title, r.detail, r.body, r.meta, r.code, r.requestId);
}

/**
 * An entry as read from an older version's store, as this version writes it: the agent inside
 * the request, a target, and a streamed turn's answer as the messages its fragments form (a
 * stream used to keep one message per event). Undefined for anything that is not an entry.
 */
export function normalizedEntry(value: unknown): HistoryEntry | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const e = value as HistoryEntry & { agentId?: string; agentName?: string; baseUrl?: string };
  if (typeof e.id !== 'string' || typeof e.request !== 'object' || e.request === null) return undefined;
  const { agentId, agentName, baseUrl, ...rest } = e;
  const request = { ...e.request, agentId: e.request.agentId ?? agentId ?? '', ...(agentName !== undefined && !e.request.agentName && { agentName }) };
  const answerMessages = e.answerMessages && request.mode === 'stream' ? joinFragments(e.answerMessages) : e.answerMessages;
  return {
    ...rest,
    request,
    target: e.target ?? { profileLabel: '', mode: 'same-origin', baseUrl: baseUrl ?? '' },
    ...(answerMessages && { answerMessages }),
  };
}
