/**
 * The console's runs in flight, owned by the app rather than a page: leaving a page neither
 * stops, restarts nor duplicates a run. Every run, whatever its kind, is one RunSession (its
 * record changed only by the state machine's reducer, its requests paced by its connection's
 * Pacer), and every change is written through to history, where pages, panes and tabs read it.
 * The store holds only what lives while a run is in flight or followed, one Flight per run; one
 * run is in flight at a time. Pages call the store; the store tells its subscribers that something
 * changed and never calls a page back. What is the page's (Web Locks, visibility, frames, the
 * browser database) is given to it (hooks/console-run-store), so the store itself is headless.
 */

import type { Decision } from '../contract/durable-runs';
import type { ConnectionIdentity } from '../lib/connection';
import { Flight } from './flight';
import { follow, ShownGate, type Visibility } from './run-follow';
import type { HistoryEntry } from './history-entry';
import { Pacer, type PacingOptions } from './pacing';
import type { Schedule } from './render-throttle';
import { isFollowed, isInFlight, type RunAction } from './run-machine';
import { openedRecord, sameConnection, summaryOf, targetOf, type RunConnection, type RunRecord } from './run-record';
import type { RunRequest } from './run-request';
import type { StopReason } from './run-senders';
import { RUN_LOCK_PREFIX, RunWrites, type WriteRun } from './run-writes';
import { namedDecisions, newRunId, newRunRecord, RunSession } from './session';

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

export interface RunStoreOptions {
  /** Told after a change of a run was written to history (or could not be). */
  onSaved?(record: RunRecord): void;
  /** Writes a run's change through to history (the page gives the browser database's writer); nowhere by default. */
  save?: WriteRun;
  /** Ended runs sent from here kept in memory, newest first (their log is the one shown): a pair's two. */
  keep?: number;
  /** Requests of one connection in flight at once (reads of followed runs, decisions): the others wait their turn. */
  maxReads?: number;
  /** The rest of each connection's pacing (tests: a shorter back-off). */
  pacing?: PacingOptions;
  /** Holds a lock named `name` until the returned release is called (the page's Web Locks); none by default. */
  lock?: (name: string) => Promise<() => void>;
  /** Whether the page is hidden now, and how to hear that it is shown again (reads pause while hidden). */
  visibility?: Visibility;
  /** When a stream's log tells its listeners (the page's animation frames). */
  schedule?: Schedule;
}

const noSave: WriteRun = async () => undefined;

export class RunStore {
  private snapshot: RunStoreSnapshot = { runs: [], opened: [], paused: [] };
  private readonly listeners = new Set<() => void>();
  private readonly flights = new Map<string, Flight>();
  /** One pacer per connection (by identity: where, and a fingerprint of the token, never the token). */
  private readonly pacers = new Map<string, Pacer>();
  private readonly writes: RunWrites;
  /** What follow loops pass before each read: the page shown. */
  private readonly shown: ShownGate;

  constructor(private readonly options: RunStoreOptions = {}) {
    this.writes = new RunWrites(options.save ?? noSave, (record) => {
      this.options.onSaved?.(record);
      this.trim();
    });
    this.shown = new ShownGate(options.visibility);
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
    return this.writes.stored;
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

  private pacerOf(c: RunConnection): Pacer {
    const key = `${c.mode} ${c.target} ${c.fingerprint}`;
    let pacer = this.pacers.get(key);
    if (!pacer) {
      pacer = new Pacer({ maxInFlight: this.options.maxReads ?? 4, ...this.options.pacing });
      this.pacers.set(key, pacer);
    }
    return pacer;
  }

  private follow(flight: Flight, readFirst: boolean): void {
    if (this.flights.get(flight.record.id) === flight) follow(flight, readFirst, this.shown, () => this.trim());
  }

  private hold(record: RunRecord, connection: RunConnection): Flight {
    const session = new RunSession(record, { connection, pacer: this.pacerOf(connection), ...(this.options.schedule && { schedule: this.options.schedule }) }, (next, previous, action) =>
      this.changed(flight, next, previous, action),
    );
    const flight: Flight = new Flight(session, connection);
    return flight;
  }

  private launch(connection: RunConnection, request: RunRequest): RunRecord {
    const record = newRunRecord(request, targetOf(connection), { ...(this.options.schedule && { schedule: this.options.schedule }) });
    const flight = this.hold(record, connection);
    const abort = new AbortController();
    flight.controller = abort;
    // Only the run shown keeps its full log; the others keep their counts (history has the rest).
    for (const f of this.flights.values()) {
      const r = f.record;
      if (r.origin === 'sent' && r.log && !isInFlight(r.state.status)) f.session.replace({ ...r, log: undefined, summary: summaryOf(r.log) });
    }
    this.flights.set(record.id, flight);
    this.trim();
    this.publish();
    if (request.mode === 'wait' && request.timeoutMs) {
      const ms = request.timeoutMs;
      flight.deadline = setTimeout(() => this.timeOut(record.id, ms), ms);
    }
    // The entry is written first, once this tab holds the run's lock (another tab then never takes
    // it for cut off), and only then does the POST go out: a reload at any moment after the click
    // finds the run in history, even a durable run whose 201 never reached this page.
    void this.writes.create(flight, this.lock(flight)).then(() => flight.session.send(abort.signal));
    return record;
  }

  /** Holds a lock named after the run until its request is over. */
  private async lock(flight: Flight): Promise<void> {
    if (!this.options.lock) return;
    try {
      flight.releaseLock = await this.options.lock(`${RUN_LOCK_PREFIX}${flight.record.id}`);
    } catch {
      // No lock to be had: the run goes on.
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
    const record = openedRecord(id, targetOf(connection), agentId, runId, entry);
    const flight = this.hold(record, connection);
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
    this.follow(flight, true);
    return () => {
      if (this.flights.get(id) !== flight) return;
      flight.watchers = Math.max(0, flight.watchers - 1);
      if (flight.watchers > 0) return;
      flight.following?.abort();
      flight.following = undefined;
      this.trim();
    };
  }

  /** Reads a durable run now (once; a read already under way is joined). */
  read(id: string): Promise<void> {
    const flight = this.flights.get(id);
    if (!flight) return Promise.resolve();
    return flight.session.read().finally(() => this.trim());
  }

  /** Asks the service to cancel a durable run; throws the service's refusal (a 409 is read again: the run moved on). */
  async cancel(id: string): Promise<void> {
    await this.sessionOf(id).cancel();
  }

  /** Sends one decision per pending approval, in one batch. */
  async respond(id: string, decisions: Record<string, Decision>): Promise<void> {
    const session = this.sessionOf(id);
    await session.decide(namedDecisions(session.record, decisions));
  }

  private sessionOf(id: string): RunSession {
    const flight = this.flights.get(id);
    if (!flight?.record.runId) throw new Error('This run is no longer held by the console; open it again by its id.');
    return flight.session;
  }

  /** A change of a run, from its session: published, written through, and followed when it became followable. */
  private changed(flight: Flight, next: RunRecord, previous: RunRecord, action: RunAction): void {
    if (this.flights.get(next.id) !== flight) return;
    // A run opened by its id alone started when the service created it, not when it was opened here.
    if (action.type === 'observe' && previous.origin === 'opened' && !previous.historyId && previous.state.status === 'idle') {
      const created = Date.parse(action.snapshot.run.created_at);
      if (Number.isFinite(created)) flight.session.replace({ ...next, startedAt: created });
    }
    if (isInFlight(previous.state.status) && !isInFlight(next.state.status)) {
      flight.controller = undefined;
      clearTimeout(flight.deadline);
      flight.deadline = undefined;
    }
    this.publish();
    // History keeps each change of state (a read that changed nothing is not written again).
    if (next.state.transitions !== previous.state.transitions || next.runId !== previous.runId) this.writes.change(flight);
    if (isFollowed(next.state.status) && !isFollowed(previous.state.status)) this.follow(flight, true);
    if (!isInFlight(next.state.status)) this.trim();
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
      if (isInFlight(r.state.status) || f.watchers > 0 || f.session.busy || newestSent.includes(f)) continue;
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

  /**
   * Ends this browser's side of every run in flight and resolves once history holds
   * everything the store meant to write (a test ends here, so its writes never land in the next).
   */
  async settle(): Promise<void> {
    for (const r of this.inFlight()) this.stop(r.id);
    for (let i = 0; i < 100 && this.inFlight().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    for (const f of this.flights.values()) f.following?.abort();
    await this.writes.settled();
  }
}
