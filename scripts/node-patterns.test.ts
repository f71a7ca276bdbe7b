/**
 * `answer-matches` judged in worker threads within a budget (issue 37): a pattern a suite file
 * may hold, which grinds for minutes on a long answer, fails its judgement at the budget, and
 * the thread that asked goes on at once.
 */
import { describe, expect, it } from 'vitest';
import { PatternPool } from '../src/engine/suites/pattern-judge.ts';
import { linearPatternProblem } from '../src/lib/linear-pattern.ts';
import { nodePatternJudge } from './node-patterns.ts';

/** The pattern of issue 37: accepted at import (RE2 takes it), 8,500 characters. */
export const HOSTILE_PATTERN = '(?:[ -~]{1000}|Q)'.repeat(500);
const answer = (chars: number) => 'The answer. '.repeat(Math.ceil(chars / 12)).slice(0, chars);

describe('patterns judged in worker threads', () => {
  it('a hostile pattern on a 28,000-character answer fails at the budget, saying so; the next judgement goes on in a new worker', async () => {
    expect(HOSTILE_PATTERN).toHaveLength(8_500);
    expect(linearPatternProblem(HOSTILE_PATTERN)).toBeUndefined();
    const budgetMs = 1_500;
    const judge = nodePatternJudge({ size: 1, budgetMs });
    try {
      // A first judgement starts the worker (its start is not counted in the budget).
      expect(await judge.match('answer', 'The answer.')).toEqual({ ok: true, matches: true });
      const ticks: number[] = [];
      const beat = setInterval(() => ticks.push(Date.now()), 50);
      const started = Date.now();
      const verdict = await judge.match(HOSTILE_PATTERN, answer(28_000));
      const took = Date.now() - started;
      clearInterval(beat);
      expect(verdict).toEqual({ ok: false, why: expect.stringMatching(/^not judged: matching the pattern against the answer \(28,000 characters\) took longer than 1,500 ms, the budget of one judgement/) });
      // Ended at the budget (the machine's load aside), never the minutes the pattern would take.
      expect(took).toBeGreaterThanOrEqual(budgetMs);
      expect(took).toBeLessThan(budgetMs + 10_000);
      // This thread answered throughout: its timer ran while the worker ground.
      const gaps = ticks.slice(1).map((t, i) => t - ticks[i]!);
      expect(Math.max(...gaps)).toBeLessThan(1_000);
      expect(await judge.match('^The (answer|question)\\.', answer(100))).toEqual({ ok: true, matches: true });
      expect(await judge.match('(?<=a)b', 'ab')).toEqual({ ok: false, why: expect.stringContaining('cannot be matched in linear time') });
    } finally {
      judge.close();
    }
  }, 60_000);

  it('judgements not done when the pool closes answer that they were not, at once', async () => {
    const judge = nodePatternJudge({ size: 1, budgetMs: 30_000 });
    const pending = [judge.match(HOSTILE_PATTERN, answer(98_000)), judge.match('x', 'x')];
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    judge.close();
    expect(await Promise.all(pending)).toEqual([
      { ok: false, why: 'not judged: the suite was stopped first' },
      { ok: false, why: 'not judged: the suite was stopped first' },
    ]);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('a worker that cannot be made fails the judgement, saying why, and never hangs', async () => {
    const pool = new PatternPool(() => {
      throw new Error('no threads here');
    });
    expect(await pool.match('a', 'a')).toEqual({ ok: false, why: 'not judged: no worker to judge it in (no threads here)' });
  });
});
