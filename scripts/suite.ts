/**
 * `npm run suite -- FILE --base-url URL [--concurrency N] [--case-timeout-ms N] [--max-rps N] [--junit PATH] [--json PATH] [--only NAME]`
 *
 * Runs an exported agent test suite headless, for CI. The token comes from `TOKEN`, as every
 * copied snippet reads it, and goes only into the Authorization header to `--base-url`. It
 * runs the console's own modules (src/features/agent-runs/model/suite: the runner, the run
 * senders and state machine, the assertions, the approval policies); only the stream reader
 * is Node's (src/lib/node-event-reader.ts).
 *
 * Exit codes: 0 every case passed; 1 a case failed; 2 the file or the command line is wrong
 * (a message that names the place, never a stack trace); 130 (SIGINT, Ctrl+C) or 143 (SIGTERM):
 * stopped, the reports written with the cases done and the rest marked not run.
 *
 * Whatever a server echoes, the token is in nothing it prints or writes (src/lib/redact.ts).
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nodeEventReader } from '../src/lib/node-event-reader.ts';
import { SpecLens } from '../src/lib/spec-lens/lens.ts';
import { MAX_CASE_DEADLINE_MS, MIN_CASE_DEADLINE_MS } from '../src/engine/suites/case-limits.ts';
import { caseLine, junitXml, resultsJson, summaryTable, type NotRun, type ReportMeta } from '../src/engine/suites/reports.ts';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY, runSuite, type CaseResult, type RunnerEnv } from '../src/engine/suites/runner.ts';
import { itemName } from '../src/engine/suites/suite.ts';
import { redactText, secretsOf } from '../src/lib/redact.ts';
import { nodePatternJudge } from './node-patterns.ts';
import { itemsOf } from '../src/engine/suites/suite.ts';
import { MAX_SUITE_FILE_BYTES, parseSuiteFile } from '../src/engine/suites/suite-file.ts';
import { summarize } from '../src/engine/suites/summary.ts';
import { integerFlag, parseFlagsAndArguments, UsageError } from '../src/service/flags.ts';
import { compiledSpecValidators, readLensSpecs } from '../src/service/spec-validators.ts';

export const USAGE = 'Usage: npm run suite -- FILE --base-url URL [--concurrency N] [--case-timeout-ms N] [--max-rps N] [--junit PATH] [--json PATH] [--only NAME]';

/** Exit codes of a suite stopped by a signal: 128 + its number, as a shell reports it. */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
/** After a stop, how long the runs in flight get to end (a durable run to be asked to cancel) before the reports are written without them. */
export const STOP_GRACE_MS = 2_000;

/** Where the command writes, so tests and the benchmark can run it in process. */
export interface SuiteIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** A progress bar on stderr (a terminal), instead of a line per case. */
  progress: boolean;
  env: Record<string, string | undefined>;
  /** Stops the suite; its reason, when a signal's name (SIGINT, SIGTERM), is the exit code's. */
  signal?: AbortSignal;
}

const OPTIONS = {
  'base-url': { type: 'string' },
  concurrency: { type: 'string' },
  'case-timeout-ms': { type: 'string' },
  'max-rps': { type: 'string' },
  junit: { type: 'string' },
  json: { type: 'string' },
  only: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

function baseUrlOf(raw: string | undefined): string {
  if (raw === undefined) throw new UsageError('--base-url is required: the instance (or reference service) to run the suite against, e.g. --base-url http://127.0.0.1:8787.');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--base-url takes an http or https address, e.g. http://127.0.0.1:8787; not ${JSON.stringify(raw.slice(0, 80))}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base-url takes an http or https address; not ${url.protocol}.`);
  if (url.username || url.password) throw new UsageError('--base-url must not hold a user or password: the token comes from TOKEN, into the Authorization header.');
  if (url.search || url.hash) throw new UsageError('--base-url is an origin and an optional path prefix, without ?query or #fragment.');
  return url.href.replace(/\/+$/, '');
}

function bar(done: number, total: number, passed: number, failed: number): string {
  const width = 30;
  const filled = total ? Math.round((done / total) * width) : width;
  return `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}  passed ${passed}  failed ${failed} `;
}

/** The command, in process: answers its exit code. */
export async function main(argv: readonly string[], io: SuiteIo): Promise<number> {
  let args;
  try {
    args = parseFlagsAndArguments(argv, OPTIONS);
  } catch (err) {
    io.stderr(`suite: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = args;
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  let baseUrl: string;
  let concurrency: number;
  let caseDeadlineMs: number | undefined;
  let maxRps: number | undefined;
  try {
    if (positionals.length !== 1) throw new UsageError(positionals.length ? `one suite file at a time; got ${positionals.length}: ${positionals.join(', ')}.` : 'the suite FILE to run is missing (an exported suite, docs/suite-file.md).');
    baseUrl = baseUrlOf(values['base-url']);
    concurrency = integerFlag('concurrency', values.concurrency, { min: 1, max: MAX_CONCURRENCY, meaning: 'runs at once' }) ?? DEFAULT_CONCURRENCY;
    caseDeadlineMs = integerFlag('case-timeout-ms', values['case-timeout-ms'], { min: MIN_CASE_DEADLINE_MS, max: MAX_CASE_DEADLINE_MS, meaning: 'the deadline of a case that names none, in ms' });
    maxRps = integerFlag('max-rps', values['max-rps'], { min: 1, max: 10_000, meaning: 'requests a second at most, to pace the suite below an instance\'s rate limit' });
  } catch (err) {
    io.stderr(`suite: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const token = io.env.TOKEN;
  if (!token) {
    io.stderr('suite: TOKEN is not set. Export the token the runs use, e.g. export TOKEN=$(npm run --silent token -- --scope agents.run); it goes only into the Authorization header.\n');
    return 2;
  }
  const file = positionals[0]!;
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > MAX_SUITE_FILE_BYTES) throw new Error(`${(size / 1024 / 1024).toFixed(1)} MB; a suite file may be at most ${MAX_SUITE_FILE_BYTES / 1024 / 1024} MB`);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    io.stderr(`suite: ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory, not a suite file' : (err as Error).message}\n`);
    return 2;
  }
  const parsed = parseSuiteFile(text, file);
  if (!parsed.ok) {
    io.stderr(`suite: ${file} is not a suite this runner can read (docs/suite-file.md):\n${parsed.problems.map((p) => `  ${p}`).join('\n')}\n`);
    return 2;
  }
  const suite = parsed.file;
  const only = values.only;
  if (only?.length) {
    const missing = only.filter((n) => !suite.cases.some((c) => c.name === n || c.id === n));
    if (missing.length) {
      io.stderr(`suite: --only ${missing.map((n) => JSON.stringify(n)).join(', ')}: no case of ${file} has that name (or id). Its cases: ${suite.cases.map((c) => JSON.stringify(c.name)).join(', ') || '(none)'}.\n`);
      return 2;
    }
  }
  const items = itemsOf(suite.cases, only?.length ? (c) => only.includes(c.name) || only.includes(c.id) : undefined);
  // Everything printed or written from here on: a server may echo the token into anything it answers.
  const secrets = secretsOf(token);
  const out = (t: string) => io.stdout(redactText(t, secrets));
  const err = (t: string) => io.stderr(redactText(t, secrets));
  const patterns = nodePatternJudge();
  const env: RunnerEnv = {
    connection: { baseUrl, token },
    target: { profileId: 'cli', profileLabel: 'npm run suite', mode: 'direct', target: baseUrl, baseUrl, fingerprint: '' },
    reader: nodeEventReader,
    patterns,
    ...(caseDeadlineMs !== undefined && { caseDeadlineMs }),
    loadLens: async () => {
      const specs = readLensSpecs();
      return new SpecLens(specs, compiledSpecValidators(specs));
    },
  };
  const startedAt = Date.now();
  let passed = 0;
  let failed = 0;
  if (!io.progress) out(`Running ${items.length} ${items.length === 1 ? 'case' : 'cases'} of “${suite.suite.name}” against ${baseUrl}, ${concurrency} at a time\n`);
  // The results as they come: a stop writes the reports with these, without waiting for the rest.
  const results: CaseResult[] = [];
  const stop = new AbortController();
  const stopped = new Promise<void>((ended) => {
    const onStop = () => {
      stop.abort(io.signal?.reason);
      patterns.close();
      // The runs in flight are stopped now; a durable one is asked to cancel, which gets a moment, never more.
      setTimeout(ended, STOP_GRACE_MS).unref?.();
    };
    if (io.signal?.aborted) onStop();
    else io.signal?.addEventListener('abort', onStop, { once: true });
  });
  const running = runSuite(items, env, {
    concurrency,
    ...(maxRps !== undefined && { maxRps }),
    signal: stop.signal,
    onResult: (r) => {
      // A run that ends after a stop's reports were written is neither told nor counted.
      if (reported) return;
      results.push(r);
      if (r.verdict === 'passed') passed++;
      if (r.verdict === 'failed') failed++;
      if (io.progress) {
        // A failure is worth a line of its own above the bar; a pass only moves the bar.
        if (r.verdict !== 'passed') err(`\r\x1b[2K${caseLine(r)}\n`);
        err(bar(results.length, items.length, passed, failed));
      } else out(`${caseLine(r)}\n`);
    },
  });
  let reported = false;
  try {
    await Promise.race([running, stopped]);
  } finally {
    reported = true;
    patterns.close();
  }
  if (io.progress) err('\n');
  // In the suite's order; what was not done by the stop is not run.
  const order = new Map(items.map((item, i) => [item.key, i]));
  const done = [...results].sort((a, b) => order.get(a.key)! - order.get(b.key)!);
  const notRun: NotRun[] = items.filter((item) => !results.some((r) => r.key === item.key)).map((item) => ({ key: item.key, caseId: item.case.id, name: itemName(item) }));
  const meta: ReportMeta = { suiteName: suite.suite.name, baseUrl, startedAt, durationMs: Date.now() - startedAt };
  const summary = summarize(done);
  const signalled = stop.signal.aborted ? SIGNAL_EXIT_CODES[stop.signal.reason as keyof typeof SIGNAL_EXIT_CODES] : undefined;
  if (stop.signal.aborted) out(`\nStopped${typeof stop.signal.reason === 'string' ? ` (${stop.signal.reason})` : ''}: ${done.length} of ${items.length} ${items.length === 1 ? 'case' : 'cases'} done or stopped, ${notRun.length} not run.\n`);
  out(`\n${summaryTable(summary, meta, notRun.length)}\n`);
  const write = (path: string, content: string, what: string) => {
    const target = resolve(path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, redactText(content, secrets));
    out(`${what}: ${path}\n`);
  };
  try {
    if (values.junit) write(values.junit, junitXml(done, meta, notRun), 'JUnit XML');
    if (values.json) write(values.json, `${JSON.stringify(resultsJson(done, summary, meta, notRun), null, 2)}\n`, 'Results (JSON)');
  } catch (e) {
    err(`suite: could not write a report: ${(e as Error).message}\n`);
    return 2;
  }
  if (signalled !== undefined) return signalled;
  return summary.passed === done.length && done.length === items.length ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const stop = new AbortController();
  // Ctrl+C (or a CI's SIGTERM) stops the runs in flight (durable ones are asked to cancel) and still
  // reports, at once; a second one ends the process without the reports.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stop.signal.aborted) process.exit(SIGNAL_EXIT_CODES[signal]);
      stop.abort(signal);
    });
  }
  main(process.argv.slice(2), {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    progress: Boolean(process.stderr.isTTY),
    env: process.env,
    signal: stop.signal,
  }).then(
    (code) => {
      process.exitCode = code;
      // Stopped: what is still open (a stream's socket, a worker) is not waited for.
      if (stop.signal.aborted) process.exit(code);
    },
    (err: unknown) => {
      // Not a stack trace: what went wrong, in one line.
      process.stderr.write(`suite: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 2;
    },
  );
}
