/**
 * Suite runs in the page: each runs outside any component (leaving the Suites page neither
 * stops nor repeats it), writes its results to the database in batches (a transaction per
 * batch, not per case: a thousand cases would be a thousand), and tells its progress at most a
 * few times a second. Stop ends it: runs in flight are stopped, durable ones asked to cancel.
 */

import type { RunConnection } from '../../../engine/run-record';
import type { RunTarget } from '../../../engine/run-record';
import { deleteSuite, finishSuiteRun, startSuiteRun, SUITE_LOCK_PREFIX, writeResults } from './suite-db';
import { pagePatternJudge } from './page-patterns';
import { runSuite, type CaseResult, type Verdict } from '../../../engine/suites/runner';
import { itemsOf, newSuiteId, type RunOverrides, type Suite } from '../../../engine/suites/suite';
import { summarize, type SuiteSummary } from '../../../engine/suites/summary';

/** What the progress view lists of a result while the run goes on: small, so a thousand cost nothing. */
export interface LiveResult {
  index: number;
  key: string;
  name: string;
  verdict: Verdict;
  durationMs: number;
  firstEventMs?: number;
  failing: number;
}

export interface LiveSuiteRun {
  id: string;
  suiteId: string;
  total: number;
  started: number;
  results: readonly LiveResult[];
  passed: number;
  failed: number;
  stopped: number;
  /** Runs in flight now. */
  running: number;
  stopping: boolean;
  ended: boolean;
  summary?: SuiteSummary;
  /** The results could not be kept (the database refused): the run went on, and says so. */
  writeError?: string;
}

const BATCH_MS = 250;
const BATCH_SIZE = 25;
const NOTIFY_MS = 200;

class SuiteRuns {
  private readonly runs = new Map<string, LiveSuiteRun>();
  private readonly controllers = new Map<string, AbortController>();
  private readonly listeners = new Set<() => void>();
  private notifyTimer?: ReturnType<typeof setTimeout>;
  private version = 0;

  subscribe = (l: () => void) => {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  };

  getVersion = () => this.version;

  /** How many suite runs this tab holds in memory (the last of each suite). */
  get held(): number {
    return this.runs.size;
  }

  /** The run of a suite this tab runs now, or ran last. */
  of(suiteId: string): LiveSuiteRun | undefined {
    let last: LiveSuiteRun | undefined;
    for (const r of this.runs.values()) if (r.suiteId === suiteId && (!last || r.started >= last.started)) last = r;
    return last;
  }

  /** Lets go of this suite's ended runs. */
  private forget(suiteId: string): void {
    for (const [id, r] of this.runs) if (r.suiteId === suiteId && r.ended) this.runs.delete(id);
  }

  private notify(now = false): void {
    if (now) {
      clearTimeout(this.notifyTimer);
      this.notifyTimer = undefined;
    } else if (this.notifyTimer !== undefined) return;
    const tell = () => {
      this.notifyTimer = undefined;
      this.version++;
      for (const l of this.listeners) l();
    };
    if (now) tell();
    else this.notifyTimer = setTimeout(tell, NOTIFY_MS);
  }

  private patch(id: string, patch: Partial<LiveSuiteRun>): void {
    const run = this.runs.get(id);
    if (run) this.runs.set(id, { ...run, ...patch });
  }

  /** Starts a suite run with this connection; answers its id. Nothing starts while this suite runs already. */
  start(suite: Suite, connection: RunConnection, options: { concurrency: number; overrides?: RunOverrides }): string | undefined {
    const current = this.of(suite.id);
    if (current && !current.ended) return undefined;
    // Only the last run of a suite is shown live; the ones before are in the database: a tab that runs a suite all day holds one.
    this.forget(suite.id);
    const items = itemsOf(suite.cases);
    const id = newSuiteId('suiterun');
    const started = Date.now();
    const controller = new AbortController();
    this.controllers.set(id, controller);
    this.runs.set(id, { id, suiteId: suite.id, total: items.length, started, results: [], passed: 0, failed: 0, stopped: 0, running: 0, stopping: false, ended: false });
    this.notify(true);
    const target: RunTarget = { profileId: connection.profileId, profileLabel: connection.profileLabel, mode: connection.mode, target: connection.target, baseUrl: connection.baseUrl, fingerprint: connection.fingerprint };
    const index = new Map(items.map((item, i) => [item.key, i]));
    let pending: { index: number; result: CaseResult }[] = [];
    let writing = Promise.resolve();
    let flushTimer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      clearTimeout(flushTimer);
      flushTimer = undefined;
      const batch = pending;
      pending = [];
      writing = writing
        .then(async () => {
          // The suite was deleted (in another tab too): nothing more of its run is sent or kept.
          if (!(await writeResults(id, batch))) controller.abort();
        })
        .catch((err: unknown) => this.patch(id, { writeError: err instanceof Error ? err.message : String(err) }));
    };
    // What the summary needs of each result: the results themselves (events, answers) are written to the database and let go.
    const all: Parameters<typeof summarize>[0][number][] = [];
    const run = async () => {
      await startSuiteRun({
        id,
        suiteId: suite.id,
        suiteName: suite.name,
        startedAt: started,
        status: 'running',
        target: { profileId: connection.profileId, profileLabel: connection.profileLabel, ...(options.overrides?.api && { api: options.overrides.api }), ...(options.overrides?.agentId && { agentId: options.overrides.agentId }) },
        concurrency: options.concurrency,
        total: items.length,
      });
      // Patterns are judged in workers, each judgement within its budget: the page goes on answering whatever a pattern costs.
      const patterns = pagePatternJudge();
      controller.signal.addEventListener('abort', () => patterns.close(), { once: true });
      try {
        await runSuite(items, { connection, target, overrides: options.overrides, patterns, loadLens: () => import('../../../lib/spec-lens/lens').then((m) => m.loadLens()) }, {
          concurrency: options.concurrency,
          signal: controller.signal,
          onStart: () => {
            const r = this.runs.get(id)!;
            this.patch(id, { running: r.running + 1 });
            this.notify();
          },
          onResult: (result) => {
            const r = this.runs.get(id)!;
            const i = index.get(result.key) ?? 0;
            all.push({ verdict: result.verdict, entry: { firstEventMs: result.entry.firstEventMs, durationMs: result.entry.durationMs } });
            const live: LiveResult = {
              index: i,
              key: result.key,
              name: result.name,
              verdict: result.verdict,
              durationMs: result.entry.durationMs,
              ...(result.entry.firstEventMs !== undefined && { firstEventMs: result.entry.firstEventMs }),
              failing: result.assertions.filter((a) => !a.pass).length,
            };
            this.patch(id, {
              running: r.running - 1,
              results: [...r.results, live],
              passed: r.passed + (result.verdict === 'passed' ? 1 : 0),
              failed: r.failed + (result.verdict === 'failed' ? 1 : 0),
              stopped: r.stopped + (result.verdict === 'stopped' ? 1 : 0),
            });
            pending.push({ index: i, result });
            if (pending.length >= BATCH_SIZE) flush();
            else flushTimer ??= setTimeout(flush, BATCH_MS);
            this.notify();
          },
        });
      } finally {
        patterns.close();
      }
      // Every case has ended: a Stop from now on (while the last results are written) changes nothing of how the run went.
      const status = controller.signal.aborted ? 'stopped' : 'done';
      this.controllers.delete(id);
      flush();
      await writing;
      const summary = summarize(all);
      await finishSuiteRun(id, { status, summary, endedAt: Date.now() });
      this.patch(id, { ended: true, running: 0, summary });
      this.controllers.delete(id);
      this.notify(true);
    };
    const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
    const go = () =>
      run().catch((err: unknown) => {
        this.controllers.delete(id);
        this.patch(id, { ended: true, running: 0, writeError: err instanceof Error ? err.message : String(err) });
        this.notify(true);
      });
    // The tab holds a lock while it runs the suite: a run left "running" that no tab holds was cut off.
    if (locks) void locks.request(`${SUITE_LOCK_PREFIX}${id}`, go).catch(() => undefined);
    else void go();
    return id;
  }

  /** Deletes a suite: its run going on in this tab is stopped first, so nothing more is sent for a suite no longer there. */
  async deleteSuite(suiteId: string): Promise<void> {
    const live = this.of(suiteId);
    if (live && !live.ended) this.stop(live.id);
    await deleteSuite(suiteId);
    this.forget(suiteId);
  }

  stop(id: string): void {
    const c = this.controllers.get(id);
    if (!c) return;
    c.abort();
    this.patch(id, { stopping: true });
    this.notify(true);
  }
}

/** The page's suite runs: one set per tab. */
export const suiteRuns = new SuiteRuns();
