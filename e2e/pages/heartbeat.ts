import type { Page } from '@playwright/test';

/**
 * A timer in the page that notes how late it runs: the largest gap between its ticks is how
 * long the page could not answer anything (input, paint, timers). Installed before any page
 * script; read over CDP, which the page's policy does not restrict (no eval in the page).
 */
const INIT = `(() => {
  const beat = (window.__heartbeat = { last: performance.now(), maxGap: 0, at: 0, gaps: [] });
  setInterval(() => {
    const now = performance.now();
    const gap = now - beat.last;
    if (gap > 250 && beat.gaps.length < 50) beat.gaps.push([Math.round(beat.last), Math.round(gap)]);
    if (gap > beat.maxGap) { beat.maxGap = gap; beat.at = now; }
    beat.last = now;
  }, 50);
})();`;

/** One task of the page's main thread, from Chromium's trace: its CPU time and its wall time, in ms. */
export interface PageTask {
  cpuMs: number;
  wallMs: number;
  /** How many tasks of the page's thread the traces held: none means the trace could not be read. */
  tasks: number;
}

/**
 * The page's longest task in a Chromium trace: the longest the page's own work held its thread.
 * Measured in the thread's CPU time, which another process on the machine does not lengthen (a
 * wall-clock gap on a loaded machine measures the machine as well as the page).
 */
export function longestTask(trace: Buffer): PageTask {
  const parsed = JSON.parse(trace.toString('utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
  const mainThreads = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  let longest: PageTask = { cpuMs: 0, wallMs: 0, tasks: 0 };
  let tasks = 0;
  for (const e of events) {
    if (e.ph !== 'X' || e.name !== 'ThreadControllerImpl::RunTask' || !mainThreads.has(`${e.pid}:${e.tid}`)) continue;
    tasks++;
    const cpuMs = (e.tdur ?? e.dur ?? 0) / 1000;
    if (cpuMs > longest.cpuMs) longest = { cpuMs, wallMs: (e.dur ?? 0) / 1000, tasks: 0 };
  }
  return { ...longest, tasks };
}

interface TraceEvent {
  ph: string;
  name: string;
  pid: number;
  tid: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

export class Heartbeat {
  /** The longest task since the last reset, of the traces read so far. */
  private longest: PageTask = { cpuMs: 0, wallMs: 0, tasks: 0 };
  private tracing = false;

  constructor(readonly page: Page) {}

  async install() {
    await this.page.addInitScript(INIT);
    await this.startTrace();
  }

  /** Forgets the gaps and tasks so far (the page's own start-up, say). */
  async reset() {
    await this.page.evaluate('window.__heartbeat.maxGap = 0; window.__heartbeat.gaps = []; window.__heartbeat.last = performance.now()');
    await this.stopTrace();
    this.longest = { cpuMs: 0, wallMs: 0, tasks: 0 };
    await this.startTrace();
  }

  /** The page's longest task since the page started or the last reset (its thread's CPU time and wall time). */
  async longestTask(): Promise<PageTask> {
    // A task is in the trace once it has ended: this evaluation runs only after the task going on
    // now (if any), so a freeze under way when the check comes is read whole, not lost.
    await this.page.evaluate('0');
    const trace = await this.stopTrace();
    if (trace) {
      const task = longestTask(trace);
      const tasks = this.longest.tasks + task.tasks;
      this.longest = task.cpuMs > this.longest.cpuMs ? { ...task, tasks } : { ...this.longest, tasks };
    }
    await this.startTrace();
    return this.longest;
  }

  /** Ends the trace, if one is going on (a test's end). */
  async stop() {
    await this.stopTrace();
  }

  private async startTrace() {
    const browser = this.page.context().browser();
    if (!browser || this.tracing) return;
    // "toplevel" holds each task of each thread, with its thread time: small enough for a long test.
    await browser.startTracing(this.page, { categories: ['toplevel'] });
    this.tracing = true;
  }

  private async stopTrace(): Promise<Buffer | undefined> {
    const browser = this.page.context().browser();
    if (!browser || !this.tracing) return undefined;
    this.tracing = false;
    return browser.stopTracing();
  }

  /** The largest gap since the page started or the last reset, the one going on included, in ms. */
  async maxGap(): Promise<number> {
    return this.page.evaluate<number>('Math.max(window.__heartbeat.maxGap, performance.now() - window.__heartbeat.last)');
  }

  /** The gaps over 250 ms so far, as `[start ms, length ms]` pairs, for a failure's message. */
  async gaps(): Promise<string> {
    return this.page.evaluate<string>('JSON.stringify(window.__heartbeat.gaps)');
  }

  /** The page's JS heap after a full collection, in MB. */
  async heapMb(): Promise<number> {
    const cdp = await this.page.context().newCDPSession(this.page);
    try {
      await cdp.send('HeapProfiler.collectGarbage');
      const { usedSize } = await cdp.send('Runtime.getHeapUsage');
      return usedSize / 2 ** 20;
    } finally {
      await cdp.detach();
    }
  }
}
