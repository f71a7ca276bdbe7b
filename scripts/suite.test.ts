/**
 * `npm run suite`, in process, against a real reference service over HTTP: exit codes, a line
 * per case, JUnit XML read back by an XML parser, the JSON results, approval policies of durable
 * cases, rows. (The e2e suite runs the command itself against services started apart.)
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suiteFileOf } from '../src/engine/suites/suite-file.ts';
import type { SuiteCase } from '../src/engine/suites/suite.ts';
import { listen } from '../src/service/node.ts';
import { freshService, TOKENS } from '../src/service/test-http.ts';
import { main } from './suite.ts';

let server: { url: string; close(): Promise<void> };
const dir = mkdtempSync(join(tmpdir(), 'suite-cli-'));

beforeAll(async () => {
  server = await listen(freshService({ memory: true, rateLimitPerMinute: 0 }), 0);
});
afterAll(() => server.close());

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
});
