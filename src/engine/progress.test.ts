import { describe, expect, it } from 'vitest';
import { expectedEventsOf, progressOf } from './progress';

describe('expectedEventsOf', () => {
  it('reads a positive integer input.count from either API’s body', () => {
    expect(expectedEventsOf({ input: { count: 50_000 }, stream: true })).toBe(50_000);
    expect(expectedEventsOf({ agent_id: 'firehose', input: { count: 1 } })).toBe(1);
  });

  it('expects nothing of a body without one, or whose count is not a positive integer', () => {
    for (const body of [
      undefined,
      null,
      'count',
      {},
      { messages: [] },
      { input: null },
      { input: [5] },
      { input: { topic: 'leave' } },
      { input: { count: 0 } },
      { input: { count: -3 } },
      { input: { count: 2.5 } },
      { input: { count: '10' } },
      { input: { count: Number.NaN } },
      { input: { count: Infinity } },
      { input: { count: 2 ** 60 } },
      { count: 10 },
    ]) {
      expect(expectedEventsOf(body), JSON.stringify(body)).toBeUndefined();
    }
  });
});

describe('progressOf', () => {
  it('counts whole percent, rounded down, so 100% means all there', () => {
    expect(progressOf(0, 300)).toEqual({ received: 0, expected: 300, percent: 0 });
    expect(progressOf(1, 3)).toEqual({ received: 1, expected: 3, percent: 33 });
    expect(progressOf(49_999, 50_000).percent).toBe(99);
    expect(progressOf(50_000, 50_000).percent).toBe(100);
  });

  it('does not go past 100% when more arrive than were asked for', () => {
    expect(progressOf(12, 10)).toEqual({ received: 12, expected: 10, percent: 100 });
  });
});
