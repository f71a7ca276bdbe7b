/**
 * What a suite run comes to (passed and failed counts, p50/p95 of first event and duration),
 * and what changed between two suite runs: outcomes (regressions first), answers (a word diff,
 * the one Compare uses) and timings that moved past a stated threshold. Pure.
 */

import { wordDiff, type TextDiff } from '../../lib/word-diff';
import type { CaseResult, Verdict } from './runner';

export interface SuiteSummary {
  total: number;
  passed: number;
  failed: number;
  stopped: number;
  firstEvent: { p50?: number; p95?: number; n: number };
  duration: { p50?: number; p95?: number; n: number };
}

/** The p-th percentile by nearest rank (p50 of [1, 2, 3, 4] is 2): always a value that was measured. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (!values.length) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

type Judged = Pick<CaseResult, 'verdict'> & { entry: Pick<CaseResult['entry'], 'firstEventMs' | 'durationMs'> };

export function summarize(results: readonly Judged[]): SuiteSummary {
  const count = (v: Verdict) => results.filter((r) => r.verdict === v).length;
  // Timings of runs that ran to their end: a stopped case's duration says when it was stopped.
  const ran = results.filter((r) => r.verdict !== 'stopped');
  const first = ran.map((r) => r.entry.firstEventMs).filter((n): n is number => n !== undefined);
  const durations = ran.map((r) => r.entry.durationMs);
  return {
    total: results.length,
    passed: count('passed'),
    failed: count('failed'),
    stopped: count('stopped'),
    firstEvent: { p50: percentile(first, 50), p95: percentile(first, 95), n: first.length },
    duration: { p50: percentile(durations, 50), p95: percentile(durations, 95), n: durations.length },
  };
}

/** A timing moved when it changed by more than both: this share of the earlier value, and this many ms. */
export const TIMING_THRESHOLD = { ratio: 0.5, ms: 200 } as const;

export type OutcomeChange = 'regression' | 'fixed' | 'new' | 'gone' | 'same';

export interface CaseChange {
  key: string;
  name: string;
  a?: Verdict;
  b?: Verdict;
  outcome: OutcomeChange;
  /** The assertions that failed in B and not in A (by what they expected). */
  newlyFailing: string[];
  answer?: TextDiff;
  timings: { label: 'first event' | 'duration'; a: number; b: number }[];
}

export interface SuiteComparison {
  /** Changed outcome, regressions first, then fixed, new and gone. */
  outcomes: CaseChange[];
  /** Answers that changed, with their word diff. */
  answers: CaseChange[];
  /** Timings that moved past the threshold. */
  timings: CaseChange[];
  threshold: typeof TIMING_THRESHOLD;
}

const ORDER: Record<OutcomeChange, number> = { regression: 0, fixed: 1, new: 2, gone: 3, same: 4 };

function moved(a: number | undefined, b: number | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const d = Math.abs(b - a);
  return d > TIMING_THRESHOLD.ms && d > a * TIMING_THRESHOLD.ratio;
}

type Compared = Pick<CaseResult, 'key' | 'name' | 'verdict' | 'assertions'> & { entry: Pick<CaseResult['entry'], 'firstEventMs' | 'durationMs' | 'transcript'> };

/** What changed from suite run A to suite run B, case by case (matched by case and row). */
export function compareSuiteRuns(a: readonly Compared[], b: readonly Compared[]): SuiteComparison {
  const byKey = new Map(a.map((r) => [r.key, r]));
  const changes: CaseChange[] = [];
  const keys = [...new Set([...a.map((r) => r.key), ...b.map((r) => r.key)])];
  const inB = new Map(b.map((r) => [r.key, r]));
  for (const key of keys) {
    const ra = byKey.get(key);
    const rb = inB.get(key);
    const outcome: OutcomeChange = !ra ? 'new' : !rb ? 'gone' : ra.verdict === rb.verdict ? 'same' : rb.verdict === 'failed' ? 'regression' : ra.verdict === 'failed' && rb.verdict === 'passed' ? 'fixed' : 'same';
    const failedA = new Set(ra?.assertions.filter((x) => !x.pass).map((x) => x.expected));
    const newlyFailing = rb ? rb.assertions.filter((x) => !x.pass && !failedA.has(x.expected)).map((x) => x.expected) : [];
    const answer = ra && rb && ra.entry.transcript.trim() !== rb.entry.transcript.trim() ? wordDiff(ra.entry.transcript, rb.entry.transcript) : undefined;
    const timings: CaseChange['timings'] = [];
    if (ra && rb && ra.verdict !== 'stopped' && rb.verdict !== 'stopped') {
      if (moved(ra.entry.firstEventMs, rb.entry.firstEventMs)) timings.push({ label: 'first event', a: ra.entry.firstEventMs!, b: rb.entry.firstEventMs! });
      if (moved(ra.entry.durationMs, rb.entry.durationMs)) timings.push({ label: 'duration', a: ra.entry.durationMs, b: rb.entry.durationMs });
    }
    changes.push({ key, name: (rb ?? ra)!.name, ...(ra && { a: ra.verdict }), ...(rb && { b: rb.verdict }), outcome, newlyFailing, ...(answer && { answer }), timings });
  }
  return {
    outcomes: changes.filter((c) => c.outcome !== 'same').sort((x, y) => ORDER[x.outcome] - ORDER[y.outcome]),
    answers: changes.filter((c) => c.answer),
    timings: changes.filter((c) => c.timings.length),
    threshold: TIMING_THRESHOLD,
  };
}
