/**
 * The console's runs, owned by the app rather than a page: leaving a page neither stops,
 * restarts nor duplicates a run, and coming back shows it as it is. Every run, whatever its
 * kind, is one RunRecord whose state changes only through the state machine's reducer. One
 * run is in flight at a time. A durable run is followed by reading it, with the connection
 * it was sent (or opened) with, while something shows it.
 *
 * Data flows one way: pages call the store; the store tells its subscribers that something
 * changed and never calls a page back.
 */

import { platformRunPath, platformRunsPath } from '../../../contract/run-paths';
import type { Decision, DurableRunAnswer } from '../../../contract/durable-runs';
import { apiRequest, ApiError, type ApiResponse } from '../../../lib/api-client';
import type { ActiveConnection, ConnectionIdentity } from '../../../lib/connection';
import { platformCancellationsPath, platformResponsesPath } from '../../../contract/run-paths';
import { nextPollMs } from './durable-follow';
import { saveRun, type HistoryDetails, type HistoryEntry } from './history';
import { initialRunState, isFollowed, isInFlight, isTerminal, runReducer, type RunAction, type RunStatus } from './run-machine';
import { historyEntryOf, metaOf, summaryOf, type RunRecord, type RunTarget } from './run-record';
import type { RunRequest } from './run-request';
import { sendDurable, sendStream, sendWait, type SendContext, type StopReason } from './run-senders';
import { StreamLog } from './stream-log';

export type { RunRecord, RunTarget } from './run-record';
export { STOPPED_BY_YOU, WAIT_STOPPED_BY_YOU } from './run-senders';

export interface RunStoreSnapshot {
  /** Runs sent from this console, newest first. */
  readonly runs: readonly RunRecord[];
  /** Durable runs opened by their id (a link, a reload, history), newest first. */
  readonly opened: readonly RunRecord[];
  /** The run in flight, if any. */
  readonly active?: RunRecord;
  /** Durable runs this console follows that wait for a decision. */
  readonly paused: readonly RunRecord[];
}

export interface RunStoreOptions {
  /** Told after a run was written to history (or could not be). */
  onSaved?(record: RunRecord): void;
  save?(entry: HistoryEntry, details: HistoryDetails): Promise<void>;
  /** How many runs of each origin stay in memory; history keeps the rest. */
  keep?: number;
}

export type RunConnection = Pick<ActiveConnection, 'baseUrl' | 'token' | 'problem' | 'profileId' | 'profileLabel' | 'mode' | 'target' | 'fingerprint'>;

/** Reads that say the run will never be readable with this connection: following it stops. */
const UNREADABLE = [401, 403, 404];

function newRunId(): string {
  return `run_${Date.now().toString(36)}_${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36)}`;
}

function targetOf(c: RunConnection): RunTarget {
  return { profileId: c.profileId, profileLabel: c.profileLabel, mode: c.mode, target: c.target, baseUrl: c.baseUrl, fingerprint: c.fingerprint };
}

function sameConnection(t: RunTarget, c: ConnectionIdentity): boolean {
  return t.mode === c.mode && t.target === c.target && t.fingerprint === c.fingerprint;
}

export class RunStore {
  private snapshot: RunStoreSnapshot = { runs: [], opened: [], paused: [] };
  private readonly listeners = new Set<() => void>();
  private readonly controllers = new Map<string, AbortController>();
  /** The connection each run was sent or opened with: its follow-up requests go where it went, whatever is selected now. Never persisted. */
  private readonly connections = new Map<string, RunConnection>();
  private readonly watchers = new Map<string, number>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly reading = new Map<string, Promise<void>>();
  /** Wait runs' client-side timeouts. */
  private readonly deadlines = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly readCounts = new Map<string, number>();
  /** Runs with a cancellation or decisions on their way, by how many. */
  private readonly acting = new Map<string, number>();
  /** History writes, one after another: a run's later state is never overwritten by an earlier one. */
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly options: RunStoreOptions = {}) {
    if (typeof document !== 'undefined') {
      // Reads pause while the tab is hidden and resume, at once, when it is shown.
      document.addEventListener('visibilitychange', () => {
        if (!document.hidden) for (const id of this.watchers.keys()) this.schedule(id, 0);
      });
    }
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): RunStoreSnapshot => this.snapshot;

  get(id: string): RunRecord | undefined {
    return this.snapshot.runs.find((r) => r.id === id) ?? this.snapshot.opened.find((r) => r.id === id);
  }

  /** The record history's entry `historyId` is shown by: the run itself, or the record it was opened as. */
  forEntry(historyId: string): RunRecord | undefined {
    // The run sent from here, else the latest opening of it (an earlier one may have been refused to another token).
    return this.snapshot.runs.find((r) => r.id === historyId) ?? this.snapshot.opened.find((r) => r.historyId === historyId);
  }

  /** The durable run `runId` of `agentId` as this connection sees it, if the console holds it. */
  find(connection: ConnectionIdentity, agentId: string, runId: string): RunRecord | undefined {
    const match = (r: RunRecord) => r.runId === runId && r.request.agentId === agentId && sameConnection(r.target, connection);
    return this.snapshot.runs.find(match) ?? this.snapshot.opened.find(match);
  }

  /**
   * Sends the run's one POST. Answers undefined, sending nothing, while another run is in
   * flight: a click never queues or repeats a run.
   */
  start(connection: RunConnection, request: RunRequest): RunRecord | undefined {
    if (this.snapshot.active) return undefined;
    return this.launch(connection, request);
  }

  /**
   * Sends two runs at once, one POST each, for a comparison ("Run on both"). Like `start`,
   * sends nothing while a run is in flight.
   */
  startPair(a: { connection: RunConnection; request: RunRequest }, b: { connection: RunConnection; request: RunRequest }): [RunRecord, RunRecord] | undefined {
    if (this.snapshot.active) return undefined;
    const first = this.launch(a.connection, a.request);
    return [first, this.launch(b.connection, b.request)];
  }

  /** Every in-flight run (two during a comparison). */
  inFlight(): RunRecord[] {
    return this.snapshot.runs.filter((r) => isInFlight(r.state.status));
  }

  private launch(connection: RunConnection, request: RunRequest): RunRecord {
    const startedAt = Date.now();
    const record: RunRecord = {
      id: newRunId(),
      origin: 'sent',
      request,
      target: targetOf(connection),
      startedAt,
      state: runReducer(initialRunState, { type: 'send', at: startedAt }),
      ...(request.mode === 'stream' && { log: new StreamLog(request.flavour, undefined, undefined, request.thread !== undefined) }),
    };
    const abort = new AbortController();
    this.controllers.set(record.id, abort);
    this.connections.set(record.id, connection);
    // Only the run shown keeps its full log; the others keep their counts (history has the rest).
    const older = this.snapshot.runs.map((r) => (r.log && !isInFlight(r.state.status) ? { ...r, log: undefined, summary: summaryOf(r.log) } : r));
    this.setRuns([record, ...older]);
    const ctx: SendContext = { record, connection, signal: abort.signal, dispatch: (action, patch) => this.dispatch(record.id, action, patch) };
    if (request.mode === 'wait' && request.timeoutMs) {
      const ms = request.timeoutMs;
      this.deadlines.set(record.id, setTimeout(() => this.timeOut(record.id, ms), ms));
    }
    if (request.mode === 'stream') void sendStream(ctx, record.log!);
    else if (request.mode === 'durable') void sendDurable(ctx);
    else void sendWait(ctx);
    return record;
  }

  /** Closes this browser's side of the run; the POST is not sent again. */
  stop(id: string, reason: StopReason = { kind: 'user' }): void {
    this.controllers.get(id)?.abort(reason);
  }

  /** Ends a wait that has run for `ms` (the client-side timeout). */
  timeOut(id: string, ms: number): void {
    this.stop(id, { kind: 'timeout', ms });
  }

  /**
   * A durable run by its id, read with this connection: the record the console holds for it,
   * or a new one (`entry`, when history kept the run, gives its request and keeps it up to date).
   */
  open(connection: RunConnection, agentId: string, runId: string, entry?: HistoryEntry): RunRecord {
    const held = this.find(connection, agentId, runId);
    // A run that could not be read is opened afresh: asking again is how "Read again" works.
    if (held && !(held.origin === 'opened' && held.state.status === 'refused')) return held;
    // History's id names the record only while no other record holds it: a run sent from here
    // keeps its id (and the connection it was sent with) when it is opened with another one.
    const holder = entry && this.get(entry.id);
    const id = entry && (!holder || (holder === held && held.origin === 'opened')) ? entry.id : `opened_${newRunId()}`;
    const record: RunRecord = {
      id,
      origin: 'opened',
      request: entry?.request ?? { agentId, flavour: 'platform', mode: 'durable', path: platformRunsPath(agentId), body: {} },
      target: targetOf(connection),
      startedAt: entry?.startedAt ?? Date.now(),
      // The states history saw (decisions included) stay the run's; reads add what follows.
      state: entry?.transitions ? { ...initialRunState, transitions: entry.transitions } : initialRunState,
      runId,
      ...(entry && {
        historyId: entry.id,
        fromHistory: { final: isTerminal(entry.status as RunStatus), ...(entry.imported && { imported: entry.imported }) },
      }),
    };
    this.connections.set(record.id, connection);
    const keep = this.options.keep ?? 10;
    this.publish({ ...this.snapshot, opened: [record, ...this.snapshot.opened.filter((r) => r.id !== record.id && r !== held)].slice(0, keep) });
    void this.read(record.id);
    return record;
  }

  /** Follows a durable run (reads it again and again, backing off) while anything watches it. */
  watch(id: string): () => void {
    this.watchers.set(id, (this.watchers.get(id) ?? 0) + 1);
    this.schedule(id, 0);
    return () => {
      const n = (this.watchers.get(id) ?? 1) - 1;
      if (n > 0) return void this.watchers.set(id, n);
      this.watchers.delete(id);
      clearTimeout(this.timers.get(id));
      this.timers.delete(id);
    };
  }

  /** Reads a durable run now (once; a read already under way is joined). */
  read(id: string): Promise<void> {
    const pending = this.reading.get(id);
    if (pending) return pending;
    const record = this.get(id);
    const connection = this.connections.get(id);
    if (!record?.runId || !connection || isTerminal(record.state.status)) return Promise.resolve();
    const p = apiRequest<DurableRunAnswer>(connection, platformRunPath(record.request.agentId, record.runId))
      .then(
        (answer) => {
          if (!this.acting.has(id)) this.observed(id, answer);
        },
        (err: unknown) => {
          if (err instanceof ApiError) this.dispatch(id, { type: 'read-failed', at: Date.now(), error: err });
        },
      )
      .finally(() => {
        this.reading.delete(id);
        // A record let go while its read was under way leaves nothing behind.
        if (this.get(id)) this.readCounts.set(id, (this.readCounts.get(id) ?? 0) + 1);
      });
    this.reading.set(id, p);
    return p;
  }

  /** Asks the service to cancel a durable run; throws the service's refusal (a 409 is read again: the run moved on). */
  cancel(id: string): Promise<void> {
    return this.act(id, platformCancellationsPath, (runId) => ({ run_id: runId }), { type: 'cancel-requested', at: 0 });
  }

  /** Sends one decision per pending approval, in one batch. */
  respond(id: string, decisions: Record<string, Decision>): Promise<void> {
    const pending = this.get(id)?.state.durable?.run.pending_interactions ?? [];
    const named = Object.entries(decisions).map(([interactionId, decision]) => ({
      name: pending.find((p) => p.interaction_id === interactionId)?.display_name ?? interactionId,
      decision,
    }));
    return this.act(
      id,
      platformResponsesPath,
      (runId) => ({ run_id: runId, responses: Object.entries(decisions).map(([interaction_id, decision]) => ({ interaction_id, decision })) }),
      { type: 'decided', at: 0, decisions: named },
    );
  }

  private async act(id: string, pathOf: (agentId: string) => string, bodyOf: (runId: string) => unknown, accepted: RunAction): Promise<void> {
    const record = this.get(id);
    const connection = this.connections.get(id);
    if (!record?.runId || !connection) throw new Error('This run is no longer held by the console; open it again by its id.');
    // Until this answer is in, reads are not applied: one that saw the run go on first would
    // leave the paused state before the decision could be noted in it.
    this.acting.set(id, (this.acting.get(id) ?? 0) + 1);
    try {
      const answer = await apiRequest<DurableRunAnswer>(connection, pathOf(record.request.agentId), { method: 'POST', body: bodyOf(record.runId) });
      this.dispatch(id, { ...accepted, at: Date.now() });
      this.observed(id, answer);
    } catch (err) {
      // Whatever happened, read the run again: a 409 means it moved on. (Its answer comes after the hold below is let go.)
      void this.read(id);
      throw err;
    } finally {
      const n = (this.acting.get(id) ?? 1) - 1;
      if (n > 0) this.acting.set(id, n);
      else this.acting.delete(id);
    }
  }

  private observed(id: string, answer: ApiResponse<DurableRunAnswer>): void {
    const at = Date.now();
    const run = answer.data?.run;
    if (!run) return;
    this.dispatch(id, { type: 'observe', at, snapshot: { run, requestId: answer.data.request_id, readAt: at, meta: answer }, meta: metaOf(answer) });
  }

  private schedule(id: string, delayMs: number): void {
    if (this.timers.has(id) || !this.watchers.has(id)) return;
    const record = this.get(id);
    if (!record?.runId || isTerminal(record.state.status) || UNREADABLE.includes(record.state.readError?.status ?? 0)) return;
    if (typeof document !== 'undefined' && document.hidden) return;
    this.timers.set(
      id,
      setTimeout(() => {
        this.timers.delete(id);
        void this.read(id).then(() => {
          // A change of state may have scheduled the next read already; then this one is not added.
          const now = this.get(id);
          const next = now?.state.durable ? nextPollMs(now.state.durable.run, this.readCounts.get(id) ?? 0) : false;
          if (next !== false) this.schedule(id, next);
        });
      }, delayMs),
    );
  }

  private setRuns(runs: RunRecord[]): void {
    const keep = this.options.keep ?? 10;
    this.publish({ ...this.snapshot, runs: runs.slice(0, keep) });
  }

  /** What a record dropped out of memory leaves behind: its connection, its timers. */
  private release(dropped: readonly RunRecord[]): void {
    for (const r of dropped) {
      if (this.get(r.id)) continue;
      this.connections.delete(r.id);
      this.watchers.delete(r.id);
      this.readCounts.delete(r.id);
      clearTimeout(this.timers.get(r.id));
      this.timers.delete(r.id);
    }
  }

  private publish(next: Omit<RunStoreSnapshot, 'active' | 'paused'>): void {
    const all = [...next.runs, ...next.opened];
    const before = [...this.snapshot.runs, ...this.snapshot.opened];
    this.snapshot = {
      runs: next.runs,
      opened: next.opened,
      active: next.runs.find((r) => isInFlight(r.state.status)),
      paused: all.filter((r) => r.state.status === 'REQUIRES_INPUT'),
    };
    if (before.length > all.length || before.some((r) => !all.includes(r))) this.release(before);
    for (const l of this.listeners) l();
  }

  private dispatch(id: string, action: RunAction, patch: Partial<Pick<RunRecord, 'answer' | 'runId'>> = {}): void {
    const current = this.get(id);
    if (!current) return;
    const state = runReducer(current.state, action);
    if (state === current.state && Object.keys(patch).length === 0) return;
    const next: RunRecord = { ...current, ...patch, state };
    const replace = (list: readonly RunRecord[]) => list.map((r) => (r.id === id ? next : r));
    this.publish({ runs: replace(this.snapshot.runs), opened: replace(this.snapshot.opened) });
    if (isInFlight(current.state.status) && !isInFlight(state.status)) {
      this.controllers.delete(id);
      clearTimeout(this.deadlines.get(id));
      this.deadlines.delete(id);
    }
    // History keeps each change of state (a read that changed nothing is not written again).
    if (state.transitions !== current.state.transitions && !isInFlight(state.status) && this.writesHistory(next)) void this.remember(next);
    // A new state is read again soon (backing off afresh): a paused run's slow reads must not delay what follows an approval.
    if (isFollowed(state.status) && state.status !== current.state.status) {
      clearTimeout(this.timers.get(id));
      this.timers.delete(id);
      this.readCounts.set(id, 0);
      this.schedule(id, isFollowed(current.state.status) ? nextPollMs(state.durable!.run, 0) || 0 : 0);
    }
  }

  /**
   * Whether a change of this record is history's to keep: a run sent from here, always; a run
   * opened from history only while its entry may still change, and never a failed read (that
   * says what this connection may read, not how the run went).
   */
  private writesHistory(record: RunRecord): boolean {
    if (record.origin === 'sent') return true;
    return record.historyId !== undefined && !record.fromHistory?.final && record.state.status !== 'refused';
  }

  /**
   * Ends this browser's side of every run in flight and resolves once history holds
   * everything the store meant to write (a test ends here, so its writes never land in the next).
   */
  async settle(): Promise<void> {
    for (const r of this.inFlight()) this.stop(r.id);
    for (let i = 0; i < 100 && this.inFlight().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    let last: Promise<void>;
    do {
      last = this.saving;
      await last;
    } while (last !== this.saving);
  }

  private async remember(record: RunRecord): Promise<void> {
    const entry = historyEntryOf(record);
    const details: HistoryDetails = record.log
      ? { events: record.log.events }
      : { result: record.answer?.data ?? record.state.durable?.run ?? record.state.refusal?.body };
    const save = this.options.save ?? saveRun;
    this.saving = this.saving.then(() => save(entry, details).catch(() => undefined));
    await this.saving;
    this.options.onSaved?.(record);
  }
}
