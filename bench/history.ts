/**
 * `npm run bench:history`: history at its size, in headless Chromium against the built console
 * (the console's server with its service, on 127.0.0.1, a throw-away database).
 *
 *   seed     10,000 runs: 75 conversations of 133 or 134 turns each (each turn carries the
 *            conversation's messages so far, as the console sends them), 25 of them pinned (outside
 *            the limits) and 50 not (the item limit, 50, exactly, and about 60 MB of the 100 MB).
 *            They are imported through history's own repository (src/db/history, bundled for the
 *            page by Vite from the sources, as the console bundles it), in a page of the console's
 *            origin, so the console's tab reads the same database.
 *   add      one stream run of 200 MB (100,000 events of 2 kB) written as the run store writes it
 *            (its entry as it starts, then its end with its events), while the console shows
 *            History in another tab. Targets: the longest task of either page ≤ 50 ms (Long Tasks
 *            API), and retention keeps every other item (the run goes alone, said too large).
 *   open     History opened from another page of the console (a click on Agent runs): the time
 *            until its newest 50 items are on screen, target ≤ 200 ms; and the same with an empty
 *            history, measured in the same run, as the baseline.
 *
 * A report: exit 0 when it measured (PASS or MISS per target), 1 when something broke.
 * Knobs: BENCH_OPENS (default 5, the median is reported), BENCH_PROFILE=file.cpuprofile (a CDP CPU
 * profile of one opening of History, for DevTools), BENCH_VERBOSE=1 (each step), CHROMIUM_PATH.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { build } from 'vite';
import { chromiumMissingMessage, chromiumPath } from '../scripts/chromium.mjs';
import { startConsoleServer } from '../scripts/console-server.ts';

const ROOT = resolve(import.meta.dirname, '..');
const OPENS = Number(process.env.BENCH_OPENS ?? 5);
const LONG_TASK_TARGET_MS = 50;
const OPEN_TARGET_MS = 200;
const CONVERSATIONS = 75;
const PINNED = 25;
const RUNS = 10_000;
const BIG_EVENTS = 100_000;
const BIG_EVENT_BYTES = 2_000;

const step = (what: string) => process.env.BENCH_VERBOSE && console.log(`  … ${what}`);
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** History's repository as one ES module for a page: the sources the console bundles, nothing else. */
async function historyModule(): Promise<string> {
  const dir = mkdtempSync(join(os.tmpdir(), 'bench-history-'));
  writeFileSync(join(dir, 'entry.ts'), `import * as history from ${JSON.stringify(join(ROOT, 'src/db/history/index.ts'))};\n(window as unknown as { __history: unknown }).__history = history;\n`);
  await build({
    configFile: false,
    root: dir,
    logLevel: 'error',
    define: { 'process.env.NODE_ENV': '"production"' },
    build: { outDir: join(dir, 'out'), minify: true, lib: { entry: join(dir, 'entry.ts'), formats: ['es'], fileName: () => 'history.js' } },
  });
  return readFileSync(join(dir, 'out', 'history.js'), 'utf8');
}

/**
 * History's repository (`window.__history`) added to the console's page, as another tab's would
 * be: its own connection to the same database. In the console's page itself, not in a second
 * tab: a tab in the background gets no frames (Chromium), and the console's work on the change
 * (its live queries) is the same page's then, as when the console writes a run of its own.
 */
async function withHistory(page: Page, origin: string, module: string): Promise<void> {
  await page.route(`${origin}/__bench/history.js`, (route) => route.fulfill({ contentType: 'text/javascript', body: module }));
  await page.addScriptTag({ url: `${origin}/__bench/history.js`, type: 'module' });
  await page.waitForFunction('window.__history !== undefined');
}

const SEED = `(async () => {
  const h = window.__history;
  const msg = (role, text) => ({ role, content: [{ type: 'text', text }] });
  const base = Date.now() - 30 * 24 * 3600_000;
  let runs = 0;
  for (let c = 0; c < ${CONVERSATIONS}; c++) {
    const n = c < ${RUNS % CONVERSATIONS} ? ${Math.ceil(RUNS / CONVERSATIONS)} : ${Math.floor(RUNS / CONVERSATIONS)};
    const thread = 'thread_bench_' + c;
    const turns = [];
    let messages = [];
    for (let t = 0; t < n; t++) {
      messages = [...messages, msg('USER', 'Question ' + t + ' of conversation ' + c)];
      const answer = msg('GLEAN_AI', 'Answer ' + t + ': yes.');
      const at = base + c * 60_000 + t;
      turns.push({
        id: 'run_bench_' + c + '_' + t, startedAt: at,
        request: { agentId: 'echo-assistant', agentName: 'Echo Assistant', flavour: 'platform', mode: 'stream', path: '/api/agents/echo-assistant/runs', body: { messages, stream: true }, thread: { id: thread, ...(t > 0 && { parentId: 'run_bench_' + c + '_' + (t - 1) }) } },
        target: { profileLabel: 'imported file', mode: 'same-origin', baseUrl: '' },
        status: 'done', durationMs: 40, eventCount: 3, bytes: 180, transcript: 'Answer ' + t + ': yes.', answerMessages: [answer],
        imported: { at: at + 1, fileName: 'bench-' + c + '.json' },
      });
      messages = [...messages, answer];
    }
    await h.importRuns(turns, base + c * 60_000 + n);
    if (c < ${PINNED}) await h.setPinned(thread, true);
    runs += n;
  }
  return runs;
})()`;

/** History's runs, items and notice, as the page's repository reads them. */
const STATE = `(async () => {
  const h = window.__history;
  const runs = await h.listRuns();
  const notice = await h.evictionNotice();
  return { runs: runs.length, items: new Set(runs.map((r) => r.request.thread?.id ?? r.id)).size, big: runs.some((r) => r.id === 'run_bench_big'), notice: notice ? notice.items.map((i) => i.id + ':' + i.reason) : [] };
})()`;

const WATCH_TASKS = `window.__tasks = []; new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__tasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: false });`;
const tasksSince = async (page: Page, since: number) => ((await page.evaluate('window.__tasks')) as [number, number][]).filter(([start]) => start >= since);

/** Adds the 200 MB run as the run store writes it, History on screen; answers the write's time and the page's longest task. */
async function addBigRun(page: Page): Promise<{ ms: number; result: string; longest: number }> {
  // The run's events exist before it ends (the stream's log held them): built before measuring, a chunk a task.
  await page.evaluate(`(async () => {
    const data = 'e'.repeat(${BIG_EVENT_BYTES});
    window.__events = [];
    for (let i = 0; i < ${BIG_EVENTS}; i += 10_000) {
      for (let j = i; j < i + 10_000; j++) window.__events.push({ seq: j + 1, id: String(j), event: 'message', at: j, gap: 0, bytes: ${BIG_EVENT_BYTES}, data });
      await new Promise((r) => setTimeout(r, 0));
    }
  })()`);
  await page.evaluate(WATCH_TASKS);
  const from = (await page.evaluate('performance.now()')) as number;
  const out = (await page.evaluate(`(async () => {
    const h = window.__history;
    const entry = {
      id: 'run_bench_big', startedAt: Date.now(),
      request: { agentId: 'firehose', agentName: 'Firehose', flavour: 'platform', mode: 'stream', path: '/api/agents/firehose/runs', body: { input: { events: ${BIG_EVENTS} }, stream: true } },
      target: { profileId: 'reference', profileLabel: 'Reference service', mode: 'same-origin', baseUrl: '' },
      status: 'streaming', durationMs: 0, eventCount: 0, bytes: 0, transcript: '',
    };
    await h.saveRun(entry);
    const t0 = performance.now();
    const result = await h.writeRun({ ...entry, status: 'done', durationMs: 60_000, eventCount: ${BIG_EVENTS}, bytes: ${BIG_EVENTS * BIG_EVENT_BYTES} }, { events: window.__events });
    return { ms: performance.now() - t0, result };
  })()`)) as { ms: number; result: string };
  // What the console does with the change (its live queries, History's list) counts too, and a second after it.
  await new Promise((r) => setTimeout(r, 1_000));
  return { ...out, longest: Math.max(0, ...(await tasksSince(page, from)).map(([, d]) => d)) };
}

/** From the Connection page, a click on Agent runs until History lists `n` items, or says it has none (on screen: the frame after). */
async function openHistory(page: Page, origin: string, n: number): Promise<number> {
  step(`opening History (${n} items)`);
  await page.goto(`${origin}/connection`);
  await page.locator('nav a[href="/runs"]').first().waitFor();
  await page.evaluate(`window.__opened = new Promise((resolve) => {
    const t0 = performance.now();
    const done = () => requestAnimationFrame(() => resolve(performance.now() - t0));
    const shown = () => ${n} === 0 ? /No runs yet/.test(document.querySelector('section.history')?.textContent ?? '') : document.querySelectorAll('section.history .history-list > li').length >= ${n};
    const check = () => { if (shown()) { observer.disconnect(); done(); } };
    const observer = new MutationObserver(check);
    observer.observe(document.body, { childList: true, subtree: true });
  }); undefined`);
  await page.locator('nav a[href="/runs"]').first().click();
  return (await page.evaluate('window.__opened')) as number;
}

async function opens(page: Page, origin: string, n: number): Promise<number> {
  // The first opening loads the page's code: warmed before timing.
  await openHistory(page, origin, n);
  const times: number[] = [];
  for (let i = 0; i < OPENS; i++) times.push(await openHistory(page, origin, n));
  return median(times);
}

async function run(): Promise<void> {
  const missing = chromiumMissingMessage();
  if (missing) throw new Error(missing);
  console.log(`bench:history — ${RUNS.toLocaleString('en-US')} runs (${CONVERSATIONS} conversations, ${PINNED} pinned), then one ${(BIG_EVENTS * BIG_EVENT_BYTES) / 1e6} MB run; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
  const module = await historyModule();
  step('history module built');
  const server = await startConsoleServer(['--rate-limit', '0']);
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('crash', () => console.error('the console page crashed'));
    const empty = await opens(page, server.origin, 0);
    // Seeded on the Connection page: what is timed is opening History, not 75 imports shown.
    await page.goto(`${server.origin}/connection`);
    await withHistory(page, server.origin, module);
    step('history module in the page');
    const started = performance.now();
    const seeded = (await page.evaluate(SEED)) as number;
    const before = (await page.evaluate(STATE)) as { runs: number; items: number };
    console.log(`seed: ${seeded.toLocaleString('en-US')} runs imported in ${((performance.now() - started) / 1000).toFixed(1)} s; history holds ${before.runs.toLocaleString('en-US')} runs in ${before.items} items`);
    if (before.runs !== RUNS || before.items !== CONVERSATIONS) throw new Error(`history should hold ${RUNS} runs in ${CONVERSATIONS} items before the big run`);

    const full = await opens(page, server.origin, 50);
    const profile = process.env.BENCH_PROFILE;
    if (process.env.BENCH_TRACE) {
      await page.goto(`${server.origin}/connection`);
      await browser.startTracing(page, { path: process.env.BENCH_TRACE, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8'] });
      await openHistory(page, server.origin, 50);
      await browser.stopTracing();
    }
    if (profile) {
      // One more opening, profiled (CDP), for DevTools.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await page.goto(`${server.origin}/connection`);
      await cdp.send('Profiler.start');
      await openHistory(page, server.origin, 50);
      writeFileSync(profile, JSON.stringify((await cdp.send('Profiler.stop')).profile));
    }
    console.log(`open: History's newest 50 items on screen in ${Math.round(full)} ms (median of ${OPENS}; target ≤ ${OPEN_TARGET_MS} ms) ${verdict(full <= OPEN_TARGET_MS)}; an empty history: ${Math.round(empty)} ms`);

    // History on screen, with its newest 50 items, while the run is added.
    await openHistory(page, server.origin, 50);
    await withHistory(page, server.origin, module);
    const big = await addBigRun(page);
    const after = (await page.evaluate(STATE)) as { runs: number; items: number; big: boolean; notice: string[] };
    const kept = after.runs === RUNS && after.items === CONVERSATIONS && !after.big;
    const said = after.notice.join(',') === 'run_bench_big:too-large';
    console.log(`add: the 200 MB run's end written in ${Math.round(big.ms)} ms (${big.result}); history keeps ${after.runs.toLocaleString('en-US')} runs in ${after.items} items, the big run ${after.big ? 'kept' : 'let go'}, the notice says ${after.notice.join(', ') || 'nothing'}: every other item kept ${verdict(kept && said)}`);
    // The Long Tasks API reports only tasks over 50 ms: none reported is "none over 50 ms", not 0 ms.
    const said50 = (ms: number) => (ms === 0 ? 'under 50 ms (none reported)' : `${Math.round(ms)} ms`);
    console.log(`add: the console's longest task while the run was written and History followed it: ${said50(big.longest)} (target ≤ ${LONG_TASK_TARGET_MS} ms) ${verdict(big.longest <= LONG_TASK_TARGET_MS)}`);
  } finally {
    await browser.close();
    server.stop();
  }
}

run().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`bench:history broke: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
