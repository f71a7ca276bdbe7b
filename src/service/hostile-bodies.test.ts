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
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_BODY_BYTES } from './http.ts';
import { MAX_LISTED_PROBLEMS } from './problem-list.ts';
import { rawCall, TOKENS, type Answer } from './test-http.ts';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
const SCHEMA_PATH = '/rest/api/index/custom-metadata/schema/sales';

/** The bound for a GET while a hostile body is handled. */
const GET_TARGET_MS = 250;
/**
 * What this test asserts: the target with a margin for a loaded 2-core machine (other test
 * files, other processes, GC); `npm run bench:load` measures the target itself. Handling one
 * of these bodies took 0.45 to 1.65 s before, and the answers were megabytes.
 */
const GET_ASSERT_MS = 4 * GET_TARGET_MS;
/** An error answer stays well under this, whatever was sent. */
const MAX_ANSWER_BYTES = 256 * 1024;

let child: ChildProcess | undefined;
let base = '';

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
}, 30_000);

afterAll(() => {
  child?.kill('SIGKILL');
});

/** `head`, as many `item(i)` as fit in the body limit (comma-separated), then `tail`. */
function atLimit(head: string, item: (i: number) => string, tail = ''): { body: string; count: number } {
  const parts: string[] = [];
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const s = item(i);
    if (size + s.length + 1 > MAX_BODY_BYTES) break;
    parts.push(s);
    size += s.length + 1;
  }
  return { body: `${head}${parts.join(',')}${tail}`, count: parts.length };
}

/** An object with `fixed` (JSON members) and as many `"k<i>": 1` members as fit, inside `head` and `tail`. */
function unknownKeysBody(fixed: string, head = '', tail = ''): { body: string; count: number } {
  return atLimit(`${head}{${fixed}${fixed ? ',' : ''}`, (i) => `"k${i}":1`, `}${tail}`);
}

/** Arrays nested as deep as fit in the limit, inside `head` and `tail`. */
function deep(head: string, tail: string): string {
  const n = Math.floor((MAX_BODY_BYTES - head.length - tail.length) / 2);
  return `${head}${'['.repeat(n)}${']'.repeat(n)}${tail}`;
}

interface Measured {
  answer: Answer;
  /** The slowest schema GET that ran while the body was sent and answered. */
  getMaxMs: number;
  getsDuring: number;
  ms: number;
}

/** Sends `body` while another client loops schema GETs, one at a time. */
async function whileGetting(method: string, path: string, body: string, token: string): Promise<Measured> {
  const latencies: { start: number; ms: number }[] = [];
  let running = true;
  let firstDone!: () => void;
  const first = new Promise<void>((r) => (firstDone = r));
  const loop = (async () => {
    while (running) {
      const start = performance.now();
      const res = await fetch(base + SCHEMA_PATH, { headers: { authorization: `Bearer ${TOKENS.sales}` } });
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      latencies.push({ start, ms: performance.now() - start });
      firstDone();
    }
  })();
  await first;
  const t0 = performance.now();
  const answer = await rawCall(base, method, path, { token, body, contentType: 'application/json' });
  const ms = performance.now() - t0;
  // The GET in flight when the answer came still counts.
  running = false;
  await loop;
  const during = latencies.filter((l) => l.start + l.ms >= t0);
  return { answer, getMaxMs: Math.max(...during.map((l) => l.ms)), getsDuring: during.length, ms };
}

interface Hostile {
  name: string;
  method: 'POST' | 'PUT';
  path: string | (() => string);
  token: string;
  body: () => string | Promise<string>;
  status: number;
  family: 'metadata' | 'legacy' | 'platform';
  /** Problems the body holds, when the answer lists them: it lists 100 and counts the rest. */
  problems?: number;
  /** A pointer the listed problems include. */
  pointer?: string;
  /** Text the answer says. */
  says?: RegExp;
}

const RUNS = '/api/agents/echo-assistant/runs';
const LEGACY_WAIT = '/rest/api/v1/agents/runs/wait';
const SCHEMA_PUT = '/rest/api/index/custom-metadata/schema/hostile';
const DOC_PUT = '/rest/api/index/document/DOC-9/custom-metadata/sales';
const BAD_MESSAGES = atLimit('{"messages":[', () => '{"role":"X"}', ']}');
const BAD_MESSAGES_LEGACY = atLimit('{"agent_id":"echo-assistant","messages":[', () => '{"role":"X"}', ']}');
const RUN_KEYS = unknownKeysBody('"messages":[{"role":"USER","content":[{"type":"text","text":"hi"}]}]');

/** A durable run paused for its approval, for the responses bodies. */
let pausedRun: string | undefined;
async function pausedRunId(): Promise<string> {
  if (pausedRun) return pausedRun;
  const headers = { authorization: `Bearer ${TOKENS.agents}`, 'content-type': 'application/json' };
  const created = (await (
    await fetch(`${base}/api/agents/expense-filer/runs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ execution_mode: 'DURABLE', messages: [{ role: 'USER', content: [{ type: 'text', text: 'file it' }] }] }),
    })
  ).json()) as { run: { run_id: string } };
  const id = created.run.run_id;
  for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const run = (await (await fetch(`${base}/api/agents/expense-filer/runs/${id}`, { headers })).json()) as { run: { state: string } };
    if (run.run.state === 'REQUIRES_INPUT') return (pausedRun = id);
  }
  throw new Error(`run ${id} never paused for its approval`);
}

const RESPONSES = '/api/agents/expense-filer/responses';
const responsesBody = async (item: (i: number) => string) => atLimit(`{"run_id":"${await pausedRunId()}","responses":[`, item, ']}').body;

const HOSTILE: Hostile[] = [
  // The messages
  { name: `platform run: ${BAD_MESSAGES.count.toLocaleString('en-US')} invalid messages`, method: 'POST', path: RUNS, token: TOKENS.agents, body: () => BAD_MESSAGES.body, status: 400, family: 'platform', problems: BAD_MESSAGES.count * 2, pointer: '/messages/0/role' },
  { name: `legacy wait run: ${BAD_MESSAGES_LEGACY.count.toLocaleString('en-US')} invalid messages`, method: 'POST', path: LEGACY_WAIT, token: TOKENS.agents, body: () => BAD_MESSAGES_LEGACY.body, status: 400, family: 'legacy', says: /\/messages\/0\/role .*more problems not listed/ },
  { name: 'legacy stream run: invalid messages', method: 'POST', path: '/rest/api/v1/agents/runs/stream', token: TOKENS.agents, body: () => BAD_MESSAGES_LEGACY.body, status: 400, family: 'legacy' },
  { name: 'platform run: a wide array of numbers as messages', method: 'POST', path: RUNS, token: TOKENS.agents, body: () => atLimit('{"messages":[', () => '0', ']}').body, status: 400, family: 'platform', problems: atLimit('{"messages":[', () => '0', ']}').count, pointer: '/messages/99' },
  { name: 'platform run: one message with a wide array of bad content blocks', method: 'POST', path: RUNS, token: TOKENS.agents, body: () => atLimit('{"messages":[{"role":"USER","content":[', () => '{}', ']}]}').body, status: 400, family: 'platform', pointer: '/messages/0/content/0/type' },
  // The responses
  { name: 'responses: 23,000+ unique interaction ids', method: 'POST', path: RESPONSES, token: TOKENS.agents, body: () => responsesBody((i) => `{"interaction_id":"${i}","decision":"REJECT"}`), status: 409, family: 'platform', says: /Interaction\(s\) 0, 1, .* and [\d,]+ more are not pending/ },
  { name: 'responses: unique ids, the last one repeating the first', method: 'POST', path: RESPONSES, token: TOKENS.agents, body: async () => (await responsesBody((i) => `{"interaction_id":"${i}","decision":"REJECT"}`)).replace(/"[0-9]+","decision":"REJECT"\}\]\}$/, '"0","decision":"REJECT"}]}'), status: 409, family: 'platform', says: /Interaction 0 appears more than once/ },
  { name: 'responses: 50,000+ invalid items', method: 'POST', path: RESPONSES, token: TOKENS.agents, body: () => responsesBody(() => '{"x":1}'), status: 400, family: 'platform', pointer: '/responses/0/x' },
  // The unknown keys
  { name: `platform run: ${RUN_KEYS.count.toLocaleString('en-US')} unknown keys`, method: 'POST', path: RUNS, token: TOKENS.agents, body: () => RUN_KEYS.body, status: 400, family: 'platform', problems: RUN_KEYS.count, pointer: '/k0' },
  { name: 'legacy wait run: unknown keys', method: 'POST', path: LEGACY_WAIT, token: TOKENS.agents, body: () => unknownKeysBody('"agent_id":"echo-assistant"').body, status: 400, family: 'legacy', says: /Unknown field\(s\): k0, k1, .* and [\d,]+ more/ },
  { name: 'responses: unknown keys', method: 'POST', path: RESPONSES, token: TOKENS.agents, body: () => unknownKeysBody('"run_id":"x","responses":[]').body, status: 400, family: 'platform', pointer: '/k0' },
  { name: 'cancellations: unknown keys', method: 'POST', path: '/api/agents/long-runner/cancellations', token: TOKENS.agents, body: () => unknownKeysBody('"run_id":"x"').body, status: 400, family: 'platform', pointer: '/k0' },
  { name: 'agent search: unknown keys', method: 'POST', path: '/api/agents/search', token: TOKENS.agents, body: () => unknownKeysBody('').body, status: 400, family: 'platform', pointer: '/k0' },
  { name: 'schema PUT: unknown keys', method: 'PUT', path: SCHEMA_PUT, token: TOKENS.global, body: () => unknownKeysBody('"metadataKeys":[]').body, status: 400, family: 'metadata', says: /Unknown field\(s\) in the body: k0, .* and [\d,]+ more/ },
  { name: 'schema PUT: a key with unknown fields', method: 'PUT', path: SCHEMA_PUT, token: TOKENS.global, body: () => unknownKeysBody('"name":"a","propertyType":"TEXT"', '{"metadataKeys":[', ']}').body, status: 400, family: 'metadata', says: /metadataKeys\[0\] has unknown field\(s\): k0, .* and [\d,]+ more/ },
  { name: 'document PUT: unknown keys', method: 'PUT', path: DOC_PUT, token: TOKENS.global, body: () => unknownKeysBody('"customMetadata":[]').body, status: 400, family: 'metadata' },
  { name: 'document PUT: a value with unknown fields', method: 'PUT', path: DOC_PUT, token: TOKENS.global, body: () => unknownKeysBody('"name":"status","value":"x"', '{"customMetadata":[', ']}').body, status: 400, family: 'metadata' },
  { name: 'a key of 1 MB that is not a field', method: 'POST', path: RUNS, token: TOKENS.agents, body: () => `{"${'k'.repeat(MAX_BODY_BYTES - 10)}":1}`, status: 400, family: 'platform', says: /characters\)/ },
  // A document's values and a schema's keys
  { name: 'document PUT: 100,000+ values', method: 'PUT', path: DOC_PUT, token: TOKENS.global, body: () => atLimit('{"customMetadata":[', (i) => `{"name":"k${i}","value":"x"}`, ']}').body, status: 400, family: 'metadata', says: /is not a key of this group/ },
  { name: 'document PUT: a 1 MB key name', method: 'PUT', path: DOC_PUT, token: TOKENS.global, body: () => `{"customMetadata":[{"name":"${'n'.repeat(MAX_BODY_BYTES - 50)}","value":"x"}]}`, status: 400, family: 'metadata', says: /characters\)" is not a key/ },
  { name: 'document PUT: the same key again and again', method: 'PUT', path: DOC_PUT, token: TOKENS.global, body: () => atLimit('{"customMetadata":[', () => '{"name":"status","value":"x"}', ']}').body, status: 400, family: 'metadata', says: /given twice/ },
  { name: 'schema PUT: 50,000+ keys', method: 'PUT', path: SCHEMA_PUT, token: TOKENS.global, body: () => atLimit('{"metadataKeys":[', (i) => `{"name":"k${i}","propertyType":"TEXT"}`, ']}').body, status: 400, family: 'metadata', says: /at most 20 keys/ },
  { name: 'schema PUT: a 1 MB propertyType', method: 'PUT', path: SCHEMA_PUT, token: TOKENS.global, body: () => `{"metadataKeys":[{"name":"a","propertyType":"${'T'.repeat(MAX_BODY_BYTES - 60)}"}]}`, status: 400, family: 'metadata', says: /characters\)" is unknown/ },
  // Deep nesting
  { name: 'platform run: nested half a million levels deep', method: 'POST', path: RUNS, token: TOKENS.agents, body: () => deep('{"messages":[],"metadata":{"a":', '}}'), status: 400, family: 'platform', says: /more than 64 levels deep/ },
  { name: 'legacy wait run: nested messages', method: 'POST', path: LEGACY_WAIT, token: TOKENS.agents, body: () => deep('{"agent_id":"echo-assistant","messages":', '}'), status: 400, family: 'legacy', says: /more than 64 levels deep/ },
  { name: 'schema PUT: nested', method: 'PUT', path: SCHEMA_PUT, token: TOKENS.global, body: () => deep('', ''), status: 400, family: 'metadata', says: /more than 64 levels deep/ },
  { name: 'responses: nested', method: 'POST', path: RESPONSES, token: TOKENS.agents, body: () => deep('{"run_id":"x","responses":', '}'), status: 400, family: 'platform', says: /more than 64 levels deep/ },
  // Wide arrays
  { name: 'form run: an input holding half a million values is checked up to its first problem', method: 'POST', path: '/api/agents/hr-policy-form/runs', token: TOKENS.agents, body: () => atLimit('{"input":{"topic":"","region":"nowhere","pad":[', () => '0', ']}}').body, status: 400, family: 'platform', says: /checked only up to its first problem/ },
  { name: 'form run: a wide array where a string belongs', method: 'POST', path: '/rest/api/v1/agents/runs/wait', token: TOKENS.agents, body: () => atLimit('{"agent_id":"hr-policy-form","input":{"topic":[', () => '0', '],"region":"emea","audience":"","tone":"","maxPoints":"","includeLinks":""}}').body, status: 400, family: 'legacy', says: /\/input\/topic must be string/ },
];

describe('a body at the 1 MB limit', { timeout: 60_000 }, () => {
  test.each(HOSTILE)('$name → $status, small, while another client\'s schema GET is answered', async (h) => {
    const body = await h.body();
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    const m = await whileGetting(h.method, typeof h.path === 'string' ? h.path : h.path(), body, h.token);
    const a = m.answer;
    expect({ status: a.status, text: a.text.slice(0, 300) }).toMatchObject({ status: h.status });
    expect(a.text.length).toBeLessThan(MAX_ANSWER_BYTES);
    expect(m.getsDuring).toBeGreaterThan(0);
    expect(m.getMaxMs, `the slowest schema GET while the body was handled (target ${GET_TARGET_MS} ms; the body took ${Math.round(m.ms)} ms)`).toBeLessThan(GET_ASSERT_MS);
    if (h.family === 'platform') {
      expect(a.contentType).toMatch(/^application\/problem\+json/);
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
    } else {
      expect(Object.keys(a.json as object).sort()).toEqual(['error', 'message']);
      if (h.says) expect((a.json as { message: string }).message).toMatch(h.says);
    }
  });

  test('a wide array where the API keeps values is stored, and the schema GET still answers meanwhile', async () => {
    const { body, count } = atLimit('{"customMetadata":[{"name":"tags","value":[', (i) => `"t${i}"`, ']}]}');
    const m = await whileGetting('PUT', DOC_PUT, body, TOKENS.global);
    expect(m.answer.status).toBe(200);
    expect(count).toBeGreaterThan(100_000);
    expect(m.getMaxMs).toBeLessThan(GET_ASSERT_MS);
  });
});
