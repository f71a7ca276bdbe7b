/**
 * `npm run suite`, in process, against a real reference service over HTTP: exit codes, a line
 * per case, JUnit XML read back by an XML parser, the JSON results, approval policies of durable
 * cases, rows. (The e2e suite runs the command itself against services started apart.)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASE_KEEP } from '../src/engine/suites/case-limits.ts';
import { suiteFileOf } from '../src/engine/suites/suite-file.ts';
import type { SuiteCase } from '../src/engine/suites/suite.ts';
import { listen } from '../src/service/node.ts';
import { freshService, TOKENS } from '../src/service/test-http.ts';
import { ECHO_TOKEN, echoesOf, HOSTILE_TOKEN, startHostileInstance, type HostileInstance } from './hostile-instance.ts';
import { main } from './suite.ts';
import { faultProxy } from '../src/test-support/fault-proxy.ts';

let server: { url: string; close(): Promise<void> };
let hostile: HostileInstance;
const dir = mkdtempSync(join(tmpdir(), 'suite-cli-'));

beforeAll(async () => {
  server = await listen(freshService({ memory: true, rateLimitPerMinute: 0 }), 0);
  hostile = await startHostileInstance();
});
afterAll(async () => {
  await server.close();
  await hostile.close();
});

const user = (text: string) => [{ role: 'USER' as const, content: [{ type: 'text' as const, text }] }];
const cases: SuiteCase[] = [
  {
    id: 'echo',
    name: 'Echo streams the question back',
    agent: { id: 'echo-assistant' },
    api: 'platform',
    mode: 'stream',
    messages: user('{{message}}'),
    rows: [{ message: 'Hello' }, { message: 'Bonjour' }],
    assertions: [
      { kind: 'outcome', expect: 'success' },
      { kind: 'answer-contains', text: 'You asked: "{{message}}"' },
      { kind: 'events-at-least', count: 5 },
      { kind: 'spec-lens' },
      { kind: 'header', name: 'Deprecation', present: false },
    ],
  },
  {
    id: 'hr',
    name: 'HR policy waits',
    agent: { id: 'hr-policy-form' },
    api: 'legacy',
    mode: 'wait',
    input: { topic: 'Leave', region: 'emea', audience: '', tone: '', maxPoints: '', includeLinks: false },
    assertions: [{ kind: 'outcome', expect: 'success' }, { kind: 'answer-matches', pattern: 'Leave' }, { kind: 'header', name: 'Deprecation', present: true }, { kind: 'spec-lens' }],
  },
  {
    id: 'trip',
    name: 'Trip planner books the flight only',
    agent: { id: 'trip-planner' },
    api: 'platform',
    mode: 'durable',
    messages: user('Plan it'),
    policy: { kind: 'per-tool', tools: [{ toolId: 'travel.book_flight', decision: 'APPROVE' }], otherwise: 'REJECT' },
    assertions: [{ kind: 'outcome', expect: 'success' }, { kind: 'spec-lens' }],
  },
];

function suiteFile(name: string, list: SuiteCase[]): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(suiteFileOf({ name: 'CLI test', cases: list }), null, 2));
  return path;
}

async function run(args: string[], env: Record<string, string | undefined> = { TOKEN: TOKENS.agents }) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), progress: false, env });
  return { code, stdout, stderr };
}

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testcase', 'failure'].includes(name) });

describe('npm run suite', () => {
  it('exits 0 when every case passes, with a line per case or row, a summary table, JUnit and the full results', async () => {
    const file = suiteFile('pass.json', cases);
    const junit = join(dir, 'out', 'junit.xml');
    const json = join(dir, 'out', 'results.json');
    const r = await run([file, '--base-url', server.url, '--concurrency', '3', '--junit', junit, '--json', json]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^PASS {2}Echo streams the question back › row 1 \(Hello\) {2}\(stream, [\d,]+ ms\)$/m);
    expect(r.stdout).toMatch(/^PASS {2}Trip planner books the flight only/m);
    expect(r.stdout).toMatch(/passed 4, failed 0\n +p50 +p95 +runs\nfirst event .+\nduration .+/);
    const report = xml.parse(readFileSync(junit, 'utf8'));
    expect(report.testsuites.testsuite).toMatchObject({ name: 'CLI test', tests: '4', failures: '0' });
    expect(report.testsuites.testsuite.testcase.map((t: { name: string }) => t.name)).toEqual([
      'Echo streams the question back › row 1 (Hello)',
      'Echo streams the question back › row 2 (Bonjour)',
      'HR policy waits',
      'Trip planner books the flight only',
    ]);
    const results = JSON.parse(readFileSync(json, 'utf8'));
    const trip = results.results.find((x: { case: string }) => x.case === 'trip');
    expect(trip).toMatchObject({ verdict: 'passed', status: 'SUCCEEDED', runId: expect.stringMatching(/./) });
    expect(trip.decisions).toEqual([
      { tool: 'travel.book_flight', name: 'Book flight', decision: 'APPROVE' },
      // A tool the service names no id for is known by its display name; the policy does not list it.
      { tool: 'Book hotel', name: 'Book hotel', decision: 'REJECT', byDefault: true },
    ]);
    expect(results.results[1].request.body.messages[0].content[0].text).toBe('Bonjour');
    // The token travels in the Authorization header only: never into a report.
    expect(readFileSync(json, 'utf8') + readFileSync(junit, 'utf8') + r.stdout).not.toContain(TOKENS.agents);
  }, 60_000);

  it('exits 1 when a case fails: the JUnit failure names the assertion with what was expected and what came', async () => {
    const failing: SuiteCase = { ...cases[0]!, id: 'echo-wrong', name: 'Echo, expected wrong', rows: undefined, messages: user('Hello'), assertions: [{ kind: 'answer-equals', text: 'Goodbye' }, { kind: 'events-at-most', count: 2 }] };
    const junit = join(dir, 'fail.xml');
    const r = await run([suiteFile('fail.json', [failing, cases[1]!]), '--base-url', server.url, '--junit', junit]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL {2}Echo, expected wrong/m);
    const testcase = xml.parse(readFileSync(junit, 'utf8')).testsuites.testsuite.testcase[0];
    // One failure, listing both failed assertions.
    expect(testcase.failure).toHaveLength(1);
    expect(testcase.failure[0]).toMatchObject({ type: 'answer-equals, events-at-most', message: expect.stringMatching(/^2 of 2 assertions failed: the answer equals “Goodbye”: got “You asked: "Hello"\..*; at most 2 events: got \d+ events$/) });
    expect(testcase.failure[0]['#text']).toMatch(/^expected: the answer equals “Goodbye”\nactual: “You asked: "Hello"\..*\n\nexpected: at most 2 events\nactual: \d+ events$/s);
  }, 60_000);

  it('exits 1 when the agent is gone, and runs only the cases --only names', async () => {
    const gone: SuiteCase = { ...cases[1]!, id: 'gone', name: 'Gone', agent: { id: 'no-such-agent' }, api: 'platform' };
    const file = suiteFile('gone.json', [gone, cases[1]!]);
    const r = await run([file, '--base-url', server.url, '--only', 'Gone']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Running 1 case');
    expect(r.stdout).toMatch(/FAIL {2}Gone .*\n +✗ Done or Succeeded: got Refused \(resource_not_found\)/);
    expect((await run([file, '--base-url', server.url, '--only', 'HR policy waits'])).code).toBe(0);
  }, 60_000);

  it('on a terminal, draws a progress bar on stderr with a line for each failure above it, and the summary on stdout', async () => {
    const failing: SuiteCase = { ...cases[1]!, id: 'hr-wrong', name: 'HR, expected wrong', assertions: [{ kind: 'answer-contains', text: 'Nowhere' }] };
    let stdout = '';
    let stderr = '';
    const code = await main([suiteFile('tty.json', [cases[1]!, failing]), '--base-url', server.url], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), progress: true, env: { TOKEN: TOKENS.agents } });
    expect(code).toBe(1);
    expect(stderr).toMatch(/\r\[#{30}\] 2\/2 {2}passed 1 {2}failed 1 /);
    expect(stderr).toMatch(/FAIL {2}HR, expected wrong .*\n +✗ the answer contains “Nowhere”: got “/);
    expect(stdout).not.toMatch(/^(PASS|FAIL) /m);
    expect(stdout).toMatch(/passed 1, failed 1/);
  }, 60_000);

  it('exits 2, saying what and where, when the file or the command line is wrong (no stack trace)', async () => {
    const good = suiteFile('ok.json', [cases[1]!]);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{\n  "format": "metadata-agents-console/suite",\n  "version": 1,\n  "suite": { "name": "x" },\n  "cases": [ { "id": "a", } ]\n}');
    const expectations: [string[], Record<string, string | undefined>, RegExp][] = [
      [[broken, '--base-url', server.url], { TOKEN: 't' }, /broken\.json:5:\d+: not valid JSON/],
      [[join(dir, 'missing.json'), '--base-url', server.url], { TOKEN: 't' }, /missing\.json: no such file/],
      [[good], { TOKEN: 't' }, /--base-url is required/],
      [[good, '--base-url', server.url, '--concurrency', '1e3'], { TOKEN: 't' }, /--concurrency takes runs at once: a whole number from 1 to 64/],
      [[good, '--base-url', server.url, '--only', 'Nope'], { TOKEN: 't' }, /--only "Nope": no case of .* has that name/],
      [[good, '--base-url', server.url], {}, /TOKEN is not set/],
      [[good, good, '--base-url', server.url], { TOKEN: 't' }, /one suite file at a time/],
      [[good, '--base-url', server.url, '--retries', '3'], { TOKEN: 't' }, /Unknown option '--retries'/],
    ];
    for (const [args, env, message] of expectations) {
      const r = await run(args, env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('a case without assertions fails when its run is refused: it still asks the run to end well', async () => {
    const bare: SuiteCase = { ...cases[1]!, id: 'bare', name: 'No assertions, gone agent', agent: { id: 'no-such-agent' }, api: 'platform', assertions: [] };
    const r = await run([suiteFile('bare.json', [bare, { ...cases[1]!, assertions: [] }]), '--base-url', server.url]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL {2}No assertions, gone agent .*\n +✗ Done or Succeeded: got Refused \(resource_not_found\)/);
    expect(r.stdout).toMatch(/^PASS {2}HR policy waits/m);
  }, 60_000);

  it('types a pasted row’s cells by the agent’s input schema (an optional number saved empty), and sends no column only the assertions read', async () => {
    const rows: SuiteCase = {
      ...cases[1]!,
      id: 'rows',
      name: 'HR rows',
      rows: [
        { topic: 'Travel', maxPoints: '5', includeLinks: 'yes', expected: 'Travel' },
        { topic: 'Leave', maxPoints: '', expected: 'Leave' },
      ],
      assertions: [{ kind: 'outcome', expect: 'success' }, { kind: 'answer-contains', text: 'on {{expected}}' }],
    };
    const json = join(dir, 'rows.json');
    const r = await run([suiteFile('rows-file.json', [rows]), '--base-url', server.url, '--json', json]);
    expect(r.stdout).toMatch(/passed 2, failed 0/);
    expect(r.code).toBe(0);
    const sent = JSON.parse(readFileSync(json, 'utf8')).results.map((x: { request: { body: { input: Record<string, unknown> } } }) => x.request.body.input);
    expect(sent[0]).toEqual({ ...cases[1]!.input, topic: 'Travel', maxPoints: 5, includeLinks: true });
    expect(sent[1]).toEqual({ ...cases[1]!.input, topic: 'Leave', maxPoints: '' });
  }, 60_000);

  it('never prints or writes the token, whatever encoding a server echoes it in', async () => {
    const refused: SuiteCase = { id: 'echo-wait', name: 'Echo refused', agent: { id: 'token-echo' }, api: 'platform', mode: 'wait', messages: user('Hi'), assertions: [{ kind: 'outcome', expect: 'success' }] };
    const streamed: SuiteCase = { id: 'echo-stream', name: 'Echo streamed', agent: { id: 'token-echo' }, api: 'platform', mode: 'stream', messages: user('Hi'), assertions: [{ kind: 'answer-equals', text: 'nothing' }] };
    const junit = join(dir, 'echo.xml');
    const json = join(dir, 'echo.json');
    const r = await run([suiteFile('echo.json', [refused, streamed]), '--base-url', hostile.origin, '--junit', junit, '--json', json], { TOKEN: ECHO_TOKEN });
    expect(r.code).toBe(1);
    // The server did echo it: the failures quote what came, redacted.
    expect(r.stdout).toMatch(/FAIL {2}Echo refused[^]*The token \[redacted\] is not valid here \(as received: \[redacted\] \| \[redacted\] \| \[redacted\] \| \[redacted\] \| Basic \[redacted\]\)/);
    expect(r.stdout).toMatch(/FAIL {2}Echo streamed\s+.*\n +✗ the answer equals “nothing”: got “The token \[redacted\] is not valid here/);
    const everything = r.stdout + r.stderr + readFileSync(junit, 'utf8') + readFileSync(json, 'utf8');
    for (const echoed of echoesOf(ECHO_TOKEN)) expect(everything).not.toContain(echoed.replace(/^Basic /, ''));
    // As XML escapes it, too.
    expect(everything).not.toContain(ECHO_TOKEN.replace(/&/g, '&amp;').replace(/"/g, '&quot;'));
  }, 60_000);

  it('ends every case at its deadline (the file’s, else --case-timeout-ms), and keeps a bounded part of an endless stream, saying so', async () => {
    const keepAlive: SuiteCase = { id: 'keep-alive', name: 'Keep-alive only', agent: { id: 'keep-alive-only' }, api: 'platform', mode: 'stream', messages: user('Hi'), assertions: [{ kind: 'events-at-most', count: 0 }] };
    const endless: SuiteCase = { id: 'endless', name: 'Endless events', agent: { id: 'endless-events' }, api: 'platform', mode: 'stream', messages: user('Hi'), deadlineMs: 4_000, assertions: [{ kind: 'events-at-least', count: 1 }] };
    const json = join(dir, 'deadline.json');
    const started = Date.now();
    const r = await run([suiteFile('deadline.json', [keepAlive, endless]), '--base-url', hostile.origin, '--case-timeout-ms', '1500', '--json', json], { TOKEN: HOSTILE_TOKEN });
    expect(r.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.stdout).toMatch(/FAIL {2}Keep-alive only .*\n +✗ the run ends within the case’s deadline \(1,500 ms\): got not ended when the deadline passed \(0 events by then\): the suite stopped it/);
    expect(r.stdout).toMatch(/FAIL {2}Endless events .*\n +✗ the run ends within the case’s deadline \(4,000 ms\)/);
    const [a, b] = JSON.parse(readFileSync(json, 'utf8')).results;
    // Every other assertion passed: the deadline alone failed them.
    expect(a.assertions.map((x: { pass: boolean }) => x.pass)).toEqual([true, false]);
    expect(a.durationMs).toBeGreaterThanOrEqual(1_500);
    expect(a.problem).toBe('The case’s deadline (1,500 ms) passed before its run ended: the suite stopped it.');
    expect(b.durationMs).toBeGreaterThanOrEqual(4_000);
    expect(b.eventCount).toBeGreaterThan(CASE_KEEP.events);
    expect(b.notes[0]).toMatch(new RegExp(`^[\\d,]+ of ${b.eventCount.toLocaleString('en-US')} events are not kept \\(a case keeps 10,000 events`));
    const flag = await run([suiteFile('deadline-flag.json', [keepAlive]), '--base-url', hostile.origin, '--case-timeout-ms', '50'], { TOKEN: HOSTILE_TOKEN });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--case-timeout-ms takes the deadline of a case that names none, in ms: a whole number from 100 to 86,400,000/);
  }, 60_000);

  it('judges a hostile pattern within its budget, failing it saying so, and goes on', async () => {
    const hostilePattern = '(?:[ -~]{1000}|Q)'.repeat(500);
    const long: SuiteCase = { id: 'long', name: 'Hostile pattern', agent: { id: 'long-answer' }, api: 'platform', mode: 'wait', input: { chars: 98_000 }, assertions: [{ kind: 'outcome', expect: 'success' }, { kind: 'answer-matches', pattern: hostilePattern }] };
    const fine: SuiteCase = { ...long, id: 'fine', name: 'Plain pattern', assertions: [{ kind: 'answer-matches', pattern: '^The answer\\.' }] };
    const started = Date.now();
    const r = await run([suiteFile('pattern.json', [long, fine]), '--base-url', hostile.origin], { TOKEN: HOSTILE_TOKEN });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL {2}Hostile pattern .*\n +✗ the answer matches .*: got not judged: matching the pattern against the answer \(98,000 characters\) took longer than 2,000 ms, the budget of one judgement/);
    expect(r.stdout).toMatch(/^PASS {2}Plain pattern/m);
    // Minutes in this thread; the budget (and the machine's load) in a worker.
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);
});

describe('npm run suite, stopped', () => {
  it('by SIGINT (Ctrl+C) in a real process: ends at once, exits 130, and writes JUnit and JSON with the cases done and the rest marked not run', async () => {
    const quick: SuiteCase = { id: 'quick', name: 'Quick', agent: { id: 'long-answer' }, api: 'platform', mode: 'wait', input: { chars: 100 }, assertions: [{ kind: 'outcome', expect: 'success' }] };
    const endless: SuiteCase = { id: 'held', name: 'Held open', agent: { id: 'keep-alive-only' }, api: 'platform', mode: 'stream', messages: user('Hi'), assertions: [] };
    const later: SuiteCase = { ...quick, id: 'later', name: 'Never started' };
    const junit = join(dir, 'sigint.xml');
    const json = join(dir, 'sigint.json');
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/suite.ts', suiteFile('sigint.json', [quick, endless, later]), '--base-url', hostile.origin, '--concurrency', '1', '--junit', junit, '--json', json], {
      env: { ...process.env, TOKEN: HOSTILE_TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Once the first case passed, the second is held open by its server.
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (/^PASS {2}Quick/m.test(stdout)) resolve();
      });
    });
    await new Promise((r) => setTimeout(r, 300));
    const signalled = Date.now();
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(130);
    expect(Date.now() - signalled).toBeLessThan(10_000);
    expect(stdout).toMatch(/Stopped \(SIGINT\): 2 of 3 cases done or stopped, 1 not run/);
    const report = xml.parse(readFileSync(junit, 'utf8')).testsuites.testsuite;
    expect(report).toMatchObject({ tests: '3', failures: '0', skipped: '2' });
    expect(report.testcase.map((t: { name: string; skipped?: { message: string } }) => [t.name, t.skipped?.message])).toEqual([
      ['Quick', undefined],
      ['Held open', 'The suite was stopped before this case ended.'],
      ['Never started', 'Not run: the suite was stopped before this case started.'],
    ]);
    const results = JSON.parse(readFileSync(json, 'utf8'));
    expect(results.results.map((x: { key: string; verdict: string }) => [x.key, x.verdict])).toEqual([
      ['quick', 'passed'],
      ['held', 'stopped'],
    ]);
    expect(results.notRun).toEqual([{ key: 'later', case: 'later', name: 'Never started', verdict: 'not-run' }]);
  }, 60_000);
  it('--max-rps N paces the suite: no second holds more than N of its requests', async () => {
    const proxy = await faultProxy(server.url);
    try {
      const echo = Array.from({ length: 12 }, (_, i): SuiteCase => ({ ...cases[0]!, id: `echo-${i}`, name: `Echo ${i}`, rows: undefined, messages: user(`Hi ${i}`), assertions: [{ kind: 'outcome', expect: 'success' }] }));
      const r = await run([suiteFile('paced.json', echo), '--base-url', proxy.url, '--concurrency', '8', '--max-rps', '4']);
      expect(r.code).toBe(0);
      const times = proxy.seen.map((q) => q.at).sort((a, b) => a - b);
      expect(times).toHaveLength(12);
      // Four a second: any five requests are sent a second apart at least. They are seen where they
      // arrive, each a little late on a loaded machine (up to 72 ms seen), so a window may read
      // shorter; the twelve together must still take their 2.75 s.
      for (let i = 4; i < times.length; i++) expect(times[i]! - times[i - 4]!).toBeGreaterThanOrEqual(800);
      expect(times[11]! - times[0]!).toBeGreaterThanOrEqual(2_500);
      expect((await run([suiteFile('paced.json', echo), '--base-url', proxy.url, '--max-rps', '0'])).stderr).toMatch(/--max-rps/);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});
