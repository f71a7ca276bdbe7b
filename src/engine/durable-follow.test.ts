import { describe, expect, it } from 'vitest';
import type { DurableRun } from '../contract/durable-runs';
import { nextPollMs, untilText } from './durable-follow';

function run(state: string, updated_at = '2026-11-23T10:00:00Z', run_id = 'run_1'): DurableRun {
  return { run_id, agent_id: 'a', state, created_at: '2026-11-23T10:00:00Z', updated_at, pending_interactions: [] };
}

describe('nextPollMs', () => {
  it('reads every second at first, backs off to five seconds, and stops at an end', () => {
    expect([0, 4, 5, 9, 10, 50].map((n) => nextPollMs(run('RUNNING'), n))).toEqual([1000, 1000, 2000, 2000, 5000, 5000]);
    expect(nextPollMs(run('REQUIRES_INPUT'), 0)).toBe(5000);
    for (const s of ['SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED']) expect(nextPollMs(run(s), 0)).toBe(false);
    expect(nextPollMs(undefined, 0)).toBe(false);
  });

  it('keeps reading a run in a state it does not know', () => {
    expect(nextPollMs(run('WARMING_UP'), 0)).toBe(1000);
  });
});

describe('untilText', () => {
  it('says how long until a deadline, or since', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(untilText('2026-11-23T10:04:05Z', now)).toBe('in 4 min 05 s');
    expect(untilText('2026-11-23T09:59:58Z', now)).toBe('2 s ago');
    expect(untilText('2026-11-23T11:30:00Z', now)).toBe('in 1 h 30 min');
    expect(untilText('not a date', now)).toBe('not a date');
  });
});
