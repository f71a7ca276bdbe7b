// `npm test`: a build, then Playwright in a system Chromium beside type check, lint and Vitest. Runs every
// step even after a failure, so one run shows everything, and ends with one line
// "N passed, M failed" summing all suites (type check and lint count one check each).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { chromiumMissingMessage } from './chromium.mjs';
import { NODE24_TESTS } from './node24/run.mjs';
import { NODE24_VERSION } from './node24/prepare.mjs';

const reports = '.reports';
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

let passed = 0;
let failed = 0;
const failures = [];
// Why each failed test failed, at more length, printed last (the CI log keeps only its tail).
const details = [];
const detailOf = (text) => {
  const lines = String(text).split('\n').slice(0, 40).map((l) => l.slice(0, 200));
  return lines.join('\n').slice(0, 4_000);
};

// How long each step took, from the start of `npm test`, printed before the summary: what a
// change costs in CI's time is read there.
const started = Date.now();
const timings = [];
const timed = (label, since) => timings.push(`${label}: ${Math.round((Date.now() - since) / 1000)} s, ended at ${Math.round((Date.now() - started) / 1000)} s`);

function run(label, command, args, env = {}) {
  console.log(`\n=== ${label}: ${command} ${args.join(' ')}`);
  const since = Date.now();
  const r = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  timed(label, since);
  return r.status === 0;
}

/** Starts a step beside others; its output goes to `logFile` when given (printed later, whole). */
function runBeside(label, command, args, env = {}, logFile) {
  console.log(`\n=== ${label}: ${command} ${args.join(' ')}${logFile ? ` (its output follows Vitest's)` : ''}`);
  const fd = logFile ? openSync(logFile, 'w') : undefined;
  const since = Date.now();
  const child = spawn(command, args, { stdio: fd === undefined ? 'inherit' : ['ignore', fd, fd], env: { ...process.env, ...env } });
  return new Promise((resolve) => {
    child.on('close', (code) => {
      timed(label, since);
      if (fd !== undefined) closeSync(fd);
      resolve(code === 0);
    });
  });
}

function check(label, command, args) {
  if (run(label, command, args)) passed++;
  else {
    failed++;
    failures.push(label);
  }
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

// Playwright runs beside everything else: most of its time is spent waiting (services, timers, a
// browser), and it is the longest step, so the type checks, lint and Vitest all fit in its
// time. Both test runners serve the same build, made once first, so that tests starting the
// console's server never build it together.
if (!run('build the console (the end-to-end tests and the console-server tests serve it)', 'npx', ['vite', 'build', '--logLevel', 'warn'])) {
  failed++;
  failures.push('build');
}
const missing = chromiumMissingMessage();
const playwrightLog = `${reports}/playwright-output.txt`;
const e2eRun = missing ? undefined : runBeside('end-to-end tests (Playwright, Chromium)', 'npx', ['playwright', 'test'], { CI: '1' }, playwrightLog);

// The service and CLI tests again on Node 24 LTS, beside the rest (which runs on the machine's
// Node): mostly waiting on timers and sockets too. Preparing it builds better-sqlite3 for Node 24
// the first time; a pass that cannot be prepared fails the run, saying why.
const node24Log = `${reports}/node24-output.txt`;
const node24Run = runBeside(
  `service and CLI tests on Node ${NODE24_VERSION}`,
  'node',
  [
    // --no-cache: Vitest's record of test durations is the other run's to write.
    'scripts/node24/run.mjs', 'npx', 'vitest', 'run', '--no-cache', '--project', 'node', ...NODE24_TESTS,
    '--reporter=default', '--reporter=json', `--outputFile.json=${reports}/vitest-node24.json`, '--reporter=./scripts/failure-reporter.mjs',
  ],
  { VITEST_FAILURES_FILE: `${reports}/vitest-node24-failures.json` },
  node24Log,
);

check('type check (console)', 'npx', ['tsc', '-p', 'tsconfig.app.json']);
check('type check (service, tests, tools)', 'npx', ['tsc', '-p', 'tsconfig.node.json']);
check('type check (suite runner and its benchmark, with the console modules they run)', 'npx', ['tsc', '-p', 'tsconfig.cli.json']);
check('lint', 'npx', ['eslint', '--max-warnings', '0', '.']);

const vitestOk = await runBeside('unit and service tests (Vitest)', 'npx', [
  'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${reports}/vitest.json`, '--reporter=./scripts/failure-reporter.mjs',
]);
countVitest('Vitest', vitestOk, `${reports}/vitest.json`, `${reports}/vitest-failures.json`);

const node24Ok = await node24Run;
console.log(`\n=== service and CLI tests on Node ${NODE24_VERSION}: its output`);
process.stdout.write(readFileSync(node24Log));
countVitest(`Vitest on Node ${NODE24_VERSION}`, node24Ok, `${reports}/vitest-node24.json`, `${reports}/vitest-node24-failures.json`);

/** Adds a Vitest run's counts, and names each failed test, with the first line of why (the CI log keeps only the tail). */
function countVitest(label, ok, jsonFile, failuresFile) {
  // Each failed test's error with its diff, by test name.
  const errors = new Map((readJson(failuresFile) ?? []).map((f) => [f.name, f.errors]));
  const v = readJson(jsonFile);
  if (v) {
    passed += v.numPassedTests;
    failed += v.numFailedTests;
    if (v.numTotalTests === 0) {
      failed++;
      failures.push(`${label} ran no test`);
    }
  }
  for (const file of v?.testResults ?? []) {
    for (const t of file.assertionResults ?? []) {
      if (t.status !== 'failed') continue;
      const why = String(t.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 300);
      failures.push(`${label}: ${file.name.replace(process.cwd() + '/', '')} › ${t.fullName} — ${why}`);
      const error = errors.get(t.fullName)?.[0];
      const ownFrames = (stack) => stack.split('\n').slice(1).filter((l) => !l.includes('node_modules')).join('\n');
      // eslint-disable-next-line no-control-regex -- the diff's colours, which a log shows as noise
      const plain = (text) => text.replace(/\u001b\[[0-9;]*m/g, '');
      const detail = error ? [error.message, error.diff && plain(error.diff), ownFrames(error.stack)].filter(Boolean).join('\n') : (t.failureMessages?.[0] ?? '');
      if (details.length < 3) details.push(`${label}: ${t.fullName}\n${detailOf(detail)}`);
    }
  }
  // No report at all: the run did not start or broke (for Node 24, one that could not be prepared; its output above says why).
  if (!ok && (!v || v.numFailedTests === 0)) {
    failed++;
    failures.push(`${label} (suite error${v ? '' : ', no report: see its output'})`);
  } else if (!ok) failures.push(label);
}

if (missing) {
  console.error(`\n${missing}`);
  failed++;
  failures.push('end-to-end tests (no Chromium)');
} else {
  const e2eOk = await e2eRun;
  console.log('\n=== end-to-end tests (Playwright, Chromium): its output');
  process.stdout.write(readFileSync(playwrightLog));
  const p = readJson(`${reports}/playwright.json`);
  const s = p?.stats;
  if (s) {
    passed += s.expected + (s.flaky ?? 0);
    failed += s.unexpected;
    if (s.expected + s.unexpected + (s.flaky ?? 0) === 0) {
      failed++;
      failures.push('Playwright ran no test');
    }
  }
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status !== 'unexpected') continue;
        const err = t.results?.at(-1)?.error?.message ?? '';
        failures.push(`Playwright: ${spec.file}:${spec.line} › ${spec.title} — ${String(err).split('\n')[0].slice(0, 300)}`);
        if (details.length < 3) details.push(`Playwright: ${spec.file}:${spec.line}\n${detailOf(err)}`);
      }
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of p?.suites ?? []) walk(suite);
  if (!e2eOk && (!s || s.unexpected === 0)) {
    failed++;
    failures.push('Playwright (run error)');
  } else if (!e2eOk) failures.push('Playwright');
}

console.log(`\nSteps:\n- ${timings.join('\n- ')}`);
if (details.length) console.log(`\nDetails of the first failures:\n\n${details.join('\n\n')}`);
if (failures.length) console.log(`\nFailed:\n- ${failures.join('\n- ')}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 && existsSync(reports) ? 0 : 1);
