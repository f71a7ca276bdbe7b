/**
 * `npm run suite -- FILE --base-url URL [--concurrency N] [--junit PATH] [--json PATH] [--only NAME]`
 *
 * Runs an exported agent test suite headless, for CI. The token comes from `TOKEN`, as every
 * copied snippet reads it, and goes only into the Authorization header to `--base-url`. It
 * runs the console's own modules (src/features/agent-runs/model/suite: the runner, the run
 * senders and state machine, the assertions, the approval policies); only the stream reader
 * is Node's (src/lib/node-event-reader.ts).
 *
 * Exit codes: 0 every case passed; 1 a case failed (or was stopped); 2 the file or the
 * command line is wrong (a message that names the place, never a stack trace).
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nodeEventReader } from '../src/lib/node-event-reader.ts';
import { SpecLens } from '../src/lib/spec-lens/lens.ts';
import { caseLine, junitXml, resultsJson, summaryTable, type ReportMeta } from '../src/engine/suites/reports.ts';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY, runSuite, type CaseResult, type RunnerEnv } from '../src/engine/suites/runner.ts';
import { itemsOf } from '../src/engine/suites/suite.ts';
import { MAX_SUITE_FILE_BYTES, parseSuiteFile } from '../src/engine/suites/suite-file.ts';
import { summarize } from '../src/engine/suites/summary.ts';
import { integerFlag, parseFlagsAndArguments, UsageError } from '../src/service/flags.ts';
import { compiledSpecValidators, readLensSpecs } from '../src/service/spec-validators.ts';

export const USAGE = 'Usage: npm run suite -- FILE --base-url URL [--concurrency N] [--junit PATH] [--json PATH] [--only NAME]';

/** Where the command writes, so tests and the benchmark can run it in process. */
export interface SuiteIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** A progress bar on stderr (a terminal), instead of a line per case. */
  progress: boolean;
  env: Record<string, string | undefined>;
  signal?: AbortSignal;
}

const OPTIONS = {
  'base-url': { type: 'string' },
  concurrency: { type: 'string' },
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
  try {
    if (positionals.length !== 1) throw new UsageError(positionals.length ? `one suite file at a time; got ${positionals.length}: ${positionals.join(', ')}.` : 'the suite FILE to run is missing (an exported suite, docs/suite-file.md).');
    baseUrl = baseUrlOf(values['base-url']);
    concurrency = integerFlag('concurrency', values.concurrency, { min: 1, max: MAX_CONCURRENCY, meaning: 'runs at once' }) ?? DEFAULT_CONCURRENCY;
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
  const env: RunnerEnv = {
    connection: { baseUrl, token },
    target: { profileId: 'cli', profileLabel: 'npm run suite', mode: 'direct', target: baseUrl, baseUrl, fingerprint: '' },
    reader: nodeEventReader,
    loadLens: async () => {
      const specs = readLensSpecs();
      return new SpecLens(specs, compiledSpecValidators(specs));
    },
  };
  const startedAt = Date.now();
  let done = 0;
  let passed = 0;
  let failed = 0;
  if (!io.progress) io.stdout(`Running ${items.length} ${items.length === 1 ? 'case' : 'cases'} of “${suite.suite.name}” against ${baseUrl}, ${concurrency} at a time\n`);
  const results: CaseResult[] = await runSuite(items, env, {
    concurrency,
    ...(io.signal && { signal: io.signal }),
    onResult: (r) => {
      done++;
      if (r.verdict === 'passed') passed++;
      if (r.verdict === 'failed') failed++;
      if (io.progress) {
        // A failure is worth a line of its own above the bar; a pass only moves the bar.
        if (r.verdict !== 'passed') io.stderr(`\r\x1b[2K${caseLine(r)}\n`);
        io.stderr(bar(done, items.length, passed, failed));
      } else io.stdout(`${caseLine(r)}\n`);
    },
  });
  if (io.progress) io.stderr('\n');
  const meta: ReportMeta = { suiteName: suite.suite.name, baseUrl, startedAt, durationMs: Date.now() - startedAt };
  const summary = summarize(results);
  io.stdout(`\n${summaryTable(summary, meta)}\n`);
  const write = (path: string, content: string, what: string) => {
    const target = resolve(path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
    io.stdout(`${what}: ${path}\n`);
  };
  try {
    if (values.junit) write(values.junit, junitXml(results, meta), 'JUnit XML');
    if (values.json) write(values.json, `${JSON.stringify(resultsJson(results, summary, meta), null, 2)}\n`, 'Results (JSON)');
  } catch (err) {
    io.stderr(`suite: could not write a report: ${(err as Error).message}\n`);
    return 2;
  }
  return summary.passed === results.length && results.length === items.length ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const stop = new AbortController();
  // Ctrl+C stops the runs in flight (durable ones are asked to cancel) and still reports.
  process.once('SIGINT', () => stop.abort());
  main(process.argv.slice(2), {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    progress: Boolean(process.stderr.isTTY),
    env: process.env,
    signal: stop.signal,
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      // Not a stack trace: what went wrong, in one line.
      process.stderr.write(`suite: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 2;
    },
  );
}
