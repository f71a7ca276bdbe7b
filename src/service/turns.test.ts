import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { RUNS_PER_TURN, Slice, watchConnections } from './turns.ts';

/** Lets one check phase pass: the scheduler's turn was queued before this immediate. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `count` runs that have used their share and wait in line; `woken` counts those the loop let go on. */
function runsInLine(count: number) {
  const state = { woken: 0 };
  for (let i = 0; i < count; i++) void new Slice().yield().then(() => state.woken++);
  return state;
}

describe('runs sharing the event loop', () => {
  it('wakes a few waiting runs per loop turn, in the order they yielded, so I/O comes between', async () => {
    const order: number[] = [];
    const total = RUNS_PER_TURN * 2 + 1;
    for (let i = 0; i < total; i++) void new Slice().yield().then(() => order.push(i));
    await nextTurn();
    expect(order).toEqual(Array.from({ length: RUNS_PER_TURN }, (_, i) => i));
    await nextTurn();
    await nextTurn();
    expect(order).toEqual(Array.from({ length: total }, (_, i) => i));
  });

  it('while connections are being accepted, a turn wakes one run only, so a burst of clients is taken in quickly', async () => {
    const server = new EventEmitter() as unknown as Server;
    watchConnections(server);
    const line = runsInLine(5);
    server.emit('connection');
    await nextTurn();
    expect(line.woken).toBe(1);
    // No new connection since: the next turn is a normal one.
    await nextTurn();
    expect(line.woken).toBe(5);
  });

  it('a woken run may go on for its quantum, then has used its share', async () => {
    const slice = new Slice();
    await slice.yield();
    expect(slice.spent).toBe(false);
    const until = performance.now() + 5;
    while (performance.now() < until) {
      // busy, as a firehose writing events
    }
    expect(slice.spent).toBe(true);
  });
});
