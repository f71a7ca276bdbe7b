/**
 * The one POST of each kind of run, turned into state machine actions. Each sender is told
 * where to report (`dispatch`) and never sends again: no retry, whatever happens.
 */

import { transcriptOf, type RunWaitResponse } from '../contract/agents';
import type { DurableRunAnswer } from '../contract/durable-runs';
import { ApiError, type ApiResponse } from '../lib/api-client';
import type { Connection } from '../lib/connection';
import type { EventReader, StreamEnd } from '../lib/sse';
import { createDurableRun } from './send/durable-run';
import { sendStreamRun } from './send/run-stream';
import { sendWaitRun } from './send/run-wait';
import type { RunAction, RunFailure } from './run-machine';
import { metaOf, type RunRecord } from './run-record';
import type { StreamLog } from './stream-log';

/** Why this browser closed its side of a run: a typed reason, never a string to compare. */
export type StopReason = { kind: 'user' } | { kind: 'timeout'; ms: number };

export const STOPPED_BY_YOU = 'Stopped by you.';
export const WAIT_STOPPED_BY_YOU = 'Stopped by you; the service may still finish the run.';

function isStopReason(value: unknown): value is StopReason {
  return typeof value === 'object' && value !== null && ((value as StopReason).kind === 'user' || (value as StopReason).kind === 'timeout');
}

/** The words of a stop, for the run's note. Closing a wait ends only this browser's side: an instance may finish the run anyway. */
export function stopNote(reason: unknown, mode: RunRecord['request']['mode']): string {
  const r: StopReason = isStopReason(reason) ? reason : { kind: 'user' };
  if (r.kind === 'timeout') return `Your client-side timeout (${r.ms / 1000} s) ended the wait; the service may still finish the run.`;
  return mode === 'wait' ? WAIT_STOPPED_BY_YOU : STOPPED_BY_YOU;
}

export interface SendContext {
  record: RunRecord;
  connection: Connection;
  signal: AbortSignal;
  /** Applies an action to this run; `patch` joins the record (the answer, the run id). */
  dispatch(action: RunAction, patch?: Partial<Pick<RunRecord, 'answer' | 'runId'>>): void;
  /** What reads a stream: the page's by default; the headless suite runner gives one for Node. */
  reader?: EventReader;
  /**
   * Sends the POST in the connection's turn, and again while the service refuses it for now
   * (429, 503: nothing started); without it the POST goes out at once, and a refusal is the answer.
   */
  pace?<T>(attempt: () => Promise<T>): Promise<T>;
}

const once = <T>(attempt: () => Promise<T>) => attempt();

/** A stream refused for now, thrown so that `pace` may wait and send it again; any other end is the answer. */
class RefusedForNow extends Error {
  constructor(readonly end: Extract<StreamEnd, { kind: 'refused' }>) {
    super(end.error.message);
  }
}

function asApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError('network', 0, 'Error', String(err), undefined, undefined);
}

/**
 * The request ended without an answer to use. Whatever error the fetch raised, a run whose
 * signal was aborted was stopped (a Stop during the body's read raises a plain AbortError).
 */
function ended(ctx: SendContext, err: unknown): void {
  const at = Date.now();
  if (ctx.signal.aborted) ctx.dispatch({ type: 'stop', at, note: stopNote(ctx.signal.reason, ctx.record.request.mode) });
  else ctx.dispatch({ type: 'refuse', at, error: asApiError(err) });
}

export async function sendStream(ctx: SendContext, log: StreamLog): Promise<void> {
  const attempt = async (): Promise<StreamEnd> => {
    const end = await sendStreamRun(
      ctx.connection,
      ctx.record.request,
      {
        onOpen: (meta) => {
          log.open(meta);
          ctx.dispatch({ type: 'open', at: Date.now(), meta });
        },
        onEvent: (e) => log.event(e),
      },
      ctx.signal,
      ctx.reader,
    );
    // Refused before it opened: nothing of it was read, so it may be sent again whole.
    if (ctx.pace && end.kind === 'refused') throw new RefusedForNow(end);
    return end;
  };
  let end: StreamEnd;
  try {
    end = await (ctx.pace ?? once)(async () => {
      try {
        return await attempt();
      } catch (err) {
        throw err instanceof RefusedForNow ? err.end.error : err;
      }
    });
  } catch (err) {
    // Stopped while it waited its turn (a Retry-After, the suite's rate): stopped, as a wait is, never refused.
    if (ctx.signal.aborted) end = { kind: 'stopped' };
    else end = err instanceof ApiError ? { kind: 'refused', error: err } : { kind: 'refused', error: asApiError(err) };
  }
  const failure = log.finish();
  const at = Date.now();
  switch (end.kind) {
    case 'closed':
      return ctx.dispatch({ type: 'close', at, failure });
    case 'stopped':
      return ctx.dispatch({ type: 'stop', at, note: stopNote(ctx.signal.reason, 'stream') });
    case 'refused':
      return ctx.dispatch({ type: 'refuse', at, error: end.error });
    case 'interrupted':
      return ctx.dispatch({ type: 'interrupt', at, note: end.reason, failure });
  }
}

/** A wait answer with status "error" carries the error as its last message's text. */
function waitFailure(answer: ApiResponse<RunWaitResponse>): RunFailure | undefined {
  if (answer.data?.run?.status !== 'error') return undefined;
  const last = answer.data.messages?.at(-1);
  return { title: 'The run ended with status “error”', detail: last ? transcriptOf([last]).trim() : 'The answer says no more.', requestId: answer.requestId };
}

export async function sendWait(ctx: SendContext): Promise<void> {
  const answer = (ctx.pace ?? once)(() => sendWaitRun(ctx.connection, ctx.record.request, ctx.signal));
  ctx.dispatch({ type: 'wait', at: Date.now() });
  try {
    const response = await answer;
    ctx.dispatch({ type: 'answer', at: Date.now(), meta: metaOf(response)!, failure: waitFailure(response) }, { answer: response });
  } catch (err) {
    ended(ctx, err);
  }
}

/**
 * Durable mode: one POST that answers 201 at once; from then on the run is the service's, and is
 * read. To the bundled reference service it carries the run's history id (X-Sandbox-Client-Run-Id):
 * a page reloaded before the 201 arrived finds the run again by it (history's cut-off sweep).
 */
export async function sendDurable(ctx: SendContext): Promise<void> {
  const clientRunId = ctx.record.target.mode === 'same-origin' ? ctx.record.id : undefined;
  const created = (ctx.pace ?? once)(() => createDurableRun(ctx.connection, ctx.record.request, ctx.signal, clientRunId));
  ctx.dispatch({ type: 'wait', at: Date.now() });
  let response: ApiResponse<DurableRunAnswer>;
  try {
    response = await created;
  } catch (err) {
    return ended(ctx, err);
  }
  const at = Date.now();
  const run = (response.data as Partial<DurableRunAnswer> | undefined)?.run;
  if (!run || typeof run.run_id !== 'string' || run.run_id === '') {
    return ctx.dispatch({
      type: 'fail',
      at,
      failure: {
        title: 'The answer has no run id',
        detail: `The service answered ${response.status} without run.run_id, so this console cannot follow the run. It may exist at the service; nothing was sent again.`,
        requestId: response.requestId,
        status: response.status,
      },
    });
  }
  ctx.dispatch(
    { type: 'observe', at, snapshot: { run, requestId: response.data.request_id, readAt: at, meta: response }, meta: metaOf(response) },
    { runId: run.run_id },
  );
}
