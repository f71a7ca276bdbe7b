/**
 * The console's runs, owned by the app rather than a page: leaving the runs page neither
 * stops, restarts nor duplicates a run, and coming back shows it as it is. One run is in
 * flight at a time. Each run's status changes only through the state machine's reducer; a
 * stream's events go to its StreamLog, which pages subscribe to on their own.
 */

import type { RunWaitResponse } from '../../../contract/agents';
import type { DurableRunAnswer } from '../../../contract/durable-runs';
import { transcriptOf } from '../../../contract/agents';
import { ApiError, type ApiResponse } from '../../../lib/api-client';
import type { ActiveConnection } from '../../../lib/connection';
import { sendStreamRun } from '../api/run-stream';
import { createDurableRun } from '../api/durable-run';
import { sendWaitRun } from '../api/run-wait';
import { metaOf, saveRun, type HistoryDetails, type HistoryEntry } from './history';
import { initialRunState, isActive, runReducer, type RunAction, type RunFailure, type RunState } from './run-machine';
import type { RunRequest } from './run-request';
import { StreamLog } from './stream-log';

/** Where a run went: the connection's identity at the moment it was sent, never its token. */
export interface RunTarget {
  profileId: string;
  profileLabel: string;
  mode: ActiveConnection['mode'];
  target: string;
  baseUrl: string;
  fingerprint: string;
}

export interface RunRecord {
  readonly id: string;
  readonly request: RunRequest;
  readonly target: RunTarget;
  /** Epoch ms of the click. */
  readonly startedAt: number;
  readonly state: RunState;
  /** Stream mode: what the stream delivered, as it arrives. */
  readonly log?: StreamLog;
  /** Wait mode: the answer. */
  readonly answer?: ApiResponse<RunWaitResponse>;
  /** Durable mode: the 201 that created the run; it goes on at the service, followed by its id. */
  readonly created?: ApiResponse<DurableRunAnswer>;
}

export interface RunStoreSnapshot {
  /** Newest first. */
  readonly runs: readonly RunRecord[];
  /** The run in flight, if any. */
  readonly active?: RunRecord;
}

export interface RunStoreOptions {
  /** Told after a finished run was written to history (or could not be). */
  onSaved?(record: RunRecord): void;
  save?(entry: HistoryEntry, details: HistoryDetails): Promise<void>;
  /** How many finished runs stay in memory; history keeps the rest. */
  keep?: number;
}

export type RunConnection = Pick<ActiveConnection, 'baseUrl' | 'token' | 'problem' | 'profileId' | 'profileLabel' | 'mode' | 'target' | 'fingerprint'>;

export const STOPPED_BY_YOU = 'Stopped by you.';
export const WAIT_STOPPED_BY_YOU = 'Stopped by you; the service may still finish the run.';

function newRunId(): string {
  return `run_${Date.now().toString(36)}_${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36)}`;
}

/** A wait answer with status "error" carries the error as its last message's text. */
function waitFailure(answer: ApiResponse<RunWaitResponse>): RunFailure | undefined {
  if (answer.data?.run?.status !== 'error') return undefined;
  const last = answer.data.messages?.at(-1);
  return { title: 'The run ended with status “error”', detail: last ? transcriptOf([last]).trim() : 'The answer says no more.', requestId: answer.requestId };
}

export class RunStore {
  private snapshot: RunStoreSnapshot = { runs: [] };
  private readonly listeners = new Set<() => void>();
  private readonly controllers = new Map<string, AbortController>();
  private readonly settled = new Map<string, (record: RunRecord) => void>();

  constructor(private readonly options: RunStoreOptions = {}) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): RunStoreSnapshot => this.snapshot;

  get(id: string): RunRecord | undefined {
    return this.snapshot.runs.find((r) => r.id === id);
  }

  /**
   * Sends the run's one POST. Answers undefined, sending nothing, while another run is in
   * flight: a click never queues or repeats a run.
   */
  start(connection: RunConnection, request: RunRequest, options: { onSettled?(record: RunRecord): void } = {}): RunRecord | undefined {
    if (this.snapshot.active) return undefined;
    const startedAt = Date.now();
    const record: RunRecord = {
      id: newRunId(),
      request,
      target: {
        profileId: connection.profileId,
        profileLabel: connection.profileLabel,
        mode: connection.mode,
        target: connection.target,
        baseUrl: connection.baseUrl,
        fingerprint: connection.fingerprint,
      },
      startedAt,
      state: runReducer(initialRunState, { type: 'send', at: startedAt }),
      ...(request.mode === 'stream' && { log: new StreamLog(request.flavour) }),
    };
    const abort = new AbortController();
    this.controllers.set(record.id, abort);
    const keep = this.options.keep ?? 10;
    this.publish([record, ...this.snapshot.runs].slice(0, keep));
    if (options.onSettled) this.settled.set(record.id, options.onSettled);
    if (request.mode === 'stream') void this.stream(record, connection, abort);
    else if (request.mode === 'durable') void this.durable(record, connection, abort);
    else void this.wait(record, connection, abort);
    return record;
  }

  /** Closes this browser's side of the run; the POST is not sent again. */
  stop(id: string, note: string = STOPPED_BY_YOU): void {
    this.controllers.get(id)?.abort(note);
  }

  private publish(runs: RunRecord[]): void {
    this.snapshot = { runs, active: runs.find((r) => isActive(r.state.status)) };
    for (const l of this.listeners) l();
  }

  private dispatch(id: string, action: RunAction, patch: Partial<Pick<RunRecord, 'answer' | 'created'>> = {}): void {
    const current = this.get(id);
    if (!current) return;
    const state = runReducer(current.state, action);
    if (state === current.state) return;
    const next: RunRecord = { ...current, ...patch, state };
    this.publish(this.snapshot.runs.map((r) => (r.id === id ? next : r)));
    if (!isActive(state.status)) {
      this.controllers.delete(id);
      void this.remember(next);
      const settled = this.settled.get(id);
      this.settled.delete(id);
      settled?.(next);
    }
  }

  private async stream(record: RunRecord, connection: RunConnection, abort: AbortController): Promise<void> {
    const log = record.log!;
    const end = await sendStreamRun(
      connection,
      record.request,
      {
        onOpen: (meta) => {
          log.open(meta);
          this.dispatch(record.id, { type: 'open', at: Date.now(), meta });
        },
        onEvent: (e) => log.event(e),
      },
      abort.signal,
    );
    const failure = log.finish();
    const at = Date.now();
    switch (end.kind) {
      case 'closed':
        return this.dispatch(record.id, { type: 'close', at, failure });
      case 'stopped':
        return this.dispatch(record.id, { type: 'stop', at, note: String(abort.signal.reason ?? STOPPED_BY_YOU) });
      case 'refused':
        return this.dispatch(record.id, { type: 'refuse', at, error: end.error });
      case 'interrupted':
        return this.dispatch(record.id, { type: 'interrupt', at, note: end.reason, failure });
    }
  }

  private async wait(record: RunRecord, connection: RunConnection, abort: AbortController): Promise<void> {
    const { timeoutMs } = record.request;
    const timer = timeoutMs
      ? setTimeout(() => abort.abort(`Your client-side timeout (${timeoutMs / 1000} s) ended the wait; the service may still finish the run.`), timeoutMs)
      : undefined;
    const answer = sendWaitRun(connection, record.request, abort.signal);
    this.dispatch(record.id, { type: 'wait', at: Date.now() });
    try {
      const response = await answer;
      this.dispatch(record.id, { type: 'answer', at: Date.now(), meta: metaOf(response)!, failure: waitFailure(response) }, { answer: response });
    } catch (err) {
      const at = Date.now();
      if (err instanceof ApiError && err.kind === 'aborted') {
        const reason = String(abort.signal.reason ?? STOPPED_BY_YOU);
        // Closing a wait ends only this browser's side: an instance may finish the run anyway.
        this.dispatch(record.id, { type: 'stop', at, note: reason === STOPPED_BY_YOU ? WAIT_STOPPED_BY_YOU : reason });
      } else {
        this.dispatch(record.id, { type: 'refuse', at, error: err instanceof ApiError ? err : new ApiError('network', 0, 'Error', String(err), undefined, undefined) });
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Durable mode: one POST that answers 201 at once; the run goes on at the service. */
  private async durable(record: RunRecord, connection: RunConnection, abort: AbortController): Promise<void> {
    const created = createDurableRun(connection, record.request, abort.signal);
    this.dispatch(record.id, { type: 'wait', at: Date.now() });
    try {
      const response = await created;
      this.dispatch(record.id, { type: 'answer', at: Date.now(), meta: metaOf(response)! }, { created: response });
    } catch (err) {
      const at = Date.now();
      if (err instanceof ApiError && err.kind === 'aborted') this.dispatch(record.id, { type: 'stop', at, note: String(abort.signal.reason ?? STOPPED_BY_YOU) });
      else this.dispatch(record.id, { type: 'refuse', at, error: err instanceof ApiError ? err : new ApiError('network', 0, 'Error', String(err), undefined, undefined) });
    }
  }

  private async remember(record: RunRecord): Promise<void> {
    const { state, log, answer, created } = record;
    const entry: HistoryEntry = {
      id: record.id,
      ...(created?.data.run.run_id && { runId: created.data.run.run_id }),
      startedAt: record.startedAt,
      request: record.request,
      target: { profileLabel: record.target.profileLabel, mode: record.target.mode, baseUrl: record.target.baseUrl },
      status: state.status,
      transitions: state.transitions,
      durationMs: (state.transitions.at(-1)?.at ?? record.startedAt) - record.startedAt,
      firstEventMs: log?.firstEventMs,
      eventCount: log?.events.length ?? 0,
      bytes: log?.bytes ?? (answer ?? created)?.rawBody.length ?? 0,
      transcript: log ? log.transcriptText : transcriptOf(answer?.data?.messages ?? []),
      failure: state.failure,
      problem: state.refusal?.message ?? state.note,
      meta: metaOf(state.meta),
    };
    const details: HistoryDetails = log ? { events: log.events } : { result: (answer ?? created)?.data ?? state.refusal?.body };
    await (this.options.save ?? saveRun)(entry, details).catch(() => undefined);
    this.options.onSaved?.(record);
  }
}
