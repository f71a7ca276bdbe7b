/**
 * A run, whatever its kind, as one state machine with a log of its transitions. The client
 * part is the request this browser sent:
 *
 *   idle → sending → streaming → done | failed | stopped | interrupted
 *                  → waiting   → done | failed | stopped | refused
 *          sending → refused | stopped
 *
 * A durable run goes on at the service after its 201, so the service's states are states of
 * the same record, seen by reading the run:
 *
 *   sending → QUEUED | RUNNING | REQUIRES_INPUT | CANCELLING → … → SUCCEEDED | FAILED | CANCELLED | EXPIRED
 *   idle → (first read) → any of them, for a run opened by its id; idle → refused when it cannot be read
 *
 * One pure reducer applies every change; an action that does not fit the current state (a
 * late event after Stop, a read after the run ended) leaves the run as it is, so the first
 * ending wins and a terminal state is final.
 */

import { isKnownState, type Decision, type DurableRun, type KnownDurableState } from '../contract/durable-runs';
import type { ApiError, ResponseMeta } from '../lib/api-client';

export type ClientStatus = 'idle' | 'sending' | 'streaming' | 'waiting' | 'done' | 'failed' | 'stopped' | 'interrupted' | 'refused';
export type RunStatus = ClientStatus | KnownDurableState;

/** This browser has a request open: Stop applies, and no other run starts meanwhile. */
export const IN_FLIGHT_STATUSES: readonly RunStatus[] = ['sending', 'streaming', 'waiting'];
/** The service holds the run and it may still change: it is read until it ends. */
export const FOLLOWED_STATUSES: readonly RunStatus[] = ['QUEUED', 'RUNNING', 'REQUIRES_INPUT', 'CANCELLING'];
export const TERMINAL_STATUSES: readonly RunStatus[] = ['done', 'failed', 'stopped', 'interrupted', 'refused', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED'];

export function isInFlight(status: RunStatus): boolean {
  return IN_FLIGHT_STATUSES.includes(status);
}

export function isFollowed(status: RunStatus): boolean {
  return FOLLOWED_STATUSES.includes(status);
}

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** What a failed run reports: a run.failed event, a legacy error message, a wait answer with status "error", or a durable run's error. */
export interface RunFailure {
  title: string;
  detail: string;
  code?: string;
  requestId?: string;
  documentationUrl?: string;
  status?: number;
}

/** One decision sent on a paused durable run: the tool by name as shown, and by id where the service gave one. */
export interface RunDecision {
  name: string;
  toolId?: string;
  decision: Decision;
}

export interface Transition {
  status: RunStatus;
  /** Epoch ms, this browser's clock. */
  at: number;
  /** Why, when it is worth saying (who stopped it, what broke, what was decided). */
  note?: string;
  /** Durable runs: the decisions this console sent on a paused run, by tool name (and the tool's id, which a test case's approval policy names). */
  decisions?: readonly RunDecision[];
}

/** The last read of a durable run: the service's own record of it. */
export interface DurableSnapshot {
  run: DurableRun;
  requestId: string;
  /** Epoch ms when this browser received it. */
  readAt: number;
  /** The answer as received (status, headers, body), for the spec lens and copying. */
  meta?: ResponseMeta;
}

export interface RunState {
  status: RunStatus;
  transitions: readonly Transition[];
  /** The answer's status line and headers, once they arrived. */
  meta?: Omit<ResponseMeta, 'rawBody'>;
  failure?: RunFailure;
  /** Why the run was refused before it started (non-2xx, network, not connected), or why it could not be read. */
  refusal?: ApiError;
  /** Why it stopped or broke, in words. */
  note?: string;
  /** Durable runs: the last read. */
  durable?: DurableSnapshot;
  /** Durable runs: a state the service answered that this console does not know (the status keeps the last known one). */
  unknownState?: string;
  /** Durable runs: the last read failed (the run keeps its last known state). */
  readError?: ApiError;
}

export type RunAction =
  | { type: 'send'; at: number }
  /** Stream mode: a 2xx event-stream answer arrived. */
  | { type: 'open'; at: number; meta: Omit<ResponseMeta, 'rawBody'> }
  /** Wait and durable modes: the request is on its way. */
  | { type: 'wait'; at: number }
  /** The stream ended normally; `failure` when it reported one. */
  | { type: 'close'; at: number; failure?: RunFailure }
  /** Wait mode: the answer arrived. */
  | { type: 'answer'; at: number; meta: Omit<ResponseMeta, 'rawBody'>; failure?: RunFailure }
  /** Durable mode: the 201 (or any later answer: a read, a cancellation, decisions) said what the run is now. */
  | { type: 'observe'; at: number; snapshot: DurableSnapshot; meta?: Omit<ResponseMeta, 'rawBody'> }
  /** Durable mode: reading the run failed; before any read succeeded, the run cannot be shown at all. */
  | { type: 'read-failed'; at: number; error: ApiError }
  /** Durable mode: the service accepted decisions on a paused run. */
  | { type: 'decided'; at: number; decisions: RunDecision[] }
  /** Durable mode: the service accepted a cancellation. */
  | { type: 'cancel-requested'; at: number }
  | { type: 'refuse'; at: number; error: ApiError }
  /** The answer could not be used (a 201 without a run id): the client part failed. */
  | { type: 'fail'; at: number; failure: RunFailure }
  | { type: 'stop'; at: number; note: string }
  /** The connection broke after the stream started; `failure` when a failure had been reported. */
  | { type: 'interrupt'; at: number; note: string; failure?: RunFailure };

export const initialRunState: RunState = { status: 'idle', transitions: [] };

function to(state: RunState, status: RunStatus, at: number, patch: Partial<RunState> = {}, note?: string): RunState {
  return { ...state, ...patch, status, transitions: [...state.transitions, { status, at, ...(note !== undefined && { note }) }] };
}

/** A note in the run's states without a change of state (a decision, a cancellation asked for). */
function noted(state: RunState, at: number, note: string, extra: Partial<Transition> = {}): RunState {
  return { ...state, transitions: [...state.transitions, { status: state.status, at, note, ...extra }] };
}

/** Where each service state sits in a durable run's life: Running and Waiting for approval alternate; nothing goes back. */
const LIFECYCLE_RANK: Record<KnownDurableState, number> = {
  QUEUED: 0,
  RUNNING: 1,
  REQUIRES_INPUT: 1,
  CANCELLING: 2,
  SUCCEEDED: 3,
  FAILED: 3,
  CANCELLED: 3,
  EXPIRED: 3,
};

/** A failed durable run's error, as every failure is told. */
function durableFailure(run: DurableRun): RunFailure | undefined {
  return run.error ? { title: run.error.code, detail: run.error.message, code: run.error.code } : undefined;
}

function observe(state: RunState, action: Extract<RunAction, { type: 'observe' }>): RunState {
  const s = state.status;
  // A durable run is observed from its POST (sending), from a read of a run opened by id (idle), or while it goes on.
  if (s !== 'sending' && s !== 'waiting' && s !== 'idle' && !isFollowed(s)) return state;
  const { run } = action.snapshot;
  // A read the service answered before the last change seen (a poll that lands after an
  // approval's answer) is older news: applied, it would take the run back to a state it left.
  const seen = state.durable?.run.updated_at;
  if (seen !== undefined && Date.parse(run.updated_at) < Date.parse(seen)) return state;
  const known = isKnownState(run.state);
  // Whatever the clocks say (a read answered in the same millisecond as a cancellation), a run
  // only moves forward in its lifecycle: never from Cancelling back to Running, nor back to Queued.
  if (known && isFollowed(s) && LIFECYCLE_RANK[run.state as KnownDurableState] < LIFECYCLE_RANK[s as KnownDurableState]) return state;
  const patch: Partial<RunState> = {
    durable: action.snapshot,
    unknownState: known ? undefined : run.state,
    readError: undefined,
    ...(action.meta && { meta: action.meta }),
    ...(run.error && { failure: durableFailure(run) }),
  };
  // An unknown state keeps the last known one; a first read in an unknown state is shown as queued, with the state said.
  const next: RunStatus = known ? (run.state as KnownDurableState) : isFollowed(s) ? s : 'QUEUED';
  if (next === s) return { ...state, ...patch };
  // A run opened from history carries the states seen before; a first read that finds it where history left it adds no step.
  if (s === 'idle' && state.transitions.at(-1)?.status === next) return { ...state, ...patch, status: next };
  return to(state, next, action.at, patch);
}

export function runReducer(state: RunState, action: RunAction): RunState {
  const s = state.status;
  switch (action.type) {
    case 'send':
      return s === 'idle' ? to(state, 'sending', action.at) : state;
    case 'open':
      return s === 'sending' ? to(state, 'streaming', action.at, { meta: action.meta }) : state;
    case 'wait':
      return s === 'sending' ? to(state, 'waiting', action.at) : state;
    case 'close':
      if (s !== 'streaming') return state;
      return action.failure ? to(state, 'failed', action.at, { failure: action.failure }) : to(state, 'done', action.at);
    case 'answer':
      if (s !== 'waiting') return state;
      return action.failure ? to(state, 'failed', action.at, { meta: action.meta, failure: action.failure }) : to(state, 'done', action.at, { meta: action.meta });
    case 'observe':
      return observe(state, action);
    case 'read-failed':
      if (s === 'idle') return to(state, 'refused', action.at, { refusal: action.error, meta: action.error.meta });
      return isFollowed(s) ? { ...state, readError: action.error } : state;
    case 'decided': {
      if (s !== 'REQUIRES_INPUT') return state;
      const text = action.decisions.map((d) => `${d.decision === 'APPROVE' ? 'approved' : 'rejected'} “${d.name}”`).join(', ');
      return noted(state, action.at, `You ${text}.`, { decisions: action.decisions });
    }
    case 'cancel-requested':
      return isFollowed(s) ? noted(state, action.at, 'You asked the service to cancel the run.') : state;
    case 'refuse':
      return s === 'sending' || s === 'waiting' ? to(state, 'refused', action.at, { refusal: action.error, meta: action.error.meta }) : state;
    case 'fail':
      return s === 'sending' || s === 'waiting' ? to(state, 'failed', action.at, { failure: action.failure }) : state;
    case 'stop':
      return isInFlight(s) ? to(state, 'stopped', action.at, { note: action.note }, action.note) : state;
    case 'interrupt':
      if (s !== 'streaming') return state;
      // A run that reported its failure and then lost the connection failed; the break is a footnote.
      return action.failure
        ? to(state, 'failed', action.at, { failure: action.failure, note: action.note }, action.note)
        : to(state, 'interrupted', action.at, { note: action.note }, action.note);
  }
}

/** Words for every status, in the response head, history and exports alike. */
export const STATUS_TEXT: Record<RunStatus, string> = {
  idle: 'No run yet',
  sending: 'Sending…',
  streaming: 'Streaming…',
  waiting: 'Waiting for the answer…',
  done: 'Done',
  failed: 'Failed',
  stopped: 'Stopped',
  interrupted: 'Interrupted',
  refused: 'Refused',
  QUEUED: 'Queued',
  RUNNING: 'Running',
  REQUIRES_INPUT: 'Waiting for your approval',
  CANCELLING: 'Cancelling',
  SUCCEEDED: 'Succeeded',
  FAILED: 'Failed',
  CANCELLED: 'Cancelled',
  EXPIRED: 'Expired',
};

/** A status as words; entries of older versions may hold statuses no longer known ("success"). */
export function statusText(status: string, unknownState?: string): string {
  if (unknownState) return `Unknown state “${unknownState}”`;
  return (STATUS_TEXT as Record<string, string>)[status] ?? status;
}

/** The CSS tone of a status: the same colour for the same meaning, whichever kind of run. */
export function statusTone(status: string): string {
  switch (status) {
    case 'done':
    case 'SUCCEEDED':
      return 'done';
    case 'failed':
    case 'FAILED':
    case 'EXPIRED':
    case 'refused':
      return 'failed';
    case 'stopped':
    case 'CANCELLED':
    case 'CANCELLING':
      return 'stopped';
    case 'interrupted':
      return 'interrupted';
    case 'REQUIRES_INPUT':
      return 'paused';
    default:
      return 'active';
  }
}
