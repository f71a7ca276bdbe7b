/**
 * `answer-matches` judged off the caller's thread, each judgement within a time budget. RE2
 * matches in time linear in the answer, but the factor is the pattern's compiled size: a
 * pattern a file may hold (`(?:[ -~]{1000}|Q)` 500 times, 8,500 characters) compiles to some
 * 500,000 instructions, each stepped for every character, and on a 98,000-character answer
 * that is minutes. In the page's thread it froze the tab; in the CLI's it held Ctrl+C. So each
 * judgement runs in a worker (a Worker in the page, worker_threads in Node) that is ended when
 * the budget passes, and the assertion fails saying so. The pool is the same for both: each
 * side only says how a worker is made.
 */

import { formatCount } from '../../lib/format';
import { linearPattern } from '../../lib/linear-pattern';

export type PatternVerdict = { ok: true; matches: boolean } | { ok: false; why: string };

export interface PatternJudge {
  /** Whether `pattern` matches anywhere in `text`, or why it was not judged. Never rejects. */
  match(pattern: string, text: string): Promise<PatternVerdict>;
  /** Ends every worker; judgements not done answer that they were not. */
  close(): void;
}

/** How long one judgement may take, in the worker, before it fails. */
export const PATTERN_BUDGET_MS = 2_000;
/** Workers judging at once. */
export const PATTERN_WORKERS = 2;

export interface PatternTask {
  id: number;
  pattern: string;
  text: string;
}

/** What a worker posts: once that it is ready, then an answer per task. */
export type PatternMessage = { ready: true } | { id: number; verdict: PatternVerdict };

/** A worker as the pool uses it, whichever kind it is. */
export interface PatternWorker {
  post(task: PatternTask): void;
  /** `fn` is told each message the worker posts, and why it failed if it does. */
  listen(fn: (message: PatternMessage) => void, failed: (why: string) => void): void;
  terminate(): void;
}

/** The worker's side: one task's answer (in the worker's own thread). */
export function answerTask(task: PatternTask): PatternMessage {
  const p = linearPattern(task.pattern);
  if (!p.ok) return { id: task.id, verdict: { ok: false, why: `the pattern cannot be matched in linear time: ${p.why}` } };
  return { id: task.id, verdict: { ok: true, matches: p.test(task.text) } };
}

export function overBudget(budgetMs: number, chars: number): string {
  return `not judged: matching the pattern against the answer (${formatCount(chars)} characters) took longer than ${formatCount(budgetMs)} ms, the budget of one judgement, and was stopped`;
}

interface Pending {
  task: PatternTask;
  resolve(v: PatternVerdict): void;
}

interface Slot {
  worker: PatternWorker;
  ready: boolean;
  busy?: Pending;
  timer?: ReturnType<typeof setTimeout>;
}

/** Judges patterns in up to `size` workers, each judgement ended (its worker with it) at the budget. */
export class PatternPool implements PatternJudge {
  private readonly slots = new Set<Slot>();
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  private readonly size: number;
  private readonly budgetMs: number;

  constructor(
    private readonly spawn: () => PatternWorker,
    options: { size?: number; budgetMs?: number } = {},
  ) {
    this.size = Math.max(1, options.size ?? PATTERN_WORKERS);
    this.budgetMs = options.budgetMs ?? PATTERN_BUDGET_MS;
  }

  match(pattern: string, text: string): Promise<PatternVerdict> {
    if (this.closed) return Promise.resolve(stopped);
    return new Promise((resolve) => {
      this.queue.push({ task: { id: this.nextId++, pattern, text }, resolve });
      this.pump();
    });
  }

  close(): void {
    this.closed = true;
    for (const slot of [...this.slots]) this.end(slot, stopped);
    for (const p of this.queue.splice(0)) p.resolve(stopped);
  }

  private pump(): void {
    while (this.queue.length) {
      const slot = [...this.slots].find((s) => s.ready && !s.busy);
      if (!slot) {
        if (this.slots.size < this.size) this.start();
        return;
      }
      const job = this.queue.shift()!;
      slot.busy = job;
      // The budget counts from when a ready worker has the task: a worker's start is not the pattern's time.
      slot.timer = setTimeout(() => this.end(slot, { ok: false, why: overBudget(this.budgetMs, job.task.text.length) }), this.budgetMs);
      slot.worker.post(job.task);
    }
  }

  private start(): void {
    let worker: PatternWorker;
    try {
      worker = this.spawn();
    } catch (err) {
      const why = `not judged: no worker to judge it in (${err instanceof Error ? err.message : String(err)})`;
      for (const p of this.queue.splice(0)) p.resolve({ ok: false, why });
      return;
    }
    const slot: Slot = { worker, ready: false };
    this.slots.add(slot);
    worker.listen(
      (message) => {
        if ('ready' in message) {
          slot.ready = true;
        } else if (slot.busy && message.id === slot.busy.task.id) {
          clearTimeout(slot.timer);
          const done = slot.busy;
          slot.busy = undefined;
          done.resolve(message.verdict);
        }
        this.pump();
      },
      (why) => {
        this.end(slot, { ok: false, why: `not judged: the judging worker failed (${why})` });
        // A worker that cannot start fails every task the same way: they are told so, not retried for ever.
        if (!slot.ready) for (const p of this.queue.splice(0)) p.resolve({ ok: false, why: `not judged: the judging worker failed (${why})` });
      },
    );
  }

  /** Ends a worker: its task (if any) gets `verdict`; the queue goes on in another. */
  private end(slot: Slot, verdict: PatternVerdict): void {
    clearTimeout(slot.timer);
    this.slots.delete(slot);
    slot.worker.terminate();
    slot.busy?.resolve(verdict);
    slot.busy = undefined;
    if (!this.closed) this.pump();
  }
}

const stopped: PatternVerdict = { ok: false, why: 'not judged: the suite was stopped first' };

/** The verdicts of a case's patterns (its answer-matches), each judged apart within its budget; none when no judge is given. */
export async function judgePatterns(sources: readonly string[], answer: string, judge: PatternJudge | undefined): Promise<Map<string, PatternVerdict> | undefined> {
  const patterns = [...new Set(sources)];
  if (!judge || !patterns.length) return undefined;
  return new Map(await Promise.all(patterns.map(async (p) => [p, await judge.match(p, answer)] as const)));
}
