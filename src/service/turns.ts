import type { Server } from 'node:http';

/**
 * How busy runs (a firehose, a wait-mode run assembling its answer, a durable worker) share
 * the event loop with everything else.
 *
 * A fast client never pushes back, so a run left alone would write its million events in
 * one go and every other connection would wait. So a run yields once it has used its share
 * (`Slice.spent`), and waits in one queue; each loop turn wakes a few runs from the front.
 * Between two turns the loop takes in I/O.
 *
 * Node (libuv 1.46 on Linux) accepts one new connection per loop turn: a burst of a
 * thousand connections needs a thousand turns. While a connection was accepted since the
 * last turn there may be more queued behind it, so that turn wakes a single run for a
 * moment only: turns get short until the queue of connections is empty, and a client that
 * connects waits for no firehose.
 */

/** Synchronous run work per loop turn, all woken runs together. */
export const RUN_SLICE_MS = 4;

/** What each woken run may do even once the turn's slice is spent: every run makes progress. */
export const RUN_QUANTUM_MS = 0.25;

/** Runs woken per turn: the rest wait in line for the next turns. */
export const RUNS_PER_TURN = 8;

/** A turn's run work while connections are coming in. */
export const BUSY_ACCEPT_SLICE_MS = 0.05;

const waiting: Array<() => void> = [];
let turnScheduled = false;
let turnStartedAt = performance.now();
let turnSliceMs = RUN_SLICE_MS;
let turnQuantumMs = RUN_QUANTUM_MS;
let connections = 0;
let connectionsAtLastTurn = 0;

function scheduleTurn(): void {
  if (turnScheduled) return;
  turnScheduled = true;
  // setImmediate, not a resolved promise: microtasks would run before any I/O.
  setImmediate(turn);
}

function turn(): void {
  turnScheduled = false;
  const accepting = connections !== connectionsAtLastTurn;
  connectionsAtLastTurn = connections;
  turnStartedAt = performance.now();
  turnSliceMs = accepting ? BUSY_ACCEPT_SLICE_MS : RUN_SLICE_MS;
  turnQuantumMs = accepting ? BUSY_ACCEPT_SLICE_MS : RUN_QUANTUM_MS;
  // The woken runs go on in microtasks once this returns, one after the other.
  for (const wake of waiting.splice(0, accepting ? 1 : RUNS_PER_TURN)) wake();
  if (waiting.length) scheduleTurn();
}

/**
 * Counts the connections `server` accepts and the requests it reads, so that runs make way
 * while more may be queued: a burst of run POSTs is answered (heads written, runs started)
 * before the busy runs take their full share again.
 */
export function watchConnections(server: Server): void {
  server.on('connection', () => {
    connections++;
  });
  server.on('request', () => {
    connections++;
  });
}

/** One run's share of the loop: it yields once the turn's slice is spent and it used its quantum. */
export class Slice {
  private resumedAt = performance.now();

  get spent(): boolean {
    const now = performance.now();
    return now - this.resumedAt >= turnQuantumMs && now - turnStartedAt >= turnSliceMs;
  }

  /** The run just slept on a timer: the loop had its turn. */
  restart(): void {
    this.resumedAt = performance.now();
  }

  /** Waits in line for a later loop turn. */
  async yield(): Promise<void> {
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      scheduleTurn();
    });
    this.restart();
  }
}
