/**
 * Bodies at the 1 MB limit built to buy as much work, or as big an answer, as they can: each
 * is refused with a 4xx in its family's format, the answer stays small (the first problems
 * listed with a pointer each, the rest counted), and a schema GET from another client is
 * answered meanwhile. Before, 60,000 bad messages answered 500 (a stack overflow), 50,000
 * bad response items a 33 MB 400, and 23,000 interaction ids held the event loop for a second.
 *
 * The service runs in a child process (`npm run service`), as users run it, so the GETs'
 * latency is the service's and not this process's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, get as httpGet } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_BODY_BYTES } from './http.ts';
import { MAX_LISTED_PROBLEMS } from './problem-list.ts';
import { atLimit, HOSTILE_DOC_PUT, hostileBodies, pausedDurableRun, type HostileBody } from './test-support/hostile-bodies.ts';
import { specErrors } from './test-support/spec.ts';
import { rawCall, TOKENS, type Answer } from './test-http.ts';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
const SCHEMA_PATH = '/rest/api/index/custom-metadata/schema/sales';

/** The issue's bound for a GET while a hostile body is handled. */
const GET_TARGET_MS = 250;
/**
 * What this test asserts: the target with a margin for a loaded 2-core machine (other test
 * files, other processes, GC); `npm run bench:load` measures the target itself. Handling one
 * of these bodies took 0.45 to 1.65 s before, and the answers were megabytes.
 */
const GET_ASSERT_MS = 4 * GET_TARGET_MS;
/**
 * The service must at least parse a body (JSON.parse of 96,000 keys is most of that work),
 * and on a loaded machine that alone can take longer than the margin above. So the bound
 * also scales with JSON.parse of the same body timed here, on the same machine at the same
 * moment: handling it may cost a few parses, never the hundreds a quadratic check costs.
 */
const PARSES = 8;

/** Wall time of JSON.parse of `body` in this process: the median of three. */
function parseMs(body: string): number {
  const times = [0, 1, 2].map(() => {
    const t0 = performance.now();
    JSON.parse(body);
    return performance.now() - t0;
  });
  return times.sort((a, b) => a - b)[1]!;
}
/** An error answer stays well under this, whatever was sent. */
const MAX_ANSWER_BYTES = 256 * 1024;

let child: ChildProcess | undefined;
let base = '';
/** Built once the service runs: the responses bodies answer one of its durable runs. */
let bodies: HostileBody[] = [];
/** The bodies' names, for the test names (their counts may differ by one from the real ones'). */
const NAMES = hostileBodies('run_x').map((b, i) => [b.name, i] as const);

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', CLI, 'service', '--memory', '--port', '0', '--rate-limit', '0', '--max-runs', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child!.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /Reference service on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child!.once('exit', (code) => reject(new Error(`the service exited with ${code} before listening:\n${out}`)));
  });
  child.stdout!.resume();
  bodies = hostileBodies(await pausedDurableRun(base));
}, 30_000);

afterAll(() => {
  child?.kill('SIGKILL');
});

interface Measured {
  answer: Answer;
  /** The slowest schema GET that ran while the body was sent and answered. */
  getMaxMs: number;
  getsDuring: number;
  ms: number;
}

/** One schema GET on `agent`'s connections, its body read: the status. */
function getSchema(agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpGet(base + SCHEMA_PATH, { agent, headers: { authorization: `Bearer ${TOKENS.sales}` } }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', reject);
    });
    req.once('error', reject);
  });
}

/**
 * Sends `body` while another client loops schema GETs, one at a time. The GETs go on
 * connections of their own, closed at the end: a connection kept from an earlier case sat idle
 * while this process parsed bodies, and on a loaded machine the service's keep-alive timeout
 * closed it under the next GET ("other side closed").
 */
async function whileGetting(method: string, path: string, body: string, token: string): Promise<Measured> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: { start: number; ms: number }[] = [];
  let running = true;
  let firstDone!: () => void;
  const first = new Promise<void>((r) => (firstDone = r));
  const loop = (async () => {
    while (running) {
      const start = performance.now();
      const status = await getSchema(agent);
      expect(status).toBe(200);
      latencies.push({ start, ms: performance.now() - start });
      firstDone();
    }
  })();
  try {
    // A GET that fails before the first answer fails the case, rather than leaving it waiting.
    await Promise.race([first, loop]);
    const t0 = performance.now();
    const answer = await rawCall(base, method, path, { token, body, contentType: 'application/json' });
    const ms = performance.now() - t0;
    // The GET in flight when the answer came still counts.
    running = false;
    await loop;
    const during = latencies.filter((l) => l.start + l.ms >= t0);
    return { answer, getMaxMs: Math.max(...during.map((l) => l.ms)), getsDuring: during.length, ms };
  } finally {
    running = false;
    await loop.catch(() => undefined);
    agent.destroy();
  }
}

describe('a body at the 1 MB limit', { timeout: 60_000 }, () => {
  test.each(NAMES)('%s → a small 4xx in its family format, while another client\'s schema GET is answered', async (_name, i) => {
    const h = bodies[i]!;
    expect(Buffer.byteLength(h.body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    // A burst of load from the other test files can land on one measurement and not on the parse
    // timed beside it. A handler that costs hundreds of parses misses the bound every time, so the
    // case is measured up to three times and the best attempt is held to it.
    const attempts: { m: Measured; parse: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const before = parseMs(h.body);
      const m = await whileGetting(h.method, h.path, h.body, h.token);
      const parse = Math.max(before, parseMs(h.body));
      attempts.push({ m, parse });
      if (m.getMaxMs < Math.max(GET_ASSERT_MS, PARSES * parse)) break;
    }
    const { m, parse } = attempts.at(-1)!;
    const a = m.answer;
    expect({ status: a.status, text: a.text.slice(0, 300) }).toMatchObject({ status: h.status });
    expect(a.text.length).toBeLessThan(MAX_ANSWER_BYTES);
    expect(m.getsDuring).toBeGreaterThan(0);
    expect(
      m.getMaxMs,
      `the slowest schema GET while the body was handled, in each of ${attempts.length} attempts (target ${GET_TARGET_MS} ms): ${attempts
        .map((t) => `${Math.round(t.m.getMaxMs)} ms while the body took ${Math.round(t.m.ms)} ms and JSON.parse of it here ${Math.round(t.parse)} ms`)
        .join('; ')}`,
    ).toBeLessThan(Math.max(GET_ASSERT_MS, PARSES * parse));
    if (h.family === 'platform') {
      expect(a.contentType).toMatch(/^application\/problem\+json/);
      // Still the vendor's ProblemDetail: errors_omitted is an extension member.
      expect(specErrors('platform', 'ProblemDetail', a.json)).toBe('');
      const p = a.json as { errors?: { pointer: string }[]; errors_omitted?: number; detail: string };
      if (h.pointer) expect(p.errors?.map((e) => e.pointer)).toContain(h.pointer);
      expect((p.errors ?? []).length).toBeLessThanOrEqual(MAX_LISTED_PROBLEMS);
      for (const e of p.errors ?? []) expect(e.pointer).toMatch(/^(\/[^/]*)*$/);
      if (h.problems) {
        expect(p.errors).toHaveLength(MAX_LISTED_PROBLEMS);
        expect(p.errors_omitted).toBe(h.problems - MAX_LISTED_PROBLEMS);
        expect(p.detail).toContain(`${(h.problems - MAX_LISTED_PROBLEMS).toLocaleString('en-US')} more problems not listed`);
      }
      if (h.says) expect(p.detail).toMatch(h.says);
    } else if (h.family === 'legacy') {
      expect(a.json).toBeTypeOf('string');
      if (h.says) expect(a.json).toMatch(h.says);
      // Each thing is said once: no sentence repeated per problem.
      expect(a.json).not.toMatch(/(Unknown field\. ){2}/);
    } else {
      expect(Object.keys(a.json as object).sort()).toEqual(['error', 'message']);
      if (h.says) expect((a.json as { message: string }).message).toMatch(h.says);
    }
  });

  test('a wide array where the API keeps values is stored, and the schema GET still answers meanwhile', async () => {
    const { body, count } = atLimit('{"customMetadata":[{"name":"tags","value":[', (i) => `"t${i}"`, ']}]}');
    const m = await whileGetting('PUT', HOSTILE_DOC_PUT, body, TOKENS.global);
    expect(m.answer.status).toBe(200);
    expect(count).toBeGreaterThan(100_000);
    expect(m.getMaxMs).toBeLessThan(Math.max(GET_ASSERT_MS, PARSES * parseMs(body)));
  });
});
