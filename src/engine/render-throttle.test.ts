import { describe, expect, it } from 'vitest';
import { FLOOD_BATCH, FLOOD_INTERVAL_MS, RenderThrottle } from './render-throttle';

/** Frames by hand, and a clock the test moves. */
function harness() {
  const queue: (() => void)[] = [];
  const delays: number[] = [];
  let now = 0;
  const throttle = new RenderThrottle(
    (fn, delayMs) => {
      queue.push(fn);
      delays.push(delayMs);
    },
    () => now,
  );
  let told = 0;
  throttle.subscribe(() => told++);
  return {
    throttle,
    delays,
    queue,
    told: () => told,
    frame: (atMs: number) => {
      now = atMs;
      queue.splice(0).forEach((f) => f());
    },
  };
}

describe('RenderThrottle', () => {
  it('asks for one frame however often it is told of new items, and bumps the version once', () => {
    const h = harness();
    for (let i = 1; i <= 1000; i++) h.throttle.notifySoon(i);
    expect(h.queue).toHaveLength(1);
    expect(h.told()).toBe(0);
    expect(h.throttle.getVersion()).toBe(0);
    h.frame(16);
    expect(h.told()).toBe(1);
    expect(h.throttle.getVersion()).toBe(1);
  });

  it('renders the next frame for a trickle, and spaces renders out once a batch is a flood', () => {
    const h = harness();
    h.throttle.notifySoon(1);
    h.frame(16);
    // FLOOD_BATCH - 1 more since that render: a trickle, so the next frame.
    h.throttle.notifySoon(FLOOD_BATCH);
    expect(h.delays.at(-1)).toBe(0);
    h.frame(32);
    h.throttle.notifySoon(3 * FLOOD_BATCH);
    expect(h.delays.at(-1)).toBe(0);
    h.frame(48);
    // The batch that render showed was a flood: the next one waits out the interval.
    h.throttle.notifySoon(3 * FLOOD_BATCH + 1);
    expect(h.delays.at(-1)).toBe(FLOOD_INTERVAL_MS);
    h.frame(48 + FLOOD_INTERVAL_MS);
    // One event in the last batch: back to every frame.
    h.throttle.notifySoon(3 * FLOOD_BATCH + 2);
    expect(h.delays.at(-1)).toBe(0);
    expect(h.told()).toBe(4);
  });

  it('tells at once without waiting for a frame, and a listener that left is not told', () => {
    const h = harness();
    let other = 0;
    const leave = h.throttle.subscribe(() => other++);
    h.throttle.notifyNow();
    expect([h.told(), other]).toEqual([1, 1]);
    leave();
    h.throttle.notifyNow();
    expect([h.told(), other]).toEqual([2, 1]);
    expect(h.queue).toHaveLength(0);
  });
});
