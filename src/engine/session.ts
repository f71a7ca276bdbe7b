/**
 * One run, headless: its one POST (stream, wait or durable), then for a durable run reading it,
 * deciding its approvals and cancelling it, every request paced by the connection's Pacer (one
 * retry policy: 429, 503, Retry-After, back-off with jitter, a request budget). The run is one
 * RunRecord changed only by the state machine's reducer; whoever holds the session is told of
 * each change (`onChange`). The page's run store adds history writes, locks and subscriptions on
 * top; the suite runner adds policies, deadlines and judging. No DOM, no database.
 */
import { platformCancellationsPath, platformResponsesPath, platformRunPath } from '../contract/run-paths';
import type { Decision, DurableRun, DurableRunAnswer } from '../contract/durable-runs';
import { apiRequest, ApiError, type ApiResponse } from '../lib/api-client';
import type { Connection } from '../lib/connection';
import type { EventReader } from '../lib/sse';
import { nextPollMs } from './durable-follow';
import { pause, PacingAborted, retryAfterMs, type Pacer } from './pacing';
import { initialRunState, isFollowed, isTerminal, runReducer, type RunAction, type RunDecision } from './run-machine';
import { metaOf, type RunRecord } from './run-record';
import type { RunRequest } from './run-request';
import { sendDurable, sendStream, sendWait, type SendContext } from './run-senders';
import type { Schedule } from './render-throttle';
import { StreamLog } from './stream-log';

/** Reads that say the run will never be readable with this connection: following it stops. */
export const UNREADABLE = [401, 403, 404];

export type SessionConnection = Pick<Connection, 'baseUrl' | 'token' | 'problem'>;

export interface SessionEnv {
  /** Where every request of the run goes, fixed when it was sent (or opened): never what is selected now. */
  connection: SessionConnection;
  pacer: Pacer;
  /** Reads a stream: the page's by default; Node's for `npm run suite`. */
  reader?: EventReader;
  /** When a stream's log tells its listeners. */
  schedule?: Schedule;
  /**
   * Whether a run the service refused for now (429, 503: nothing was started) is sent again once
   * it allows: a suite's runs. A run a user sent shows the refusal instead, with its Retry-After.
   */
  resendRefused?: boolean;
}

/** A decision on one pending approval, with the names history and reports show it by. */
export interface NamedDecision {
  interactionId: string;
  decision: Decision;
  name: string;
  toolId?: string;
}

/** The user's decisions, by interaction id, named as the run asked for them. */
export function namedDecisions(record: RunRecord, decisions: Record<string, Decision>): NamedDecision[] {
  const pending = record.state.durable?.run.pending_interactions ?? [];
  return Object.entries(decisions).map(([interactionId, decision]) => {
    const asked = pending.find((p) => p.interaction_id === interactionId);
    return { interactionId, decision, name: asked?.display_name ?? interactionId, ...(asked?.tool_id && { toolId: asked.tool_id }) };
  });
}

export interface FollowOptions {
  signal: AbortSignal;
  /** Epoch ms past which following gives up ('deadline'). */
  until?: number;
  /** Read at once rather than after the first wait (a run just opened, or watched again). */
  readFirst?: boolean;
  /** Waited before each read: the page waits while its tab is hidden. */
  gate?(signal: AbortSignal): Promise<void>;
  /**
   * Told when the run waits for approvals it has not been told of yet (each batch once, until a
   * decision on it is accepted): a suite's policy answers here. Answers whether it acted.
   */
  onPaused?(run: DurableRun): Promise<boolean>;
}

export type FollowEnd = 'ended' | 'unreadable' | 'deadline' | 'stopped';

export function newRunId(prefix = 'run'): string {
  return `${prefix}_${Date.now().toString(36)}_${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36)}`;
}

/** A new record for a run about to be sent. */
export function newRunRecord(request: RunRequest, target: RunRecord['target'], options: { idPrefix?: string; schedule?: Schedule } = {}): RunRecord {
  const startedAt = Date.now();
  return {
    id: newRunId(options.idPrefix),
    origin: 'sent',
    request,
    target,
    startedAt,
    state: runReducer(initialRunState, { type: 'send', at: startedAt }),
    ...(request.mode === 'stream' && { log: new StreamLog(request.flavour, undefined, options.schedule, request.thread !== undefined) }),
  };
}

export class RunSession {
  private current: RunRecord;
  private reading?: Promise<void>;
  /** Decisions or a cancellation on their way: a read's answer is not applied meanwhile (it may predate them). */
  private acting = 0;
  private wakeUp?: () => void;

  constructor(
    record: RunRecord,
    readonly env: SessionEnv,
    private readonly onChange: (record: RunRecord, previous: RunRecord, action: RunAction) => void = () => undefined,
  ) {
    this.current = record;
  }

  get record(): RunRecord {
    return this.current;
  }

  /** A read, a decision or a cancellation is on its way. */
  get busy(): boolean {
    return this.reading !== undefined || this.acting > 0;
  }

  /** Replaces the record without an action (the store lets a shown log go): no change of state. */
  replace(record: RunRecord): void {
    this.current = record;
  }

  /** Applies an action; `patch` joins the record (the answer, the run id). */
  dispatch(action: RunAction, patch: Partial<Pick<RunRecord, 'answer' | 'runId' | 'startedAt'>> = {}): void {
    const previous = this.current;
    const state = runReducer(previous.state, action);
    if (state === previous.state && Object.keys(patch).length === 0) return;
    this.current = { ...previous, ...patch, state };
    // A follow loop's wait ends at a change of state, and when a refusal it waits out no longer stands (a read got through).
    if (state.status !== previous.state.status || (previous.state.readError && !state.readError)) this.wakeUp?.();
    this.onChange(this.current, previous, action);
  }

  /**
   * The run's one POST, to its end (a durable run: until its 201). Sent again only when the
   * service refused it for now and `resendRefused` says so, and (`until`, epoch ms) only when
   * the service's wait ends before then; never after no answer.
   */
  async send(signal: AbortSignal, options: { until?: number } = {}): Promise<void> {
    const ctx: SendContext = {
      record: this.current,
      connection: this.env.connection as Connection,
      signal,
      dispatch: (action, patch) => this.dispatch(action, patch),
      ...(this.env.reader && { reader: this.env.reader }),
      ...(this.env.resendRefused && { pace: <T>(attempt: () => Promise<T>) => this.env.pacer.send(attempt, { temporary: true, network: false, signal, ...(options.until !== undefined && { until: options.until }) }) }),
    };
    const { request } = this.current;
    if (request.mode === 'stream') await sendStream(ctx, this.current.log!);
    else if (request.mode === 'durable') await sendDurable(ctx);
    else await sendWait(ctx);
  }

  /** Reads the durable run once; a read already under way is joined. A refusal is noted (`readError`), never thrown. */
  read(signal?: AbortSignal): Promise<void> {
    if (this.reading) return this.reading;
    const { runId, request } = this.current;
    if (!runId || isTerminal(this.current.state.status)) return Promise.resolve();
    const p = this.request<DurableRunAnswer>(platformRunPath(request.agentId, runId), undefined, signal)
      .then(
        (answer) => {
          if (!this.acting) this.observed(answer);
        },
        (err: unknown) => {
          if (err instanceof ApiError && err.kind !== 'aborted') this.dispatch({ type: 'read-failed', at: Date.now(), error: err });
        },
      )
      .finally(() => {
        this.reading = undefined;
      });
    this.reading = p;
    return p;
  }

  /** Whether the last read said the run can never be read with this connection. */
  get unreadable(): boolean {
    return UNREADABLE.includes(this.current.state.readError?.status ?? 0);
  }

  /** Sends one decision per pending approval, in one batch; throws the service's refusal (the run is then read again). */
  decide(decisions: readonly NamedDecision[], signal?: AbortSignal): Promise<ApiResponse<DurableRunAnswer>> {
    const named: RunDecision[] = decisions.map((d) => ({ name: d.name, ...(d.toolId && { toolId: d.toolId }), decision: d.decision }));
    return this.act(
      platformResponsesPath,
      (runId) => ({ run_id: runId, responses: decisions.map((d) => ({ interaction_id: d.interactionId, decision: d.decision })) }),
      { type: 'decided', at: 0, decisions: named },
      signal,
    );
  }

  /** Asks the service to cancel the run; throws its refusal (a 409: the run moved on, and is read again). */
  cancel(signal?: AbortSignal): Promise<ApiResponse<DurableRunAnswer>> {
    return this.act(platformCancellationsPath, (runId) => ({ run_id: runId }), { type: 'cancel-requested', at: 0 }, signal);
  }

  private async act(pathOf: (agentId: string) => string, bodyOf: (runId: string) => unknown, accepted: RunAction, signal?: AbortSignal): Promise<ApiResponse<DurableRunAnswer>> {
    const { runId, request } = this.current;
    if (!runId) throw new Error('This run has no id from the service yet: there is nothing to act on.');
    this.acting++;
    try {
      const answer = await this.request<DurableRunAnswer>(pathOf(request.agentId), bodyOf(runId), signal);
      this.dispatch({ ...accepted, at: Date.now() });
      this.observed(answer);
      return answer;
    } catch (err) {
      // Whatever the service answered, the run is read again once this is over: a 409 means it moved
      // on. Not when the caller gave up (a stopped suite): nothing more is sent for it.
      if (!signal?.aborted) queueMicrotask(() => void this.read());
      throw err;
    } finally {
      this.acting--;
    }
  }

  /** A request of the run after its POST: paced, and sent again after a temporary refusal or no answer. */
  private request<T>(path: string, body: unknown, signal?: AbortSignal): Promise<ApiResponse<T>> {
    const init = body === undefined ? { signal } : { method: 'POST', body, signal };
    return this.env.pacer
      .send(() => apiRequest<T>(this.env.connection as Connection, path, init), { temporary: true, network: true, ...(signal && { signal }) })
      .catch((err: unknown) => {
        if (err instanceof PacingAborted) throw new ApiError('aborted', 0, 'Cancelled', 'The request was cancelled.', undefined, undefined);
        throw err;
      });
  }

  /** Applies what an answer says the run is now. */
  observed(answer: ApiResponse<DurableRunAnswer>): void {
    const at = Date.now();
    const run = (answer.data as Partial<DurableRunAnswer> | undefined)?.run;
    if (!run) return;
    this.dispatch({ type: 'observe', at, snapshot: { run, requestId: answer.data.request_id, readAt: at, meta: answer }, meta: metaOf(answer) });
  }

  /**
   * Follows a durable run: reads it at the console's pace (every second at first, backing off;
   * every 5 s while paused; afresh after each change of state) until it ends, cannot be read,
   * `until` passes or the signal aborts. Waits of the connection's pacer (a Retry-After) come
   * on top, never instead.
   */
  async follow(options: FollowOptions): Promise<FollowEnd> {
    const { signal, until } = options;
    let reads = 0;
    let first = options.readFirst ?? false;
    let told = '';
    while (isFollowed(this.current.state.status)) {
      if (signal.aborted) return 'stopped';
      if (until !== undefined && Date.now() >= until) return 'deadline';
      const run = this.current.state.durable?.run;
      const batch = run?.state === 'REQUIRES_INPUT' ? (run.pending_interactions ?? []).map((p) => p.interaction_id).join(' ') : '';
      if (run && batch && batch !== told && options.onPaused) {
        const status = this.current.state.status;
        // Marked told only once it acted: a decision refused for now (503, no answer) is sent again.
        if (await options.onPaused(run)) told = batch;
        if (this.current.state.status !== status) {
          reads = 0;
          continue;
        }
      }
      const poll = first ? 0 : nextPollMs(run, reads);
      if (poll === false) break;
      // A read refused with a Retry-After longer than the pacer waits out (so not held there) is
      // not asked again before it has passed: the console's own pace would ask every second.
      const refused = first ? undefined : this.current.state.readError;
      const wait = Math.max(poll, (refused && retryAfterMs(refused)) ?? 0);
      first = false;
      const status = this.current.state.status;
      try {
        await this.sleep(until !== undefined ? Math.min(wait, Math.max(0, until - Date.now())) : wait, signal);
        await options.gate?.(signal);
      } catch (err) {
        if (err instanceof PacingAborted) return 'stopped';
        throw err;
      }
      if (this.current.state.status !== status || (refused && !this.current.state.readError)) {
        // Woken by a change (a decision's answer, a read that got through): the wait starts afresh from the new state.
        reads = 0;
        continue;
      }
      await this.read(signal);
      if (signal.aborted) return 'stopped';
      if (this.unreadable) return 'unreadable';
      reads = this.current.state.status === status ? reads + 1 : 0;
    }
    return 'ended';
  }

  /** Waits `ms`, or until the run's status changes, or the signal aborts (PacingAborted). */
  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    const woken = new Promise<void>((resolve) => {
      this.wakeUp = resolve;
    });
    const controller = new AbortController();
    const stop = () => controller.abort();
    signal.addEventListener('abort', stop, { once: true });
    return Promise.race([pause(ms, controller.signal), woken.then(() => controller.abort())])
      .catch((err: unknown) => {
        if (signal.aborted) throw err;
      })
      .finally(() => {
        signal.removeEventListener('abort', stop);
        this.wakeUp = undefined;
      });
  }
}

