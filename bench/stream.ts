/**
 * `npm run bench:stream`: the console's agent-run stream against a bare page reading the
 * same stream with the same library, in Chromium, on 127.0.0.1 only, in one run of about
 * 30 s (a minute more when dist must be built first; bounded at WHOLE_RUN_TIMEOUT_MS).
 *
 * Starts the console with its reference service (`src/service/cli.ts start --memory`, which
 * builds dist first when sources changed) on a free port, then drives Chromium:
 *
 *   console  like a user: the "Bearer token" field of the connection panel, "Agent runs",
 *            Firehose from the agent picker, Events = N, "Run and stream"; done when the event counter reads N
 *            and the status says Done.
 *   bare     a page of this benchmark's own, fulfilled by page.route on the same origin:
 *            esbuild (installed with tsx and Vite) bundles a small entry that reads the same
 *            POST with @microsoft/fetch-event-source, JSON-parses each event and appends its
 *            text to one element; done when the Nth event's text is appended.
 *
 * Measured per page, from the click on Run (a capture listener in the page):
 *   - events/s until done;
 *   - the longest main-thread task after the first event, from a
 *     PerformanceObserver('longtask') registered before the run: tasks that start from the
 *     answer's first byte (resource timing responseStart; the click's own task, which
 *     starts before, is not counted) until done, and from done until 1 s later, when the
 *     console saves the run to its history; as a cross-check, the longest gap between
 *     requestAnimationFrame callbacks over the same windows;
 *   - the JS heap once done: CDP HeapProfiler.collectGarbage, then Runtime.getHeapUsage
 *     (and performance.memory.usedJSHeapSize, with --enable-precise-memory-info).
 * Then "1 MB events": the console reading 200 events of 1 MB from a hostile stand-in instance
 * (scripts/hostile-instance.ts) through the console's server (`--upstream`), once; its longest
 * task from the click until a second after done (target ≤ 200 ms) and its heap once done,
 * after GC (target < 300 MB), each printed PASS or MISS.
 * Rounds alternate bare, console, bare, console…; events/s is the median round, the ratio
 * the median of each console round over the bare round just before it (the machine's load
 * drifts), long tasks and heap the worst console round. The load average is printed: on a
 * busy machine every number is lower and noisier.
 *
 * It is a report: exit 0 when it measured, even with a target missed; 1 when something
 * broke (an event lost, a POST sent more or less than once, a run that failed, a timeout).
 *
 * Environment knobs: BENCH_EVENTS (default 50000), BENCH_ROUNDS (default 3),
 * BENCH_HEADED=1 (a visible browser), BENCH_TRACE=file.json (a Chromium trace of the
 * last console round, for chrome://tracing or DevTools), BENCH_PROFILE=file.cpuprofile (a
 * CDP CPU profile of the last console round, for DevTools), CHROMIUM_PATH.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { resolve } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { build } from 'esbuild';
import { chromiumMissingMessage, chromiumPath } from '../scripts/chromium.mjs';
import { startConsoleServer, type ConsoleServer } from '../scripts/console-server.ts';
import { EVENT_BYTES, HOSTILE_TOKEN, MEGABYTE_EVENTS, startHostileInstance, type HostileInstance } from '../scripts/hostile-instance.ts';

const ROOT = resolve(import.meta.dirname, '..');
const AGENTS_TOKEN = 'sandbox-agents-1d6f3b9e0a7c2548';
const RUN_PATH = '/api/agents/firehose/runs';
const BARE_PATH = '/__bench/bare-stream';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TRACE_FILE = process.env.BENCH_TRACE;
const PROFILE_FILE = process.env.BENCH_PROFILE;

const RUN_TIMEOUT_MS = 40_000;
const WHOLE_RUN_TIMEOUT_MS = 330_000;
/** How long after done long tasks and frame gaps still count (the run is saved to history then). */
const SETTLE_MS = 1_000;

/** Issue 34: the console renders a stream at least as fast as the bare page reads it. */
const RATIO_TARGET = 1.0;
const LONG_TASK_TARGET_MS = 50;
const HEAP_TARGET_MB = 150;

class Broken extends Error {}

// --- The console server ---------------------------------------------------------------

let server: ConsoleServer | undefined;
let hostile: HostileInstance | undefined;
const stopServer = () => {
  server?.stop();
  void hostile?.close();
};

async function startServer(): Promise<string> {
  try {
    // The "1 MB events" run reads a hostile stand-in instance through the console's server.
    hostile = await startHostileInstance();
    server = await startConsoleServer(['--upstream', hostile.origin], () => process.stdout.write('  (building dist first: sources changed)\n'));
  } catch (e) {
    throw new Broken(e instanceof Error ? e.message : String(e));
  }
  return server.origin;
}

/** One small stream through the service first, so its JIT is warm for both pages alike. */
async function warmUp(origin: string): Promise<void> {
  const res = await fetch(`${origin}${RUN_PATH}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${AGENTS_TOKEN}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify({ stream: true, input: { count: 20_000 } }),
  });
  if (!res.ok) throw new Broken(`Warm-up run answered ${res.status}: ${await res.text()}`);
  await res.text();
}

// --- In-page instrumentation (plain JS: it runs in the page, not under tsc) ------------

/**
 * Installed before any page script: a long-task observer, a click listener that stamps the
 * click on Run and starts a requestAnimationFrame monitor, and the console's done check.
 */
const INIT_SCRIPT = `(() => {
  const b = (window.__bench = { clickAt: null, doneAt: null, stopAt: null, frames: [], longtasks: [], longtaskSupported: false, watching: false });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) b.longtasks.push([e.startTime, e.duration]);
    }).observe({ type: 'longtask', buffered: true });
    b.longtaskSupported = true;
  } catch {}
  b.target = 0;
  b.check = () => {
    if (b.doneAt !== null) return;
    const count = document.querySelector('[data-testid="event-count"]');
    const status = document.querySelector('section.run-output .response-head [role="status"]');
    if (!count || !status) return;
    if (!b.watching) {
      b.watching = true;
      const mo = new MutationObserver(b.check);
      const opts = { childList: true, subtree: true, characterData: true };
      mo.observe(count, { ...opts, attributes: true });
      mo.observe(status, opts);
    }
    if (count.dataset.count === String(b.target) && status.textContent === 'Done') b.doneAt = performance.now();
  };
  document.addEventListener('click', (ev) => {
    const button = ev.target instanceof Element ? ev.target.closest('button') : null;
    if (!button || b.clickAt !== null || !/^Run( and stream)?$/.test(button.textContent.trim())) return;
    b.clickAt = performance.now();
    const tick = () => {
      const now = performance.now();
      b.frames.push(now);
      if (b.target) b.check();
      if (b.stopAt === null || now < b.stopAt) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }, true);
})();`;

/** The bare reader: the same request, the same library, text appended to one element. */
const BARE_ENTRY = `
import { fetchEventSource } from '@microsoft/fetch-event-source';
const out = document.getElementById('out');
document.getElementById('run').addEventListener('click', () => {
  const b = window.__bench;
  const { count, token } = window.__bareConfig;
  b.received = 0;
  fetchEventSource(${JSON.stringify(RUN_PATH)}, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', Authorization: 'Bearer ' + token },
    body: JSON.stringify({ stream: true, input: { count } }),
    credentials: 'omit',
    openWhenHidden: true,
    onmessage(msg) {
      const data = JSON.parse(msg.data);
      let text = '';
      for (const m of data.messages) for (const c of m.content) if (c.type === 'text') text += c.text;
      out.append(text);
      b.received++;
      b.lastText = text;
      if (b.received === count) b.doneAt = performance.now();
    },
    onerror(err) {
      throw err;
    },
  }).then(
    () => { b.closed = true; },
    (err) => { b.error = String(err); },
  );
});
`;

async function bareHtml(): Promise<string> {
  const out = await build({
    stdin: { contents: BARE_ENTRY, resolveDir: ROOT, loader: 'js', sourcefile: 'bare-stream.js' },
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const js = out.outputFiles[0]!.text.replace(/<\/script/gi, '<\\/script');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bare stream</title></head><body><button id="run" type="button">Run</button><div id="out"></div><script>${js}</script></body></html>`;
}

// --- One measured run -------------------------------------------------------------------

interface Measure {
  ms: number;
  eventsPerSec: number;
  /** Longest long task that started from the first byte until done (while streaming); 0 when none. */
  longTaskStreamingMs: number;
  /** Longest that started from done until done + SETTLE_MS. */
  longTaskAfterMs: number;
  /** Long tasks (over 50 ms) in both windows. */
  longTaskCount: number;
  /** Longest gap between requestAnimationFrame callbacks, by the window the gap starts in. */
  frameGapStreamingMs: number;
  frameGapAfterMs: number;
  heapMb: number;
  perfMemoryMb: number | undefined;
  firstByteMs: number;
}

interface PageState {
  clickAt: number | null;
  doneAt: number | null;
  frames: number[];
  longtasks: [number, number][];
  longtaskSupported: boolean;
  responseStart: number | null;
  perfMemory: number | null;
}

async function readState(page: Page): Promise<PageState> {
  return (await page.evaluate(`(() => {
    const b = window.__bench;
    const r = performance.getEntriesByType('resource').find((e) => e.name.endsWith(${JSON.stringify(RUN_PATH)}));
    return {
      clickAt: b.clickAt, doneAt: b.doneAt, frames: b.frames, longtasks: b.longtasks, longtaskSupported: b.longtaskSupported,
      responseStart: r ? r.responseStart : null,
      perfMemory: performance.memory ? performance.memory.usedJSHeapSize : null,
    };
  })()`)) as PageState;
}

/**
 * Polls `expression` from here, evaluated over CDP. Not `page.waitForFunction`: it compiles
 * a string predicate inside the page with `new Function`, which the console's page policy
 * (no 'unsafe-eval') refuses, so it would wait for the whole timeout whatever the page did.
 */
async function until(page: Page, expression: string): Promise<boolean> {
  const deadline = performance.now() + RUN_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (await page.evaluate(expression)) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

async function waitFor(page: Page, expression: string, what: string): Promise<void> {
  if (!(await until(page, expression))) throw new Broken(`Timed out after ${RUN_TIMEOUT_MS / 1000} s waiting for ${what}.`);
}

function measure(state: PageState): Omit<Measure, 'heapMb'> {
  const { clickAt, doneAt, responseStart } = state;
  if (clickAt === null || doneAt === null) throw new Broken('The page never stamped the click or the end.');
  if (responseStart === null || responseStart <= 0) throw new Broken('No resource timing for the run request.');
  // A task that started before the first byte (the click's own render) is not "after the
  // first event": every event is read in a task that starts once its bytes are there.
  const end = doneAt + SETTLE_MS;
  const streaming = state.longtasks.filter(([start]) => start >= responseStart && start < doneAt);
  const after = state.longtasks.filter(([start]) => start >= doneAt && start < end);
  let gapStreaming = 0;
  let gapAfter = 0;
  for (let i = 1; i < state.frames.length; i++) {
    const prev = state.frames[i - 1]!;
    const gap = state.frames[i]! - prev;
    if (prev >= responseStart && prev < doneAt) gapStreaming = Math.max(gapStreaming, gap);
    else if (prev >= doneAt && prev < end) gapAfter = Math.max(gapAfter, gap);
  }
  const ms = doneAt - clickAt;
  return {
    ms,
    eventsPerSec: EVENTS / (ms / 1000),
    longTaskStreamingMs: Math.max(0, ...streaming.map(([, d]) => d)),
    longTaskAfterMs: Math.max(0, ...after.map(([, d]) => d)),
    longTaskCount: streaming.length + after.length,
    frameGapStreamingMs: gapStreaming,
    frameGapAfterMs: gapAfter,
    perfMemoryMb: state.perfMemory === null ? undefined : state.perfMemory / 2 ** 20,
    firstByteMs: responseStart - clickAt,
  };
}

async function heapAfterGc(page: Page): Promise<{ heapMb: number; perfMemoryMb: number | undefined }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  const perf = (await page.evaluate('performance.memory ? performance.memory.usedJSHeapSize : null')) as number | null;
  return { heapMb: usedSize / 2 ** 20, perfMemoryMb: perf === null ? undefined : perf / 2 ** 20 };
}

/** Counts POSTs of the run so "exactly once" is checked on every run. */
function countPosts(page: Page): () => number {
  let n = 0;
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === RUN_PATH) n++;
  });
  return () => n;
}

async function runBare(browser: Browser, origin: string, html: string): Promise<Measure> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.addInitScript(INIT_SCRIPT);
    await page.route(`${origin}${BARE_PATH}`, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
    const posts = countPosts(page);
    await page.goto(`${origin}${BARE_PATH}`);
    await page.evaluate(`window.__bareConfig = { count: ${EVENTS}, token: ${JSON.stringify(AGENTS_TOKEN)} }`);
    await page.getByRole('button', { name: 'Run' }).click();
    await waitFor(page, `window.__bench.doneAt !== null || window.__bench.error !== undefined`, `the bare page's ${EVENTS} events`);
    const err = (await page.evaluate('window.__bench.error')) as string | undefined;
    if (err) throw new Broken(`The bare page's stream failed: ${err}`);
    await waitFor(page, 'window.__bench.closed === true || window.__bench.error !== undefined', 'the bare stream to close');
    await page.waitForTimeout(SETTLE_MS);
    await page.evaluate('window.__bench.stopAt = performance.now()');
    const check = (await page.evaluate(`({ received: window.__bench.received, nodes: document.getElementById('out').childNodes.length, last: window.__bench.lastText, error: window.__bench.error })`)) as {
      received: number;
      nodes: number;
      last: string;
      error?: string;
    };
    if (check.error) throw new Broken(`The bare page's stream failed: ${check.error}`);
    if (check.received !== EVENTS || check.nodes !== EVENTS || check.last !== `token ${EVENTS} `) {
      throw new Broken(`The bare page lost events: ${check.received} received, ${check.nodes} appended, last ${JSON.stringify(check.last)}.`);
    }
    if (posts() !== 1) throw new Broken(`The bare page POSTed the run ${posts()} times.`);
    const m = measure(await readState(page));
    const heap = await heapAfterGc(page);
    return { ...m, ...heap };
  } finally {
    await context.close();
  }
}

function expectedTranscriptLength(n: number): number {
  // "token k " for k = 1..n
  let len = 0;
  for (let digits = 1, lo = 1; lo <= n; digits++, lo *= 10) len += (Math.min(n, lo * 10 - 1) - lo + 1) * (digits + 7);
  return len;
}

async function runConsole(browser: Browser, origin: string, trace: boolean): Promise<Measure> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(INIT_SCRIPT);
    const posts = countPosts(page);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${origin}/`);
    const panel = page.getByRole('complementary', { name: 'Connection' });
    await panel.getByLabel('Bearer token').fill(AGENTS_TOKEN);
    await page.getByRole('link', { name: 'Agent runs' }).click();
    await page.getByRole('combobox', { name: 'Agent' }).fill('Firehose');
    await page.getByRole('listbox', { name: 'Agents' }).getByRole('option', { name: /^Firehose/ }).click();
    const events = page.getByRole('spinbutton', { name: 'Events', exact: true });
    await events.fill(String(EVENTS));
    await page.evaluate(`window.__bench.target = ${EVENTS}`);
    const run = page.getByRole('button', { name: 'Run and stream' });
    await run.waitFor();
    if (trace && TRACE_FILE) await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-v8.cpu_profiler', 'v8.execute', 'blink.user_timing'] });
    const profiler = trace && PROFILE_FILE ? await page.context().newCDPSession(page) : undefined;
    if (profiler) {
      await profiler.send('Profiler.enable');
      await profiler.send('Profiler.setSamplingInterval', { interval: 200 });
      await profiler.send('Profiler.start');
    }
    await run.click();
    const status = page.locator('section.run-output .response-head [role="status"]');
    const ended = await until(
      page,
      'window.__bench.doneAt !== null || ["Failed", "Interrupted", "Stopped", "Refused"].includes(document.querySelector(\'section.run-output .response-head [role="status"]\')?.textContent)',
    );
    if (!ended) {
      const shown = await page.getByTestId('event-count').getAttribute('data-count').catch(() => null);
      throw new Broken(`Timed out after ${RUN_TIMEOUT_MS / 1000} s: the console shows ${shown ?? 'no'} events, status ${await status.textContent().catch(() => '?')}.`);
    }
    const finalStatus = await status.textContent();
    if (finalStatus !== 'Done') throw new Broken(`The console's run ended ${finalStatus}: ${await page.getByTestId('event-count').textContent()} events shown.`);
    await page.waitForTimeout(SETTLE_MS);
    await page.evaluate('window.__bench.stopAt = performance.now()');
    if (trace && TRACE_FILE) {
      writeFileSync(TRACE_FILE, await browser.stopTracing());
      process.stdout.write(`  trace of this console round written to ${TRACE_FILE}\n`);
    }
    if (profiler && PROFILE_FILE) {
      const { profile } = await profiler.send('Profiler.stop');
      writeFileSync(PROFILE_FILE, JSON.stringify(profile));
      await profiler.detach();
      process.stdout.write(`  CPU profile of this console round written to ${PROFILE_FILE}\n`);
    }
    const transcript = (await page.evaluate(`(() => { const t = document.querySelector('[aria-label="Transcript"]').textContent; return { length: t.length, tail: t.slice(-40) }; })()`)) as {
      length: number;
      tail: string;
    };
    const want = expectedTranscriptLength(EVENTS);
    if (transcript.length !== want || !transcript.tail.endsWith(` token ${EVENTS} `)) {
      throw new Broken(`The console's transcript lost text: ${transcript.length} characters (want ${want}), ends ${JSON.stringify(transcript.tail)}.`);
    }
    const timeline = page.getByRole('listbox', { name: /\d+ events/ });
    const timelineLabel = await timeline.getAttribute('aria-label');
    if (timelineLabel !== `${EVENTS} events`) throw new Broken(`The console's timeline says "${timelineLabel}".`);
    const lastRow = timeline.getByRole('option').filter({ hasText: `token ${EVENTS}` });
    if ((await lastRow.count()) !== 1) throw new Broken(`The timeline does not show event ${EVENTS} at its end.`);
    if (posts() !== 1) throw new Broken(`The console POSTed the run ${posts()} times.`);
    if (errors.length) throw new Broken(`The console threw: ${errors.join('; ')}`);
    const m = measure(await readState(page));
    const heap = await heapAfterGc(page);
    return { ...m, ...heap };
  } finally {
    await context.close();
  }
}

// --- 1 MB events ---------------------------------------------------------------------------

const MB_LONG_TASK_TARGET_MS = 200;
const MB_HEAP_TARGET_MB = 300;
const MB_RUN_TIMEOUT_MS = 120_000;

interface MegabyteMeasure {
  ms: number;
  longTaskMs: number;
  longTaskCount: number;
  frameGapMs: number;
  heapMb: number;
}

/**
 * The console reading MEGABYTE_EVENTS events of 1 MB each from the hostile stand-in instance,
 * through the console's server (`--upstream`), like a user: a profile connecting through the
 * server, the agent's page, a message, Run and stream; done when the status says Done with
 * every event counted. Long tasks and frame gaps from the click until a second after done.
 */
async function runMegabyte(browser: Browser, origin: string): Promise<MegabyteMeasure> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(INIT_SCRIPT);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${origin}/connection`);
    const main = page.getByRole('main');
    const panel = page.getByRole('complementary', { name: 'Connection' });
    await main.getByRole('region', { name: 'Profiles' }).getByRole('button', { name: 'New profile' }).click();
    await panel.getByLabel('Profile name').fill('Hostile');
    await panel.getByLabel('Connect to').selectOption({ label: 'Instance, via this console’s server' });
    await panel.getByLabel('Bearer token').fill(HOSTILE_TOKEN);
    await page.goto(`${origin}/runs/megabyte-events`);
    await page.getByLabel('Message 1 text').fill('Send the big ones');
    const run = page.getByRole('button', { name: 'Run and stream' });
    await run.click();
    const deadline = performance.now() + MB_RUN_TIMEOUT_MS;
    let status = '';
    for (;;) {
      status = (await page.evaluate(`document.querySelector('section.run-output .response-head [role="status"]')?.textContent ?? ''`)) as string;
      if (status !== 'Streaming…' && status !== 'Sending…' && status !== '') break;
      if (performance.now() > deadline) throw new Broken(`1 MB events: no end after ${MB_RUN_TIMEOUT_MS / 1000} s (status ${status}).`);
      await new Promise((r) => setTimeout(r, 250));
    }
    await page.evaluate('window.__bench.doneAt = performance.now()');
    if (status !== 'Done') throw new Broken(`1 MB events: the run ended ${status}.`);
    const count = await page.getByTestId('event-count').getAttribute('data-count');
    if (count !== String(MEGABYTE_EVENTS)) throw new Broken(`1 MB events: the console counted ${count} events, not ${MEGABYTE_EVENTS}.`);
    await page.waitForTimeout(SETTLE_MS);
    await page.evaluate('window.__bench.stopAt = performance.now()');
    if (errors.length) throw new Broken(`1 MB events: the console threw: ${errors.join('; ')}`);
    const state = await readState(page);
    const from = state.clickAt!;
    const to = state.doneAt! + SETTLE_MS;
    const tasks = state.longtasks.filter(([start]) => start >= from && start < to);
    let gap = 0;
    for (let i = 1; i < state.frames.length; i++) {
      const prev = state.frames[i - 1]!;
      if (prev >= from && prev < to) gap = Math.max(gap, state.frames[i]! - prev);
    }
    const heap = await heapAfterGc(page);
    return { ms: state.doneAt! - from, longTaskMs: Math.max(0, ...tasks.map(([, d]) => d)), longTaskCount: tasks.length, frameGapMs: gap, heapMb: heap.heapMb };
  } finally {
    await context.close();
  }
}

// --- Report -------------------------------------------------------------------------------

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const int = (x: number) => Math.round(x).toLocaleString('en-US');
const ms = (x: number) => `${x.toFixed(0)} ms`;
const mb = (x: number) => `${x.toFixed(1)} MB`;

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

function roundLine(kind: string, i: number, m: Measure): string {
  return (
    `  ${kind.padEnd(7)} round ${i + 1}: ${int(m.eventsPerSec).padStart(7)} events/s (${(m.ms / 1000).toFixed(2)} s, first byte +${ms(m.firstByteMs)}), ` +
    `longest task ${ms(m.longTaskStreamingMs)} streaming / ${ms(m.longTaskAfterMs)} after done (${m.longTaskCount} over 50 ms), ` +
    `frame gap ${ms(m.frameGapStreamingMs)} / ${ms(m.frameGapAfterMs)}, heap ${mb(m.heapMb)}`
  );
}

const loadAverage = () => os.loadavg().map((x) => x.toFixed(1)).join(' / ');

async function main(): Promise<void> {
  const missing = chromiumMissingMessage();
  if (missing) throw new Broken(missing);
  console.log(`bench:stream: ${EVENTS.toLocaleString('en-US')} events from the firehose agent, console vs bare page, ${ROUNDS} round(s) each, Chromium ${chromiumPath()}`);
  console.log(`  machine: ${os.cpus().length} CPUs, load average ${loadAverage()} at start`);
  const [origin, html] = await Promise.all([startServer(), bareHtml()]);
  console.log(`  console server on ${origin}`);
  await warmUp(origin);
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: process.env.BENCH_HEADED !== '1',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--enable-precise-memory-info'],
  });
  const bare: Measure[] = [];
  const consoleRuns: Measure[] = [];
  let megabyte: MegabyteMeasure | undefined;
  let longtaskSupported = true;
  try {
    const probe = await browser.newPage();
    await probe.addInitScript(INIT_SCRIPT);
    await probe.goto('about:blank');
    longtaskSupported = (await probe.evaluate('window.__bench.longtaskSupported')) as boolean;
    await probe.close();
    for (let i = 0; i < ROUNDS; i++) {
      const b = await runBare(browser, origin, html);
      bare.push(b);
      console.log(roundLine('bare', i, b));
      const c = await runConsole(browser, origin, (TRACE_FILE !== undefined || PROFILE_FILE !== undefined) && i === ROUNDS - 1);
      consoleRuns.push(c);
      console.log(roundLine('console', i, c));
    }
    megabyte = await runMegabyte(browser, origin);
  } finally {
    await browser.close();
  }

  const c = median(consoleRuns.map((m) => m.eventsPerSec));
  const b = median(bare.map((m) => m.eventsPerSec));
  // Each console round against the bare round just before it, which ran under the same load.
  const ratio = median(consoleRuns.map((m, i) => m.eventsPerSec / bare[i]!.eventsPerSec));
  const worst = (runs: Measure[], f: (m: Measure) => number) => Math.max(...runs.map(f));
  const taskStreaming = worst(consoleRuns, (m) => m.longTaskStreamingMs);
  const taskAfter = worst(consoleRuns, (m) => m.longTaskAfterMs);
  const longTask = Math.max(taskStreaming, taskAfter);
  const heap = worst(consoleRuns, (m) => m.heapMb);
  const perfMem = consoleRuns.map((m) => m.perfMemoryMb).filter((x): x is number => x !== undefined);

  const verdict = (met: boolean, by: string) => (met ? 'met' : `missed by ${by}`);
  const taskVerdict = (x: number) => (longtaskSupported ? verdict(x <= LONG_TASK_TARGET_MS, ms(x - LONG_TASK_TARGET_MS)) : 'not measured (no longtask entries)');
  const task = (x: number) => (longtaskSupported ? ms(x) : 'n/a');
  console.log('');
  console.log(
    table([
      ['', 'console', 'bare page', 'target', 'verdict'],
      ['events/s, click to last event shown (median)', int(c), int(b), '', ''],
      ['console / bare (median of paired rounds)', ratio.toFixed(2), '', `≥ ${RATIO_TARGET.toFixed(2)}`, verdict(ratio >= RATIO_TARGET, (RATIO_TARGET - ratio).toFixed(2))],
      [`longest task after the first event (to done + ${SETTLE_MS / 1000} s)`, task(longTask), task(worst(bare, (m) => Math.max(m.longTaskStreamingMs, m.longTaskAfterMs))), `≤ ${LONG_TASK_TARGET_MS} ms`, taskVerdict(longTask)],
      ['  while streaming (first byte to done)', task(taskStreaming), task(worst(bare, (m) => m.longTaskStreamingMs)), `≤ ${LONG_TASK_TARGET_MS} ms`, taskVerdict(taskStreaming)],
      [`  after done (run saved to history)`, task(taskAfter), task(worst(bare, (m) => m.longTaskAfterMs)), `≤ ${LONG_TASK_TARGET_MS} ms`, taskVerdict(taskAfter)],
      ['longest rAF gap while streaming (cross-check)', ms(worst(consoleRuns, (m) => m.frameGapStreamingMs)), ms(worst(bare, (m) => m.frameGapStreamingMs)), '', ''],
      ['longest rAF gap after done (cross-check)', ms(worst(consoleRuns, (m) => m.frameGapAfterMs)), ms(worst(bare, (m) => m.frameGapAfterMs)), '', ''],
      [`JS heap after ${EVENTS.toLocaleString('en-US')} events, after GC`, mb(heap), mb(worst(bare, (m) => m.heapMb)), `< ${HEAP_TARGET_MB} MB`, verdict(heap < HEAP_TARGET_MB, mb(heap - HEAP_TARGET_MB))],
      ['  performance.memory.usedJSHeapSize', perfMem.length ? mb(Math.max(...perfMem)) : 'n/a', '', '', ''],
    ]),
  );
  if (megabyte) {
    const pass = (met: boolean, by: string) => (met ? 'PASS' : `MISS by ${by}`);
    console.log('');
    console.log(`1 MB events: ${MEGABYTE_EVENTS} events of ${mb(EVENT_BYTES / 2 ** 20)} from a hostile stand-in instance through the console's server, in ${(megabyte.ms / 1000).toFixed(1)} s`);
    console.log(
      table([
        ['', 'console', 'target', 'verdict'],
        [`longest task, click to done + ${SETTLE_MS / 1000} s (${megabyte.longTaskCount} over 50 ms)`, task(megabyte.longTaskMs), `≤ ${MB_LONG_TASK_TARGET_MS} ms`, longtaskSupported ? pass(megabyte.longTaskMs <= MB_LONG_TASK_TARGET_MS, ms(megabyte.longTaskMs - MB_LONG_TASK_TARGET_MS)) : 'not measured'],
        ['longest rAF gap (cross-check)', ms(megabyte.frameGapMs), '', ''],
        ['JS heap once done, after GC', mb(megabyte.heapMb), `< ${MB_HEAP_TARGET_MB} MB`, pass(megabyte.heapMb < MB_HEAP_TARGET_MB, mb(megabyte.heapMb - MB_HEAP_TARGET_MB))],
      ]),
    );
  }
  console.log(`\nLoad average ${loadAverage()} at the end on ${os.cpus().length} CPUs${os.loadavg()[0]! > os.cpus().length ? ': the machine was busy with other work, so absolute numbers are low and noisy' : ''}.`);
  console.log(`Long tasks and rAF gaps: worst round; a rAF gap is about one frame (~17 ms) longer than the task that caused it.`);
}

const watchdog = setTimeout(() => {
  console.error(`bench:stream: gave up after ${WHOLE_RUN_TIMEOUT_MS / 1000} s.`);
  stopServer();
  process.exit(1);
}, WHOLE_RUN_TIMEOUT_MS);
watchdog.unref();

try {
  await main();
  stopServer();
  process.exitCode = 0;
} catch (err) {
  stopServer();
  console.error(`bench:stream: ${err instanceof Broken ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
} finally {
  clearTimeout(watchdog);
}
