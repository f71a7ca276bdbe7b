/**
 * The suite CLI against hostile streams (issue 37): `npm run suite` in a child process, with a
 * 256 MB heap, against the hostile stand-in instance (scripts/hostile-instance.ts) running
 * cases of an endless stream (message events as fast as the CLI reads them) and of a
 * keep-alive-only stream, at once. Targets: each case ends at its deadline
 * (`--case-timeout-ms`), and the CLI's RSS stays under 300 MB throughout. Before, a
 * keep-alive-only case ran past 40 s and the endless one grew RSS 145 → 296 MB in 30 s until
 * the CLI died of its heap.
 *
 * The baseline, measured in the same run: the same CLI, same heap, running one quick case.
 *
 * Run by `npm run bench:load` (BENCH_SUITE_HOSTILE=0 skips it, =only runs it alone), or alone:
 * `npx tsx bench/suite-hostile.ts`. Knobs: BENCH_SUITE_HOSTILE_CASES (each kind, default 4),
 * BENCH_SUITE_HOSTILE_DEADLINE_MS (default 10000).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HOSTILE_TOKEN, startHostileInstance } from '../scripts/hostile-instance.ts';

const CASES = Number(process.env.BENCH_SUITE_HOSTILE_CASES ?? 4);
const DEADLINE_MS = Number(process.env.BENCH_SUITE_HOSTILE_DEADLINE_MS ?? 10_000);
const RSS_TARGET_MB = 300;
const HEAP_MB = 256;
/** A case ends at its deadline when it ends within this of it (a loaded machine's timers, the stop's own work). */
const DEADLINE_SLACK_MS = 5_000;

interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  seconds: number;
  rssMaxMb: number;
  results: { name: string; durationMs: number; eventCount: number; notes?: string[] }[];
  stderr: string;
}

/** VmRSS of a process, in MB (Linux: /proc). */
function rssMb(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A case of a suite file (docs/suite-file.md), written out here: the CLI reads the file, and
 * this process (in the bench's type-check, which has no page) imports none of the console's modules.
 */
interface FileCase {
  id: string;
  name: string;
  agent: { id: string };
  api: 'platform';
  mode: 'stream' | 'wait';
  input?: Record<string, unknown>;
  messages?: { role: 'USER'; content: { type: 'text'; text: string }[] }[];
  assertions: { kind: 'outcome'; expect: 'success' }[];
}

async function cli(dir: string, name: string, cases: FileCase[], baseUrl: string, concurrency: number): Promise<CliRun> {
  const file = join(dir, `${name}.json`);
  const json = join(dir, `${name}-results.json`);
  writeFileSync(file, JSON.stringify({ format: 'metadata-agents-console/suite', version: 1, suite: { name }, cases }));
  const started = performance.now();
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, '--import', 'tsx', 'scripts/suite.ts', file, '--base-url', baseUrl, '--concurrency', String(concurrency), '--case-timeout-ms', String(DEADLINE_MS), '--json', json], {
    env: { ...process.env, TOKEN: HOSTILE_TOKEN },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4_000)));
  let rssMaxMb = 0;
  const sampler = setInterval(() => (rssMaxMb = Math.max(rssMaxMb, rssMb(child.pid!) ?? 0)), 100);
  // A CLI that never ends its cases is what this measures: it is ended well past every deadline.
  const watchdog = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS * 3 * Math.ceil((2 * CASES) / concurrency) + 60_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
  clearInterval(sampler);
  clearTimeout(watchdog);
  let results: CliRun['results'] = [];
  try {
    results = (JSON.parse(readFileSync(json, 'utf8')) as { results: CliRun['results'] }).results;
  } catch {
    // No report: the CLI died or was killed; said below.
  }
  return { code, signal, seconds: (performance.now() - started) / 1000, rssMaxMb, results, stderr };
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
const user = [{ role: 'USER' as const, content: [{ type: 'text' as const, text: 'Hi' }] }];

/** Runs the phase, prints what it measured, and answers its rows for a table of targets: [target, figure, verdict]. */
export async function suiteHostilePhase(): Promise<string[][]> {
  if (!existsProc()) throw new Error('the suite-hostile phase reads RSS from /proc: Linux only');
  const dir = mkdtempSync(join(os.tmpdir(), 'bench-suite-hostile-'));
  const instance = await startHostileInstance();
  try {
    console.log(`\nsuite CLI against hostile streams: ${CASES} endless-stream and ${CASES} keep-alive-only cases at once, --case-timeout-ms ${fmt(DEADLINE_MS)}, a ${HEAP_MB} MB heap`);
    const quick: FileCase = { id: 'quick', name: 'Quick', agent: { id: 'long-answer' }, api: 'platform', mode: 'wait', input: { chars: 100 }, assertions: [{ kind: 'outcome', expect: 'success' }] };
    const baseline = await cli(dir, 'baseline', [quick], instance.origin, 1);
    const cases: FileCase[] = Array.from({ length: 2 * CASES }, (_, i) =>
      i % 2
        ? { id: `keep-alive-${i}`, name: `Keep-alive only ${i}`, agent: { id: 'keep-alive-only' }, api: 'platform', mode: 'stream', messages: user, assertions: [] }
        : { id: `endless-${i}`, name: `Endless events ${i}`, agent: { id: 'endless-events' }, api: 'platform', mode: 'stream', messages: user, assertions: [] },
    );
    const hostile = await cli(dir, 'hostile', cases, instance.origin, 2 * CASES);
    const range = (xs: number[]) => (xs.length ? `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}` : 'none');
    const durations = hostile.results.map((r) => r.durationMs);
    const atDeadline = hostile.results.filter((r) => r.durationMs >= DEADLINE_MS && r.durationMs <= DEADLINE_MS + DEADLINE_SLACK_MS).length;
    const events = hostile.results.filter((r) => r.name.startsWith('Endless')).map((r) => r.eventCount);
    console.log(`  baseline (one quick case): RSS max ${fmt(baseline.rssMaxMb)} MB, exit ${baseline.code}, ${fmt(baseline.seconds, 1)} s`);
    console.log(
      `  hostile: exit ${hostile.code ?? hostile.signal}, ${fmt(hostile.seconds, 1)} s; RSS max ${fmt(hostile.rssMaxMb)} MB (${fmt(hostile.rssMaxMb / baseline.rssMaxMb, 2)}x the baseline); ` +
        `${hostile.results.length} of ${cases.length} cases reported, durations ${range(durations)} ms; endless streams read ${range(events)} events each`,
    );
    if (hostile.code !== 1) console.log(`  the CLI did not exit 1 (cases failed at their deadline): ${hostile.stderr.trim().split('\n').slice(-5).join(' | ')}`);
    return [
      [`suite CLI: each of ${cases.length} hostile cases ends at its deadline (${fmt(DEADLINE_MS)} ms, +${fmt(DEADLINE_SLACK_MS)})`, `${atDeadline} of ${cases.length}`, verdict(hostile.code === 1 && atDeadline === cases.length)],
      [`suite CLI RSS < ${RSS_TARGET_MB} MB against hostile streams (baseline ${fmt(baseline.rssMaxMb)} MB)`, `${fmt(hostile.rssMaxMb)} MB`, verdict(hostile.rssMaxMb < RSS_TARGET_MB && hostile.results.length === cases.length)],
    ];
  } finally {
    await instance.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function existsProc(): boolean {
  return rssMb(process.pid) !== undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  suiteHostilePhase().then(
    (rows) => {
      for (const [target, figure, v] of rows) console.log(`${v}  ${target}: ${figure}`);
    },
    (err: unknown) => {
      console.error(`BROKEN: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    },
  );
}
