/**
 * The console's runs in flight, owned by the app rather than a page: leaving a page neither
 * stops, restarts nor duplicates a run, and coming back shows it as it is. Every run, whatever
 * its kind, is one RunRecord whose state changes only through the state machine's reducer, and
 * every change is written through to history (the browser database), which is where pages,
 * other panes and other tabs read it. The store holds only what lives while a run is in flight
 * or followed, one Flight per run (controller, timers, connection, watchers), and the log of
 * the run shown last. One run is in flight at a time. A durable run is followed by reading
 * it, with the connection it was sent (or opened) with, while something watches it.
 *
 * Data flows one way: pages call the store; the store tells its subscribers that something
 * changed and never calls a page back.
 */

import { platformCancellationsPath, platformResponsesPath, platformRunPath, platformRunsPath } from '../contract/run-paths';
import type { Decision, DurableRunAnswer } from '../contract/durable-runs';
import { apiRequest, ApiError, type ApiResponse } from '../lib/api-client';
import type { ActiveConnection, ConnectionIdentity } from '../lib/connection';
import { nextPollMs } from './durable-follow';
import { Flight } from './flight';
import type { HistoryDetails, HistoryEntry } from './history-entry';
import { initialRunState, isFollowed, isInFlight, isTerminal, runReducer, type RunAction, type RunStatus } from './run-machine';
import { detailsOf, historyEntryOf, metaOf, summaryOf, type RunRecord, type RunTarget } from './run-record';
import type { RunRequest } from './run-request';
import { sendDurable, sendStream, sendWait, type SendContext, type StopReason } from './run-senders';
import { StreamLog } from './stream-log';
import type { Schedule } from './render-throttle';

export type { RunRecord, RunTarget } from './run-record';
export { STOPPED_BY_YOU, WAIT_STOPPED_BY_YOU } from './run-senders';

export interface RunStoreSnapshot {
  /** Runs sent from this console that it still holds, newest first. */
  readonly runs: readonly RunRecord[];
  /** Durable runs opened by their id (a link, a reload, history) that it holds, newest first. */
  readonly opened: readonly RunRecord[];
  /** The run in flight, if any. */
  readonly active?: RunRecord;
  /** Durable runs this console follows that wait for a decision. */
  readonly paused: readonly RunRecord[];
}

export type WriteRun = (entry: HistoryEntry, details: HistoryDetails | undefined, options: { create?: boolean }) => Promise<unknown>;

export interface RunStoreOptions {
  /** Told after a change of a run was written to history (or could not be). */
  onSaved?(record: RunRecord): void;
  /** Writes a run's change through to history (by default the browser database). */
  save?: WriteRun;
  /** Ended runs sent from here kept in memory, newest first (their log is the one shown): a pair's two. */
  keep?: number;
  /** Durable runs read at once; the others wait their turn (none is dropped). */
  maxReads?: number;
  /** Holds a lock named `name` until the returned release is called (the page's Web Locks); none by default. */
  lock?: (name: string) => Promise<() => void>;
  /** Whether the page is hidden now, and how to hear that it is shown again (reads pause while hidden). */
  visibility?: Visibility;
  /** When a stream's log tells its listeners (the page's animation frames). */
  schedule?: Schedule;
}

export interface Visibility {
  hidden(): boolean;
  onShown(fn: () => void): void;
}

export type RunConnection = Pick<ActiveConnection, 'baseUrl' | 'token' | 'problem' | 'profileId' | 'profileLabel' | 'mode' | 'target' | 'fingerprint'>;

/** Reads that say the run will never be readable with this connection: following it stops. */
export const UNREADABLE = [401, 403, 404];

/** The Web Lock a tab holds while its request of a run is open: a run in flight that no tab holds was cut off by a close or reload. */
export const RUN_LOCK_PREFIX = 'mac-run:';

function newRunId(): string {
  return `run_${Date.now().toString(36)}_${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36)}`;
}

function targetOf(c: RunConnection): RunTarget {
  return { profileId: c.profileId, profileLabel: c.profileLabel, mode: c.mode, target: c.target, baseUrl: c.baseUrl, fingerprint: c.fingerprint };
}

function sameConnection(t: RunTarget, c: ConnectionIdentity): boolean {
  return t.mode === c.mode && t.target === c.target && t.fingerprint === c.fingerprint;
}


/**
 * What history keeps of a run's answer, once it ended: a wait answer's body as received, one
 * string to clone however many messages it holds; else as run-record's detailsOf says.
 */
function historyDetailsOf(record: RunRecord): HistoryDetails {
  if (!record.log && record.answer?.rawBody !== undefined) return { resultText: record.answer.rawBody };
  return detailsOf(record);
}

/** Whether history holds what finds the run again after a reload: a durable run's id, else the entry itself. */
function findable(record: RunRecord): boolean {
  return record.request.mode !== 'durable' || record.runId !== undefined || isTerminal(record.state.status);
}

const noSave: WriteRun = async () => undefined;

export class RunStore {
  private snapshot: RunStoreSnapshot = { runs: [], opened: [], paused: [] };
  private readonly listeners = new Set<() => void>();
  private readonly flights = new Map<string, Flight>();
  /** Reads of durable runs waiting for a free slot. */
  private readonly readQueue: (() => void)[] = [];
  private readsInFlight = 0;
  /** Runs whose first write has reached history (`storedRuns`). */
  private stored = 0;
  /** Writes not landed yet, for `settle`. */
  private readonly writes = new Set<Promise<unknown>>();

  constructor(private readonly options: RunStoreOptions = {}) {
    // Reads pause while the tab is hidden and resume, at once, when it is shown.
    options.visibility?.onShown(() => {
      for (const f of this.flights.values()) if (f.watchers > 0) this.schedule(f, 0);
    });
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): RunStoreSnapshot => this.snapshot;

  get(id: string): RunRecord | undefined {
    return this.flights.get(id)?.record;
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
   * How many runs' first writes have reached history so far. A read of history begun after a
   * run's (`storedAt`) would have found it: if it did not, the run was cleared or let go since,
   * and is not shown from memory as if history still had it.
   */
  get storedRuns(): number {
    return this.stored;
  }

  /** When the run's first write reached history (`storedRuns` then), if it has. */
  storedAt(id: string): number | undefined {
    return this.flights.get(id)?.storedAt;
  }

  /**
   * Resolves once history holds what a reload needs to find the run again (its entry; for a
   * durable run, the id the service gave it): an address that names the run works from then on.
   */
  kept(id: string): Promise<void> {
    return this.flights.get(id)?.whenKept() ?? Promise.resolve();
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
      ...(request.mode === 'stream' && { log: new StreamLog(request.flavour, undefined, this.options.schedule, request.thread !== undefined) }),
    };
    const flight = new Flight(record, connection);
    const abort = new AbortController();
    flight.controller = abort;
    // Only the run shown keeps its full log; the others keep their counts (history has the rest).
    for (const f of this.flights.values()) {
      const r = f.record;
      if (r.origin === 'sent' && r.log && !isInFlight(r.state.status)) f.record = { ...r, log: undefined, summary: summaryOf(r.log) };
    }
    this.flights.set(record.id, flight);
    this.trim();
    this.publish();
    // The entry is written first, once this tab holds the run's lock (another tab then never takes it for cut off).
    this.enqueue(
      flight,
      this.lock(flight).then(() => this.write(flight, record, { create: true })),
    );
    const ctx: SendContext = { record, connection, signal: abort.signal, dispatch: (action, patch) => this.dispatch(record.id, action, patch) };
    if (request.mode === 'wait' && request.timeoutMs) {
      const ms = request.timeoutMs;
      flight.deadline = setTimeout(() => this.timeOut(record.id, ms), ms);
    }
    if (request.mode === 'stream') void sendStream(ctx, record.log!);
    else if (request.mode === 'durable') void sendDurable(ctx);
    else void sendWait(ctx);
    return record;
  }

  /** Holds a Web Lock named after the run until its request is over. */
  private async lock(flight: Flight): Promise<void> {
    if (!this.options.lock) return;
    try {
      flight.releaseLock = await this.options.lock(`${RUN_LOCK_PREFIX}${flight.record.id}`);
    } catch {
      // No lock to be had: the run goes on; a sweep may then take it for cut off only once it is over.
    }
  }

  /** Closes this browser's side of the run; the POST is not sent again. */
  stop(id: string, reason: StopReason = { kind: 'user' }): void {
    this.flights.get(id)?.controller?.abort(reason);
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
    if (held) this.drop(held.id);
    const record: RunRecord = {
      id,
      origin: 'opened',
      request: entry?.request ?? { agentId, flavour: 'platform', mode: 'durable', path: platformRunsPath(agentId), body: {} },
      target: targetOf(connection),
      // A run opened without history starts when the service created it (set at its first read).
      startedAt: entry?.startedAt ?? Date.now(),
      // The states history saw (decisions included) stay the run's; reads add what follows.
      state: entry?.transitions ? { ...initialRunState, transitions: entry.transitions } : initialRunState,
      runId,
      ...(entry && {
        historyId: entry.id,
        fromHistory: { final: isTerminal(entry.status as RunStatus), ...(entry.imported && { imported: entry.imported }) },
      }),
    };
    const flight = new Flight(record, connection);
    flight.markKept();
    this.flights.set(id, flight);
    this.publish();
    void this.read(id);
    return record;
  }

  /** Follows a durable run (reads it again and again, backing off) while anything watches it. */
  watch(id: string): () => void {
    const flight = this.flights.get(id);
    if (!flight) return () => undefined;
    flight.watchers++;
    flight.watched = true;
    this.schedule(flight, 0);
    return () => {
      if (this.flights.get(id) !== flight) return;
      flight.watchers = Math.max(0, flight.watchers - 1);
      if (flight.watchers > 0) return;
      clearTimeout(flight.timer);
      flight.timer = undefined;
      this.trim();
    };
  }

  /** Reads a durable run now (once; a read already under way is joined). At most `maxReads` are read at once. */
  read(id: string): Promise<void> {
    const flight = this.flights.get(id);
    if (!flight) return Promise.resolve();
    if (flight.reading) return flight.reading;
    const record = flight.record;
    if (!record.runId || isTerminal(record.state.status)) return Promise.resolve();
    const runId = record.runId;
    const p = this.readSlot()
      .then(() => apiRequest<DurableRunAnswer>(flight.connection, platformRunPath(record.request.agentId, runId)))
      .then(
        (answer) => {
          if (!flight.acting) this.observed(id, answer);
        },
        (err: unknown) => {
          if (err instanceof ApiError) this.dispatch(id, { type: 'read-failed', at: Date.now(), error: err });
        },
      )
      .finally(() => {
        this.freeSlot();
        flight.reading = undefined;
        flight.readCount++;
        this.trim();
      });
    flight.reading = p;
    return p;
  }

  private readSlot(): Promise<void> {
    const max = this.options.maxReads ?? 4;
    if (this.readsInFlight < max) {
      this.readsInFlight++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.readQueue.push(() => {
        this.readsInFlight++;
        resolve();
      }),
    );
  }

  private freeSlot(): void {
    this.readsInFlight--;
    this.readQueue.shift()?.();
  }

  /** Asks the service to cancel a durable run; throws the service's refusal (a 409 is read again: the run moved on). */
  cancel(id: string): Promise<void> {
    return this.act(id, platformCancellationsPath, (runId) => ({ run_id: runId }), { type: 'cancel-requested', at: 0 });
  }

  /** Sends one decision per pending approval, in one batch. */
  respond(id: string, decisions: Record<string, Decision>): Promise<void> {
    const pending = this.get(id)?.state.durable?.run.pending_interactions ?? [];
    const named = Object.entries(decisions).map(([interactionId, decision]) => {
      const asked = pending.find((p) => p.interaction_id === interactionId);
      return { name: asked?.display_name ?? interactionId, ...(asked?.tool_id && { toolId: asked.tool_id }), decision };
    });
    return this.act(
      id,
      platformResponsesPath,
      (runId) => ({ run_id: runId, responses: Object.entries(decisions).map(([interaction_id, decision]) => ({ interaction_id, decision })) }),
      { type: 'decided', at: 0, decisions: named },
    );
  }

  private async act(id: string, pathOf: (agentId: string) => string, bodyOf: (runId: string) => unknown, accepted: RunAction): Promise<void> {
    const flight = this.flights.get(id);
    const record = flight?.record;
    if (!flight || !record?.runId) throw new Error('This run is no longer held by the console; open it again by its id.');
    // Until this answer is in, reads are not applied: one that saw the run go on first would
    // leave the paused state before the decision could be noted in it.
    flight.acting++;
    try {
      const answer = await apiRequest<DurableRunAnswer>(flight.connection, pathOf(record.request.agentId), { method: 'POST', body: bodyOf(record.runId) });
      this.dispatch(id, { ...accepted, at: Date.now() });
      this.observed(id, answer);
    } catch (err) {
      // Whatever happened, read the run again: a 409 means it moved on. (Its answer comes after the hold below is let go.)
      void this.read(id);
      throw err;
    } finally {
      flight.acting--;
    }
  }

  private observed(id: string, answer: ApiResponse<DurableRunAnswer>): void {
    const at = Date.now();
    const run = answer.data?.run;
    if (!run) return;
    this.dispatch(id, { type: 'observe', at, snapshot: { run, requestId: answer.data.request_id, readAt: at, meta: answer }, meta: metaOf(answer) });
  }

  private schedule(flight: Flight, delayMs: number): void {
    if (flight.timer !== undefined || flight.watchers === 0 || this.flights.get(flight.record.id) !== flight) return;
    const record = flight.record;
    if (!record.runId || isTerminal(record.state.status) || UNREADABLE.includes(record.state.readError?.status ?? 0)) return;
    if (this.options.visibility?.hidden()) return;
    flight.timer = setTimeout(() => {
      flight.timer = undefined;
      void this.read(record.id).then(() => {
        // A change of state may have scheduled the next read already; then this one is not added.
        const now = flight.record;
        const next = now.state.durable ? nextPollMs(now.state.durable.run, flight.readCount) : false;
        if (next !== false) this.schedule(flight, next);
      });
    }, delayMs);
  }

  /**
   * Lets go of the runs nothing needs in memory any more: ended, not watched, nothing on its
   * way, its last change written. History has them. The newest runs sent from here stay (the
   * one shown keeps its log; a pair's two).
   */
  private trim(): void {
    const keep = this.options.keep ?? 2;
    const newestSent = [...this.flights.values()]
      .filter((f) => f.record.origin === 'sent')
      .sort((a, b) => b.record.startedAt - a.record.startedAt)
      .slice(0, keep);
    let dropped = false;
    for (const f of [...this.flights.values()]) {
      const r = f.record;
      if (isInFlight(r.state.status) || f.watchers > 0 || f.acting > 0 || f.reading || newestSent.includes(f)) continue;
      // A run opened is held until what opened it has shown it (and let it go).
      if (r.origin === 'opened' && !f.watched) continue;
      if (!f.kept) continue;
      this.drop(r.id, false);
      dropped = true;
    }
    if (dropped) this.publish();
  }

  private drop(id: string, publish = true): void {
    const flight = this.flights.get(id);
    if (!flight) return;
    flight.dispose();
    this.flights.delete(id);
    if (publish) this.publish();
  }

  private publish(): void {
    // Newest first: the order the console took them in (a run opened again is the latest opening of it).
    const all = [...this.flights.values()].map((f) => f.record).reverse();
    const runs = all.filter((r) => r.origin === 'sent');
    this.snapshot = {
      runs,
      opened: all.filter((r) => r.origin === 'opened'),
      active: runs.find((r) => isInFlight(r.state.status)),
      paused: all.filter((r) => r.state.status === 'REQUIRES_INPUT'),
    };
    for (const l of this.listeners) l();
  }

  private dispatch(id: string, action: RunAction, patch: Partial<Pick<RunRecord, 'answer' | 'runId'>> = {}): void {
    const flight = this.flights.get(id);
    if (!flight) return;
    const current = flight.record;
    const state = runReducer(current.state, action);
    if (state === current.state && Object.keys(patch).length === 0) return;
    const next: RunRecord = { ...current, ...patch, state };
    // A run opened by its id alone started when the service created it, not when it was opened here.
    if (action.type === 'observe' && current.origin === 'opened' && !current.historyId && current.state.status === 'idle') {
      const created = Date.parse(action.snapshot.run.created_at);
      if (Number.isFinite(created)) (next as { startedAt: number }).startedAt = created;
    }
    flight.record = next;
    if (isInFlight(current.state.status) && !isInFlight(state.status)) {
      flight.controller = undefined;
      clearTimeout(flight.deadline);
      flight.deadline = undefined;
    }
    this.publish();
    // History keeps each change of state (a read that changed nothing is not written again).
    if (state.transitions !== current.state.transitions || patch.runId !== undefined) this.persist(flight);
    // A new state is read again soon (backing off afresh): a paused run's slow reads must not delay what follows an approval.
    if (isFollowed(state.status) && state.status !== current.state.status) {
      clearTimeout(flight.timer);
      flight.timer = undefined;
      flight.readCount = 0;
      this.schedule(flight, isFollowed(current.state.status) ? nextPollMs(state.durable!.run, 0) || 0 : 0);
    }
    if (!isInFlight(state.status)) this.trim();
  }

  /**
   * Whether a change of this record is history's to keep: a run sent from here, always; a run
   * opened from history only while its entry may still change, and never a failed read (that
   * says what this connection may read, not how the run went).
   */
  private writesHistory(record: RunRecord): boolean {
    if (record.origin === 'sent') return true;
    return record.historyId !== undefined && !record.fromHistory?.final && !record.fromHistory?.imported && record.state.status !== 'refused';
  }

  private persist(flight: Flight): void {
    const record = flight.record;
    if (!this.writesHistory(record)) {
      if (findable(record)) flight.markKept();
      return;
    }
    this.enqueue(flight, flight.saving.then(() => this.write(flight, record, {})));
  }

  private enqueue(flight: Flight, p: Promise<unknown>): void {
    flight.saving = p;
    this.writes.add(p);
    void p.finally(() => this.writes.delete(p));
  }

  private async write(flight: Flight, record: RunRecord, options: { create?: boolean }): Promise<void> {
    const save = this.options.save ?? noSave;
    const details = isTerminal(record.state.status) ? historyDetailsOf(record) : undefined;
    try {
      await save(historyEntryOf(record), details, options);
      if (options.create) flight.storedAt = ++this.stored;
    } catch {
      // History unavailable (private mode, quota): the run goes on; history says so where it is read.
    }
    if (findable(record)) flight.markKept();
    // The lock goes once history says the request is over: until then no tab takes the run for cut off.
    if (!isInFlight(record.state.status)) {
      flight.releaseLock?.();
      flight.releaseLock = undefined;
    }
    this.options.onSaved?.(record);
    this.trim();
  }

  /**
   * Ends this browser's side of every run in flight and resolves once history holds
   * everything the store meant to write (a test ends here, so its writes never land in the next).
   */
  async settle(): Promise<void> {
    for (const r of this.inFlight()) this.stop(r.id);
    for (let i = 0; i < 100 && this.inFlight().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    while (this.writes.size) await Promise.allSettled([...this.writes]);
  }
}
