/**
 * `npm run bench:suite`: 1,000 cases of echo-assistant at concurrency 16 against the reference
 * service (the console's server with its service mounted, `--rate-limit 0 --max-runs 0`, on
 * 127.0.0.1), headless and in the console.
 *
 *   headless  `npm run suite`'s own `main` (scripts/suite.ts), in this process, with
 *             `--concurrency 16 --json` to a temporary file: reading the file, running every
 *             case through the console's runner, judging its assertions, writing the report;
 *             against a bare loop of the same 1,000 POSTs at the same concurrency, each body
 *             read to its end, nothing judged. Rounds alternate bare, headless, bare,
 *             headless; the ratio is the median of each headless round over the bare round
 *             just before it. Target: ≤ 1.3.
 *   console   Chromium: the suite imported on /suites, Run suite with concurrency 16; from the
 *             click until "Finished: 1,000 of 1,000" and the kept results shown a second, the longest main-thread task
 *             (PerformanceObserver 'longtask', target ≤ 50 ms) and the JS heap, read every
 *             second (CDP Runtime.getHeapUsage, without forcing a collection; target < 200 MB).
 *
 *   durable   200 trip-planner cases (durable, approve-all) at concurrency 8 with `npm run suite`,
 *             against a reference service at its default rate limit (600 requests a minute per
 *             token) behind a counting proxy: no case may fail (for a 429, a deadline, anything),
 *             and the run may take at most 1.5× the time the limit itself allows for the requests
 *             the service accepted (their number over 10 a second).
 *
 * A report: exit 0 when it measured (PASS or MISS per target), 1 when something broke.
 * Knobs: BENCH_CASES (default 1000), BENCH_ROUNDS (default 2), BENCH_DURABLE_CASES (default 200;
 * 0 skips the phase), BENCH_PHASES (a comma list of headless, console, durable; all by default),
 * BENCH_PROFILE=file.cpuprofile (a CDP CPU profile of the console's run, for DevTools), CHROMIUM_PATH.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { chromiumMissingMessage, chromiumPath } from '../scripts/chromium.mjs';
import { startConsoleServer, startReferenceService } from '../scripts/console-server.ts';
import { main } from '../scripts/suite.ts';
import { suiteFileOf } from '../src/engine/suites/suite-file.ts';
import type { SuiteCase } from '../src/engine/suites/suite.ts';
import { faultProxy } from '../src/test-support/fault-proxy.ts';

const TOKEN = 'sandbox-agents-1d6f3b9e0a7c2548';
const CASES = Number(process.env.BENCH_CASES ?? 1_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONCURRENCY = 16;
const RATIO_TARGET = 1.3;
const LONG_TASK_TARGET_MS = 50;
const HEAP_TARGET_MB = 200;

const DURABLE_CASES = Number(process.env.BENCH_DURABLE_CASES ?? 200);
const DURABLE_CONCURRENCY = 8;
const DURABLE_RATIO_TARGET = 1.5;
/** The reference service's default: 600 requests a minute per token. */
const LIMIT_PER_SECOND = 10;
const PHASES = new Set((process.env.BENCH_PHASES ?? 'headless,console,durable').split(',').map((p) => p.trim()));

const dir = mkdtempSync(join(os.tmpdir(), 'bench-suite-'));
const question = (i: number) => `Question number ${i}`;
const cases: SuiteCase[] = Array.from({ length: CASES }, (_, i) => ({
  id: `case_${i}`,
  name: `Echo ${i}`,
  agent: { id: 'echo-assistant', name: 'Echo Assistant' },
  api: 'platform',
  mode: 'stream',
  messages: [{ role: 'USER', content: [{ type: 'text', text: question(i) }] }],
  assertions: [{ kind: 'outcome', expect: 'success' }, { kind: 'answer-contains', text: question(i) }, { kind: 'events-at-least', count: 1 }, { kind: 'header', name: 'Deprecation', present: false }],
}));
const file = join(dir, 'suite.json');
writeFileSync(file, JSON.stringify(suiteFileOf({ name: 'Bench: echo', cases })));

/** The same POSTs, `CONCURRENCY` at a time, each body read to its end. */
async function bareLoop(origin: string): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < CASES) {
      const i = next++;
      const res = await fetch(`${origin}/api/agents/echo-assistant/runs`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
        body: JSON.stringify({ messages: cases[i]!.messages, stream: true }),
      });
      const text = await res.text();
      if (!res.ok || !text.includes('data:')) throw new Error(`bare run ${i}: ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return performance.now() - started;
}

async function headless(origin: string): Promise<number> {
  const started = performance.now();
  let out = '';
  const code = await main([file, '--base-url', origin, '--concurrency', String(CONCURRENCY), '--json', join(dir, 'results.json')], {
    stdout: () => undefined,
    stderr: (t) => (out += t),
    progress: false,
    env: { TOKEN },
  });
  if (code !== 0) throw new Error(`npm run suite exited ${code}: ${out}`);
  return performance.now() - started;
}

/**
 * 200 trip-planner cases, approve-all, at concurrency 8 against the service's default rate limit:
 * how many failed, and the wall time against what the limit allows for the requests accepted.
 */
async function durablePhase(): Promise<void> {
  const service = await startReferenceService([]);
  const proxy = await faultProxy(service.origin);
  try {
    const durable: SuiteCase[] = Array.from({ length: DURABLE_CASES }, (_, i) => ({
      id: `trip_${i}`,
      name: `Trip ${i}`,
      agent: { id: 'trip-planner', name: 'Trip Planner' },
      api: 'platform',
      mode: 'durable',
      messages: [{ role: 'USER', content: [{ type: 'text', text: `Plan trip ${i}` }] }],
      policy: { kind: 'approve-all' },
      assertions: [{ kind: 'outcome', expect: 'success' }],
    }));
    const durableFile = join(dir, 'durable.json');
    writeFileSync(durableFile, JSON.stringify(suiteFileOf({ name: 'Bench: trips', cases: durable })));
    let out = '';
    const started = performance.now();
    const code = await main([durableFile, '--base-url', proxy.url, '--concurrency', String(DURABLE_CONCURRENCY), '--json', join(dir, 'durable-results.json')], {
      stdout: () => undefined,
      stderr: (t) => (out += t),
      progress: false,
      env: { TOKEN },
    });
    const seconds = (performance.now() - started) / 1000;
    const results = JSON.parse(readFileSync(join(dir, 'durable-results.json'), 'utf8')) as { results: { verdict: string; name: string; status: string; problem?: string }[] };
    const failed = results.results.filter((r) => r.verdict !== 'passed');
    const accepted = proxy.seen.filter((r) => r.status !== 429).length;
    const refused = proxy.seen.length - accepted;
    const allowed = accepted / LIMIT_PER_SECOND;
    const ratio = seconds / allowed;
    console.log(
      `\ndurable: ${DURABLE_CASES} trip-planner cases (approve-all) at concurrency ${DURABLE_CONCURRENCY} against the default rate limit (600/min): ` +
        `${seconds.toFixed(1)} s; ${accepted} requests accepted (${(accepted / DURABLE_CASES).toFixed(1)} a case), ${refused} refused 429; the limit allows them in ${allowed.toFixed(1)} s`,
    );
    console.log(`  cases failed: ${failed.length} (target 0) ${verdict(failed.length === 0 && code === 0)}${failed.length ? ` — first: ${failed[0]!.name}: ${failed[0]!.status} ${failed[0]!.problem ?? out.slice(0, 300)}` : ''}`);
    console.log(`  time against what the limit allows: ${ratio.toFixed(2)}× (target ≤ ${DURABLE_RATIO_TARGET}×) ${verdict(ratio <= DURABLE_RATIO_TARGET)}`);
  } finally {
    await proxy.close();
    service.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');

async function inTheConsole(origin: string): Promise<{ longestTaskMs: number; tasksOver50: number; heapMb: number; seconds: number }> {
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${origin}/connection`);
    await page.getByLabel('Bearer token').first().fill(TOKEN);
    await page.goto(`${origin}/suites`);
    await page.getByLabel('Suite file to import').setInputFiles(file);
    await page.getByRole('button', { name: 'Run suite' }).waitFor();
    await page.getByLabel('Concurrency').fill(String(CONCURRENCY));
    await page.evaluate(`
      window.__tasks = [];
      new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__tasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask' });
    `);
    const cdp = await page.context().newCDPSession(page);
    let heapMax = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const { usedSize } = await cdp.send('Runtime.getHeapUsage');
        heapMax = Math.max(heapMax, usedSize);
        await new Promise((r) => setTimeout(r, 1_000));
      }
    })().catch(() => undefined);
    const profile = process.env.BENCH_PROFILE;
    if (profile) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.start');
    }
    const clickAt = (await page.evaluate('performance.now()')) as number;
    const started = performance.now();
    // By CSS, not by role: Playwright names every button of the page for a role query (a thousand
    // cases have two thousand), a task of its own in the page that would count as the page's.
    await page.locator('section.suite-run button.primary').click();
    // A cheap check every half second: Playwright's text locators walk the whole page in it, and
    // would be the page's longest tasks themselves once the results table is long.
    const finished = `Finished: ${CASES.toLocaleString('en-US')} of ${CASES.toLocaleString('en-US')}`;
    for (const until = Date.now() + 600_000; ; await new Promise((r) => setTimeout(r, 500))) {
      const text = (await page.evaluate(`document.querySelector('.suite-progress')?.textContent ?? ''`)) as string;
      if (text.includes(finished)) break;
      if (Date.now() > until) throw new Error(`the suite did not finish in 10 minutes: ${text}`);
    }
    const seconds = (performance.now() - started) / 1000;
    // The run's end is not the page's: it then shows the results kept in the browser database
    // (with the run's summary). That work counts too, and a second after it.
    for (const until = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 250))) {
      if ((await page.evaluate(`!!document.querySelector('.suite-results .suite-summary')`)) as boolean) break;
      if (Date.now() > until) throw new Error('the kept results were not shown a minute after the run ended');
    }
    await new Promise((r) => setTimeout(r, 1_000));
    sampling = false;
    await sampler;
    if (profile) writeFileSync(profile, JSON.stringify((await cdp.send('Profiler.stop')).profile));
    const tasks = ((await page.evaluate('window.__tasks')) as [number, number][]).filter(([start]) => start >= clickAt);
    const progress = (await page.evaluate(`document.querySelector('.suite-progress').textContent`)) as string;
    if (!progress.includes('· 0 failed')) throw new Error(`a case failed in the console: ${progress}`);
    return { longestTaskMs: Math.max(0, ...tasks.map(([, d]) => d)), tasksOver50: tasks.filter(([, d]) => d > 50).length, heapMb: heapMax / 1024 / 1024, seconds };
  } finally {
    await browser.close();
  }
}

async function run(): Promise<void> {
  const missing = chromiumMissingMessage();
  console.log(`bench:suite — ${CASES.toLocaleString('en-US')} echo-assistant cases at concurrency ${CONCURRENCY}; load average ${os.loadavg().map((n) => n.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
  if (PHASES.has('durable') && DURABLE_CASES > 0) await durablePhase();
  if (!PHASES.has('headless') && !PHASES.has('console')) return;
  const server = await startConsoleServer(['--rate-limit', '0', '--max-runs', '0']);
  try {
    // Warm both paths (the service's agent catalogue, the runner's modules) before timing.
    await bareLoop(server.origin).catch((err: unknown) => {
      throw new Error(`warm-up: ${String(err)}`);
    });
    const ratios: number[] = [];
    const bare: number[] = [];
    const cli: number[] = [];
    for (let round = 1; PHASES.has('headless') && round <= ROUNDS; round++) {
      const b = await bareLoop(server.origin);
      const h = await headless(server.origin);
      bare.push(b);
      cli.push(h);
      ratios.push(h / b);
      console.log(`  round ${round}: bare loop ${(b / 1000).toFixed(2)} s, npm run suite ${(h / 1000).toFixed(2)} s, ratio ${(h / b).toFixed(2)}`);
    }
    const ratio = ratios.length ? median(ratios) : NaN;
    if (ratios.length) console.log(`\nheadless: median ratio ${ratio.toFixed(2)} (target ≤ ${RATIO_TARGET}) ${verdict(ratio <= RATIO_TARGET)}; bare ${(median(bare) / 1000).toFixed(2)} s, npm run suite ${(median(cli) / 1000).toFixed(2)} s`);
    if (!PHASES.has('console')) return;
    if (missing) {
      console.log(`console: not measured — ${missing}`);
      return;
    }
    const page = await inTheConsole(server.origin);
    console.log(
      // The longtask API reports only tasks over 50 ms: none reported is "none over 50 ms", not 0 ms.
      `console: ${page.seconds.toFixed(1)} s; longest task ${page.tasksOver50 ? `${Math.round(page.longestTaskMs)} ms` : 'under 50 ms (none reported)'} (target ≤ ${LONG_TASK_TARGET_MS} ms, ${page.tasksOver50} over 50 ms) ${verdict(page.longestTaskMs <= LONG_TASK_TARGET_MS)}; ` +
        `heap at most ${page.heapMb.toFixed(1)} MB while it ran (target < ${HEAP_TARGET_MB} MB) ${verdict(page.heapMb < HEAP_TARGET_MB)}`,
    );
  } finally {
    server.stop();
  }
}

run().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`bench:suite broke: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
