/**
 * A run as a small state machine with a log of its transitions:
 *
 *   idle → sending → streaming → done | failed | stopped | interrupted
 *                  → waiting   → done | failed | stopped | refused
 *          sending → refused | stopped
 *
 * One pure reducer applies every change; an action that does not fit the current state (a
 * late event after Stop, say) leaves the run as it is, so the first ending wins.
 */

import type { ApiError, ResponseMeta } from '../../../lib/api-client';

export type RunStatus = 'idle' | 'sending' | 'streaming' | 'waiting' | 'done' | 'failed' | 'stopped' | 'interrupted' | 'refused';

export const ACTIVE_STATUSES: readonly RunStatus[] = ['sending', 'streaming', 'waiting'];
export const TERMINAL_STATUSES: readonly RunStatus[] = ['done', 'failed', 'stopped', 'interrupted', 'refused'];

/** What a failed run reports: a run.failed event, a legacy error message, or a wait answer with status "error". */
export interface RunFailure {
  title: string;
  detail: string;
  code?: string;
  requestId?: string;
  documentationUrl?: string;
  status?: number;
}

export interface Transition {
  status: RunStatus;
  /** Epoch ms. */
  at: number;
  /** Why, when it is worth saying (who stopped it, what broke). */
  note?: string;
}

export interface RunState {
  status: RunStatus;
  transitions: readonly Transition[];
  /** The answer's status line and headers, once they arrived. */
  meta?: Omit<ResponseMeta, 'rawBody'>;
  failure?: RunFailure;
  /** Why the run was refused before it started (non-2xx, network, not connected). */
  refusal?: ApiError;
  /** Why it stopped or broke, in words. */
  note?: string;
}

export type RunAction =
  | { type: 'send'; at: number }
  /** Stream mode: a 2xx event-stream answer arrived. */
  | { type: 'open'; at: number; meta: Omit<ResponseMeta, 'rawBody'> }
  /** Wait mode: the request is on its way; the answer comes when the run ends. */
  | { type: 'wait'; at: number }
  /** The stream ended normally; `failure` when it reported one. */
  | { type: 'close'; at: number; failure?: RunFailure }
  /** Wait mode: the answer arrived. */
  | { type: 'answer'; at: number; meta: Omit<ResponseMeta, 'rawBody'>; failure?: RunFailure }
  | { type: 'refuse'; at: number; error: ApiError }
  | { type: 'stop'; at: number; note: string }
  /** The connection broke after the stream started; `failure` when a failure had been reported. */
  | { type: 'interrupt'; at: number; note: string; failure?: RunFailure };

export const initialRunState: RunState = { status: 'idle', transitions: [] };

function to(state: RunState, status: RunStatus, at: number, patch: Partial<RunState> = {}, note?: string): RunState {
  return { ...state, ...patch, status, transitions: [...state.transitions, { status, at, ...(note !== undefined && { note }) }] };
}

export function isActive(status: RunStatus): boolean {
  return ACTIVE_STATUSES.includes(status);
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
    case 'refuse':
      return s === 'sending' || s === 'waiting' ? to(state, 'refused', action.at, { refusal: action.error, meta: action.error.meta }) : state;
    case 'stop':
      return isActive(s) ? to(state, 'stopped', action.at, { note: action.note }, action.note) : state;
    case 'interrupt':
      if (s !== 'streaming') return state;
      // A run that reported its failure and then lost the connection failed; the break is a footnote.
      return action.failure
        ? to(state, 'failed', action.at, { failure: action.failure, note: action.note }, action.note)
        : to(state, 'interrupted', action.at, { note: action.note }, action.note);
  }
}
