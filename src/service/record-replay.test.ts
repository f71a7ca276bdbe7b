/**
 * Record, then replay, as a user runs them, over real HTTP: a reference service stands in
 * for the production instance (the upstream, with paced agents of its own), the console's
 * server forwards to it with `npm start -- --upstream URL --record DIR`, and then
 * `npm run service -- --replay DIR` answers the same requests from the files, paced as
 * recorded (faster with --replay-speed). Timings are checked with wide margins.
 */
import { Ajv } from 'ajv';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Recording } from './recording.ts';
import { expectLegacyError, expectMetadataError, expectProblem, rawCall, TOKENS, type Answer } from './test-http.ts';
import { runCli, startCli, type CliProcess } from './test-support/cli-process.ts';
import { eventsOf, readSse } from './test-support/sse.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const WORDS = 'one two three four five';
const GAP_MS = 250;

/** The upstream's agents: one paced a word every 250 ms, one whose connection drops after two words. */
const AGENTS = {
  agents: [
    {
      agent_id: 'paced-echo',
      name: 'Paced Echo',
      capabilities: { 'ap.io.messages': true, 'ap.io.streaming': true },
      input_schema: { type: 'object', properties: {} },
      behaviour: { text: `${WORDS} ({{lastUserMessage}})`, chunking: 'word', delayMs: GAP_MS },
    },
    {
      agent_id: 'dropper',
      name: 'Dropper',
      capabilities: { 'ap.io.messages': true, 'ap.io.streaming': true },
      input_schema: { type: 'object', properties: {} },
      behaviour: { text: 'a b c d', chunking: 'word', delayMs: 30, dropAfter: 2 },
    },
  ],
};

const USER = (text: string) => [{ role: 'USER', content: [{ type: 'text', text }] }];
/** A token that must never reach a recording, whichever header or parameter carries it. */
const SECRET = TOKENS.everything;

let work = '';
let dir = '';
let upstream: CliProcess;
let console_: CliProcess;
let replay: CliProcess;
let fastReplay: CliProcess;
let proxyBase = '';
/** The path of an API request through the console's server to the upstream. */
const proxied = (path: string) => `/upstream/${new URL(upstream.url).host}${path}`;

interface Streamed {
  status: number;
  events: { id?: string; event?: string; data: string }[];
  /** When each event arrived, in ms from the request. */
  times: number[];
  broken: boolean;
  headers: Headers;
}

async function stream(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Streamed> {
  const t0 = performance.now();
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKENS.everything}`, 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const times: number[] = [];
  let seen = 0;
  let broken = false;
  let items: Awaited<ReturnType<typeof readSse>>['items'] = [];
  try {
    await readSse(res.body, (all) => {
      items = [...all];
      for (const _ of eventsOf(all).slice(seen)) times.push(performance.now() - t0);
      seen = eventsOf(all).length;
      return false;
    });
  } catch {
    broken = true;
  }
  const events = eventsOf(items).map((e) => ({ id: e.id, event: e.event, data: e.data }));
  return { status: res.status, events, times, broken, headers: res.headers };
}

const schemaPath = (group: string) => `/rest/api/index/custom-metadata/schema/${group}`;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'record-replay-'));
  dir = join(work, 'recordings');
  const agentsFile = join(work, 'agents.json');
  writeFileSync(agentsFile, JSON.stringify(AGENTS));
  upstream = await startCli(['service', '--memory', '--port', '0', '--rate-limit', '0', '--agents', agentsFile]);
  console_ = await startCli(['start', '--memory', '--port', '0', '--no-build', '--upstream', upstream.url, '--record', dir]);
  proxyBase = `${console_.url}/upstream/${new URL(upstream.url).host}`;
}, 120_000);

afterAll(async () => {
  await Promise.all([upstream, console_, replay, fastReplay].map((p) => p?.stop()));
  rmSync(work, { recursive: true, force: true });
});

/** What was sent through the console's server, to be asked again of the replay. */
const recorded: { paced?: Streamed; wait?: Answer; schema?: Answer; unknown?: Answer; dropped?: Streamed } = {};

describe('recording through the console’s server', () => {
  it('forwards and records a paced stream, a wait answer, a schema read, an error and a dropped stream', async () => {
    recorded.paced = await stream(proxyBase, '/api/agents/paced-echo/runs', { stream: true, messages: USER('hi') });
    expect(recorded.paced.status).toBe(200);
    expect(recorded.paced.events).toHaveLength(6);
    recorded.wait = await rawCall(console_.url, 'POST', proxied('/rest/api/v1/agents/runs/wait'), { token: TOKENS.everything, body: { agent_id: 'paced-echo', messages: USER('wait for it') } });
    expect(recorded.wait.status).toBe(200);
    recorded.schema = await rawCall(console_.url, 'GET', proxied(schemaPath('sales')), { token: TOKENS.sales });
    expect(recorded.schema.status).toBe(200);
    recorded.unknown = await rawCall(console_.url, 'GET', proxied('/api/agents/no-such-agent'), { token: TOKENS.everything });
    expectProblem(recorded.unknown, 404, 'resource_not_found');
    recorded.dropped = await stream(proxyBase, '/api/agents/dropper/runs', { stream: true, messages: USER('x') });
    expect(recorded.dropped.broken).toBe(true);
    expect(recorded.dropped.events).toHaveLength(2);
    await expect.poll(() => readdirSync(dir).filter((f) => f.endsWith('.json')).length, { timeout: 10_000 }).toBe(5);
  }, 30_000);

  it('passes a revalidation through: If-None-Match goes up, the ETag and the 304 come back', async () => {
    const etag = recorded.schema!.headers.get('etag')!;
    expect(etag).toMatch(/^"/);
    const again = await rawCall(console_.url, 'GET', proxied(schemaPath('sales')), { token: TOKENS.sales, headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    await expect.poll(() => readdirSync(dir).filter((f) => f.endsWith('.json')).length, { timeout: 10_000 }).toBe(6);
  });

  it('never forwards X-Sandbox-Fault: the upstream, a reference service that honours it, answers as usual', async () => {
    const direct = await rawCall(upstream.url, 'GET', schemaPath('sales'), { token: TOKENS.sales, headers: { 'x-sandbox-fault': 'status=503' } });
    expect(direct.status).toBe(503);
    const viaConsole = await rawCall(console_.url, 'GET', proxied(schemaPath('sales')), { token: TOKENS.sales, headers: { 'x-sandbox-fault': 'status=503' } });
    expect(viaConsole.status).toBe(200);
    const s = await stream(proxyBase, '/api/agents/dropper/runs', { stream: true, messages: USER('y') }, { 'x-sandbox-fault': 'drop-after=0' });
    expect(s.events).toHaveLength(2);
    await expect.poll(() => readdirSync(dir).filter((f) => f.endsWith('.json')).length, { timeout: 10_000 }).toBe(8);
    // Nor does a recording keep it.
    for (const f of readdirSync(dir).filter((name) => name.endsWith('.json'))) expect(readFileSync(join(dir, f), 'utf8')).not.toMatch(/sandbox-fault/i);
  });

  it('never writes Authorization, a cookie or a token, whichever header or query parameter carried it', async () => {
    // Recordings only: one being written is a hidden .tmp file until it is whole.
    const recordingsIn = () => readdirSync(dir).filter((f) => f.endsWith('.json'));
    const before = recordingsIn().length;
    const path = `/api/agents/paced-echo/schemas?access_token=${SECRET}&token=${encodeURIComponent(SECRET)}&include_tools=false`;
    const a = await rawCall(console_.url, 'GET', proxied(path), {
      token: SECRET,
      headers: { cookie: `session=${SECRET}; theme=dark`, 'x-api-key': SECRET, 'x-auth-token': `Bearer ${SECRET}`, 'proxy-authorization': `Basic ${SECRET}` },
    });
    expect(a.status).toBe(200);
    await expect.poll(() => recordingsIn().length, { timeout: 10_000 }).toBe(before + 1);
    const files = recordingsIn().map((f) => readFileSync(join(dir, f), 'utf8'));
    for (const text of files) {
      for (const form of [SECRET, encodeURIComponent(SECRET), 'sandbox-everything']) expect(text).not.toContain(form);
      expect(text).not.toMatch(/authorization|"cookie"|x-api-key|x-auth-token/i);
    }
    // This exchange's recording, found by its path: on a loaded machine an earlier stream's recording may be written after it.
    const recordings = files.map((text) => JSON.parse(text) as Recording);
    const mine = recordings.filter((r) => r.request.path.startsWith('/api/agents/paced-echo/schemas?'));
    expect(mine.map((r) => r.request.path)).toEqual(['/api/agents/paced-echo/schemas?access_token=%5Bredacted%5D&token=%5Bredacted%5D&include_tools=false']);
  });

  it('writes one readable file per exchange, each valid against docs/recording.schema.json', () => {
    const validate = new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(join(ROOT, 'docs/recording.schema.json'), 'utf8')) as object);
    // Every recording written by now (the exchanges above were awaited); a hidden .tmp is one still being written.
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort();
    for (const f of files) {
      const r = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Recording;
      expect(validate(r), `${f}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    const paced = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as Recording;
    expect(files[0]).toBe('0001-post-api-agents-paced-echo-runs.json');
    expect(paced.request, JSON.stringify(paced.request)).toEqual({
      method: 'POST',
      path: '/api/agents/paced-echo/runs',
      // What fetch sent, Authorization left out.
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'accept-language': '*' },
      body: { stream: true, messages: USER('hi') },
    });
    expect(paced.response.status).toBe(200);
    expect(paced.response.end).toBe('complete');
    expect(paced.response.events!.map((e) => e.id)).toEqual(['1', '2', '3', '4', '5', '6']);
    const at = paced.response.events!.map((e) => e.atMs);
    // Paced by the upstream: the offsets grow by about 250 ms.
    expect(at.at(-1)! - at[0]!).toBeGreaterThanOrEqual(4 * GAP_MS * 0.8);
    const dropped = JSON.parse(readFileSync(join(dir, files[4]!), 'utf8')) as Recording;
    expect(dropped.response.end).toBe('broken');
  });
});

describe('replaying the recordings', () => {
  beforeAll(async () => {
    [replay, fastReplay] = await Promise.all([
      startCli(['service', '--memory', '--port', '0', '--replay', dir]),
      startCli(['service', '--memory', '--port', '0', '--replay', dir, '--replay-speed', '4']),
    ]);
  }, 120_000);

  it('says at start what it serves: the recordings and the demo tokens, and no console (npm run service serves none)', async () => {
    // The tokens come after the line the process is known to listen by.
    await vi.waitFor(() => expect(replay.output()).toContain('sandbox-noscope'), { timeout: 10_000 });
    const said = replay.output();
    expect(said).toMatch(/Replaying \d+ recordings from /);
    expect(said).toContain('Demo tokens (sandbox only');
    expect(said).not.toMatch(/Console/);
  });

  it('answers a recorded stream with the same events, paced as recorded; the body matches whatever its key order', async () => {
    const replayed = await stream(replay.url, '/api/agents/paced-echo/runs', '{"messages":[{"content":[{"text":"hi","type":"text"}],"role":"USER"}],"stream":true}');
    expect(replayed.status).toBe(200);
    expect(replayed.events).toEqual(recorded.paced!.events);
    expect(replayed.broken).toBe(false);
    const span = (s: Streamed) => s.times.at(-1)! - s.times[0]!;
    expect(span(replayed)).toBeGreaterThanOrEqual(span(recorded.paced!) * 0.7);
    const fast = await stream(fastReplay.url, '/api/agents/paced-echo/runs', { stream: true, messages: USER('hi') });
    expect(fast.events).toEqual(recorded.paced!.events);
    expect(span(fast)).toBeLessThan(span(recorded.paced!) * 0.6);
  });

  it('answers the wait run, the schema read (with its ETag and a 304), and the recorded error', async () => {
    const wait = await rawCall(replay.url, 'POST', '/rest/api/v1/agents/runs/wait', { token: TOKENS.everything, body: { messages: USER('wait for it'), agent_id: 'paced-echo' } });
    expect(wait.status).toBe(200);
    expect(wait.json).toEqual(recorded.wait!.json);
    expect(wait.headers.get('deprecation')).toBe(recorded.wait!.headers.get('deprecation'));
    const schema = await rawCall(replay.url, 'GET', schemaPath('sales'), { token: TOKENS.sales });
    expect(schema.json).toEqual(recorded.schema!.json);
    const etag = schema.headers.get('etag')!;
    expect(etag).toBe(recorded.schema!.headers.get('etag'));
    const revalidated = await rawCall(replay.url, 'GET', schemaPath('sales'), { token: TOKENS.sales, headers: { 'if-none-match': etag } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe('');
    const unknown = await rawCall(replay.url, 'GET', '/api/agents/no-such-agent', { token: TOKENS.everything });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual(recorded.unknown!.json);
  });

  it('breaks a stream where the recording broke, and honours X-Sandbox-Fault on a replay', async () => {
    const dropped = await stream(replay.url, '/api/agents/dropper/runs', { stream: true, messages: USER('x') });
    expect(dropped.events).toEqual(recorded.dropped!.events);
    expect(dropped.broken).toBe(true);
    const faulted = await stream(replay.url, '/api/agents/paced-echo/runs', { stream: true, messages: USER('hi') }, { 'x-sandbox-fault': 'drop-after=1' });
    expect(faulted.events).toEqual(recorded.paced!.events.slice(0, 1));
    expect(faulted.broken).toBe(true);
  });

  it('answers a request with no recording 404 in its family’s format, naming the closest recording', async () => {
    const platform = expectProblem(
      await rawCall(replay.url, 'POST', '/api/agents/paced-echo/runs', { token: TOKENS.everything, body: { stream: true, messages: USER('bye') } }),
      404,
      'resource_not_found',
    );
    expect(platform.detail).toMatch(/No recording .* matches POST \/api\/agents\/paced-echo\/runs/);
    expect(platform.detail).toMatch(/closest is 0001-post-api-agents-paced-echo-runs\.json: same method and path, but the body differs at \/messages\/0\/content\/0\/text/);
    const legacy = expectLegacyError(await rawCall(replay.url, 'POST', '/rest/api/v1/agents/runs/stream', { token: TOKENS.everything, body: { agent_id: 'paced-echo' } }), 404);
    expect(legacy).toMatch(/No recording .*closest is .*\.json/);
    const metadata = await rawCall(replay.url, 'GET', schemaPath('hr'), { token: TOKENS.global });
    expectMetadataError(metadata, 404);
    expect((metadata.json as { message: string }).message).toMatch(/closest is \d{4}-get-rest-api-index-custom-metadata-schema-sales\.json/);
  });

  it('accepts any token the service knows, and applies scopes', async () => {
    expectProblem(await rawCall(replay.url, 'GET', '/api/agents/no-such-agent', { token: 'not-a-token' }), 401, 'authentication_required');
    expectProblem(await rawCall(replay.url, 'GET', '/api/agents/no-such-agent', { token: TOKENS.sales }), 403, 'insufficient_permissions');
    expectMetadataError(await rawCall(replay.url, 'GET', schemaPath('sales'), { token: TOKENS.hr }), 401);
    expect((await rawCall(replay.url, 'GET', schemaPath('sales'), { token: TOKENS.global })).status).toBe(200);
    // A token minted on the replaying service itself works there too.
    const minted = await rawCall(replay.url, 'POST', '/sandbox/tokens', { body: { scopes: ['custommetadata:sales'] } });
    expect((await rawCall(replay.url, 'GET', schemaPath('sales'), { token: (minted.json as { token: string }).token })).status).toBe(200);
  });

  it('refuses to start on a directory with no recordings, a file that is not one, or a speed it cannot use', async () => {
    const empty = join(work, 'empty');
    const bad = join(work, 'bad');
    for (const d of [empty, bad]) rmSync(d, { recursive: true, force: true });
    writeFileSync(join(work, 'x'), '');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(empty);
    mkdirSync(bad);
    writeFileSync(join(bad, '0001-x.json'), JSON.stringify({ format: 'metadata-agents-console/recording', version: 1 }));
    const noFiles = await runCli(['service', '--memory', '--port', '0', '--replay', empty]);
    expect(noFiles.code).not.toBe(0);
    expect(noFiles.output).toMatch(/holds no recordings/);
    const notOne = await runCli(['service', '--memory', '--port', '0', '--replay', bad]);
    expect(notOne.code).not.toBe(0);
    expect(notOne.output).toMatch(/0001-x\.json is not a recording/);
    const speed = await runCli(['service', '--memory', '--port', '0', '--replay', dir, '--replay-speed', 'fast']);
    expect(speed.code).toBe(2);
    expect(speed.output).toMatch(/--replay-speed takes .*not "fast"/);
    const noUpstream = await runCli(['start', '--memory', '--port', '0', '--no-build', '--record', dir]);
    expect(noUpstream.code).toBe(2);
    expect(noUpstream.output).toMatch(/--record DIR writes what the console's server forwards to an upstream: give --upstream/);
  }, 60_000);
});
