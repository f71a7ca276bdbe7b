/**
 * What an X-Sandbox-Fault may cost the service (issue 37): a fault applies only to a request
 * that is authorized and admitted (token, scope, rate limit, a run slot); it holds that slot
 * until its answer has ended; a client that leaves cancels it. Over real HTTP, each request on
 * a connection of its own. A refusal must come long before the delay asked for (30 s): the
 * bounds below are that, not a tight timing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RECORDING_FORMAT, RECORDING_VERSION, type Recording } from './recording.ts';
import { loadRecordings } from './replay-load.ts';
import { listeningService, TOKENS } from './test-http.ts';
import { eventsOf, parseSseText } from './test-support/sse.ts';

const MAX_RUNS = 2;
const server = listeningService({ memory: true, rateLimitPerMinute: 0, maxRunsPerToken: MAX_RUNS });
/** One request a minute per token: the second is the rate limit's 429. */
const limited = listeningService({ memory: true, rateLimitPerMinute: 1 });

const SCHEMA = '/rest/api/index/custom-metadata/schema/sales';
const recordings = mkdtempSync(join(tmpdir(), 'fault-admission-'));
afterAll(() => rmSync(recordings, { recursive: true, force: true }));
const recorded: Recording = {
  format: RECORDING_FORMAT,
  version: RECORDING_VERSION,
  recordedAt: '2026-01-01T00:00:00.000Z',
  upstream: 'https://acme-be.example',
  request: { method: 'GET', path: SCHEMA },
  response: { status: 200, headers: { 'content-type': 'application/json' }, headAtMs: 0, endAtMs: 0, end: 'complete', body: { metadataKeys: [] } },
};
writeFileSync(join(recordings, '0001-schema.json'), JSON.stringify(recorded));
/** A replay with one run slot a token: the same rules for faults as the routes. */
const replay = listeningService({ memory: true, rateLimitPerMinute: 0, maxRunsPerToken: 1, replay: { set: loadRecordings(recordings), speed: 1 } });

const USER_HI = [{ role: 'USER', content: [{ type: 'text', text: 'Hi' }] }];
const LONG = 'delay-first=30000';
/** Long before a 30 s delay: whatever the machine's load, a refusal held by the fault cannot come this early. */
const AT_ONCE_MS = 5_000;

interface Reply {
  status: number;
  text: string;
  /** From the request to the answer's end. */
  ms: number;
  complete: boolean;
}

interface Sent {
  reply: Promise<Reply>;
  req: ClientRequest;
  /** Bytes of the answer's body received so far. */
  received(): number;
}

function send(base: string, path: string, options: { fault?: string; token?: string; body?: unknown; method?: string }): Sent {
  const url = new URL(path, base);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.fault !== undefined) headers['x-sandbox-fault'] = options.fault;
  if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  const t0 = performance.now();
  let req!: ClientRequest;
  let received = 0;
  const reply = new Promise<Reply>((resolve, reject) => {
    req = httpRequest({ host: url.hostname, port: url.port, path, method: options.method ?? (body ? 'POST' : 'GET'), headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        received += c.length;
      });
      const done = () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - t0, complete: res.complete });
      res.on('end', done);
      res.on('close', done);
    });
    req.on('error', reject);
    req.end(body);
  });
  reply.catch(() => {});
  return { reply, req, received: () => received };
}

const open: ClientRequest[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) r.destroy();
  await expect.poll(() => server.service.runSlots.inUse, { timeout: 5_000 }).toBe(0);
});

/**
 * A wait-mode run of ten firehose events, held by `fault`, on a connection the test may cut.
 * The run itself takes no time: a slot held for seconds is held by the fault.
 */
function heldWait(flavour: 'platform' | 'legacy', fault: string, token: string = TOKENS.agents): Sent {
  const input = { count: 10 };
  const sent =
    flavour === 'platform'
      ? send(server.url, '/api/agents/firehose/runs', { token, fault, body: { stream: false, input } })
      : send(server.url, '/rest/api/v1/agents/runs/wait', { token, fault, body: { agent_id: 'firehose', input } });
  open.push(sent.req);
  return sent;
}

/** How many bytes of `sent`'s answer the client had when its slot came back (the slot is taken first). */
async function receivedWhenFreed(sent: Sent): Promise<number> {
  await expect.poll(() => server.service.runSlots.inUse).toBe(1);
  await expect.poll(() => server.service.runSlots.inUse, { timeout: 10_000, interval: 5 }).toBe(0);
  return sent.received();
}

/**
 * The slot came back with the answer's last bytes, not before: at 2 s for the whole answer, a
 * tick of the pacing (100 ms) is a twentieth of it, and the bytes may still be on their way.
 */
function expectFreedAtTheEnd(receivedThen: number, r: Reply): void {
  expect(receivedThen).toBeGreaterThanOrEqual(Buffer.byteLength(r.text) * 0.8);
}

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('a request refused is answered at once, without its fault', () => {
  const runPaths = [
    ['platform', '/api/agents/echo-assistant/runs', { stream: false, messages: USER_HI }],
    ['legacy', '/rest/api/v1/agents/runs/wait', { agent_id: 'echo-assistant', messages: USER_HI }],
    ['metadata', '/rest/api/index/custom-metadata/schema/sales', undefined],
  ] as const;

  it.each(runPaths)('no token, delay-first=30000 (%s): 401 at once', async (_family, path, body) => {
    const r = await send(server.url, path, { fault: LONG, body }).reply;
    expect(r.status).toBe(401);
    expect(r.ms).toBeLessThan(AT_ONCE_MS);
  });

  it.each(runPaths)('no token, slow-bytes=1 (%s): the whole 401 at once, not a byte a second', async (_family, path, body) => {
    const r = await send(server.url, path, { fault: 'slow-bytes=1', body }).reply;
    expect(r.status).toBe(401);
    expect(r.complete).toBe(true);
    // At a byte a second, an error body of this size would take minutes.
    expect(r.text.length).toBeGreaterThan(40);
    expect(r.ms).toBeLessThan(AT_ONCE_MS);
  });

  it('an unknown token, a token without the scope, a bad body: at once', async () => {
    const unknown = await send(server.url, '/api/agents/echo-assistant', { token: 'not-a-token', fault: LONG }).reply;
    expect(unknown.status).toBe(401);
    const noScope = await send(server.url, '/api/agents/echo-assistant', { token: TOKENS.sales, fault: `${LONG}; slow-bytes=1` }).reply;
    expect(noScope.status).toBe(403);
    expect(noScope.complete).toBe(true);
    const badBody = await send(server.url, '/api/agents/echo-assistant/runs', { token: TOKENS.agents, fault: LONG, body: { stream: false } }).reply;
    expect(badBody.status).toBe(400);
    for (const r of [unknown, noScope, badBody]) expect(r.ms).toBeLessThan(AT_ONCE_MS);
    expect(server.service.runSlots.inUse).toBe(0);
  });

  it('a metadata token whose scopes do not cover the group: 401 at once, a status asked for with a delay included', async () => {
    for (const fault of [LONG, `status=503; ${LONG}`]) {
      const r = await send(server.url, SCHEMA, { token: TOKENS.hr, fault }).reply;
      expect(r.status).toBe(401);
      expect(r.ms).toBeLessThan(AT_ONCE_MS);
    }
    const bad = await send(server.url, '/rest/api/index/custom-metadata/schema/bad%20name', { token: TOKENS.global, fault: LONG }).reply;
    expect(bad.status).toBe(400);
    expect(server.service.runSlots.inUse).toBe(0);
    // A token that covers it gets the delay.
    const held = send(server.url, SCHEMA, { token: TOKENS.sales, fault: 'delay-first=400' });
    await expect.poll(() => server.service.runSlots.inUse).toBe(1);
    const r = await held.reply;
    expect(r.status).toBe(200);
    expect(r.ms).toBeGreaterThanOrEqual(350);
  });

  it('the rate limit’s 429: at once', async () => {
    const path = '/api/agents/echo-assistant';
    expect((await send(limited.url, path, { token: TOKENS.agents }).reply).status).toBe(200);
    const r = await send(limited.url, path, { token: TOKENS.agents, fault: `${LONG}; slow-bytes=1` }).reply;
    expect(r.status).toBe(429);
    expect(r.complete).toBe(true);
    expect(r.ms).toBeLessThan(AT_ONCE_MS);
  });
});

describe('a fault holds its run slot', () => {
  it.each(['platform', 'legacy'] as const)('with --max-runs 2, two delayed %s waits hold both slots: a third run is refused 429 at once', async (flavour) => {
    heldWait(flavour, LONG);
    heldWait(flavour, LONG);
    await expect.poll(() => server.service.runSlots.inUse).toBe(MAX_RUNS);
    const third = await heldWait(flavour, LONG).reply;
    expect(third.status).toBe(429);
    expect(third.text).toContain(`${MAX_RUNS} runs going`);
    expect(third.ms).toBeLessThan(AT_ONCE_MS);
    // Any request held by a fault takes a slot, a run or not: a delayed GET is refused too.
    const get = await send(server.url, '/api/agents/echo-assistant', { token: TOKENS.agents, fault: LONG }).reply;
    expect(get.status).toBe(429);
    // Another token has slots of its own.
    const other = send(server.url, '/api/agents/echo-assistant', { token: TOKENS.everything, fault: 'delay-first=300' });
    expect((await other.reply).status).toBe(200);
  });

  it('a client that leaves during the delay gives its slot back and its timer is cleared: a new run is admitted', async () => {
    const before = timers();
    const held = [heldWait('platform', LONG), heldWait('legacy', LONG)];
    await expect.poll(() => server.service.runSlots.inUse).toBe(MAX_RUNS);
    const during = timers();
    for (const h of held) h.req.destroy();
    await expect.poll(() => server.service.runSlots.inUse, { timeout: 2_000 }).toBe(0);
    // The two 30 s timers went with their clients (other timers come and go: only those two are counted).
    await expect.poll(timers, { timeout: 2_000 }).toBeLessThanOrEqual(Math.max(before, during - 2));
    const next = await heldWait('platform', 'delay-first=1').reply;
    expect(next.status).toBe(200);
    expect(JSON.parse(next.text)).toMatchObject({ run: { status: 'success' } });
  });

  it('a JSON answer at slow-bytes holds the slot until its last byte, and is whole', async () => {
    const plain = await heldWait('platform', 'delay-first=1').reply;
    // About two seconds of bytes.
    const rate = Math.ceil(Buffer.byteLength(plain.text) / 2);
    const slow = heldWait('platform', `slow-bytes=${rate}`);
    const freedAt = await receivedWhenFreed(slow);
    const r = await slow.reply;
    expect(r.status).toBe(200);
    expect(r.complete).toBe(true);
    const { request_id: _id, ...answer } = JSON.parse(r.text) as Record<string, unknown>;
    const { request_id: _plainId, ...plainAnswer } = JSON.parse(plain.text) as Record<string, unknown>;
    expect(answer).toEqual(plainAnswer);
    expect(answer).toMatchObject({ run: { status: 'success' } });
    expectFreedAtTheEnd(freedAt, r);
  });

  it('a stream at slow-bytes holds the slot until its last byte, not until its run has produced it', async () => {
    // Ten events in one burst: the run has made them all at once, and they leave over two seconds.
    const body = { stream: true, input: { count: 10 } };
    const plain = await send(server.url, '/api/agents/firehose/runs', { token: TOKENS.agents, body }).reply;
    const rate = Math.ceil(Buffer.byteLength(plain.text) / 2);
    const slow = send(server.url, '/api/agents/firehose/runs', { token: TOKENS.agents, fault: `slow-bytes=${rate}`, body });
    open.push(slow.req);
    const freedAt = await receivedWhenFreed(slow);
    const r = await slow.reply;
    expect(r.status).toBe(200);
    expect(eventsOf(parseSseText(r.text)).map((e) => e.data)).toEqual(eventsOf(parseSseText(plain.text)).map((e) => e.data));
    expect(r.complete).toBe(true);
    expectFreedAtTheEnd(freedAt, r);
  });

  it('status with delay-first is held only for an admitted request; alone it is answered at once, whatever the token', async () => {
    const alone = await send(server.url, '/api/agents/echo-assistant', { token: 'not-a-token', fault: 'status=503' }).reply;
    expect(alone.status).toBe(503);
    const unadmitted = await send(server.url, '/api/agents/echo-assistant', { token: 'not-a-token', fault: `status=503; ${LONG}` }).reply;
    expect(unadmitted.status).toBe(401);
    expect(unadmitted.ms).toBeLessThan(AT_ONCE_MS);
    const held = send(server.url, '/api/agents/echo-assistant', { token: TOKENS.agents, fault: 'status=503; delay-first=600' });
    await expect.poll(() => server.service.runSlots.inUse).toBe(1);
    const r = await held.reply;
    expect(r.status).toBe(503);
    expect(r.ms).toBeGreaterThanOrEqual(550);
  });
});

describe('a replay (--replay) applies a fault on the same terms', () => {
  it('no token: 401 at once; an admitted request holds its token’s slot through the delay, a second is refused at once', async () => {
    const noToken = await send(replay.url, SCHEMA, { fault: `${LONG}; slow-bytes=1` }).reply;
    expect(noToken.status).toBe(401);
    expect(noToken.complete).toBe(true);
    expect(noToken.ms).toBeLessThan(AT_ONCE_MS);
    const held = send(replay.url, SCHEMA, { token: TOKENS.sales, fault: LONG });
    open.push(held.req);
    await expect.poll(() => replay.service.runSlots.inUse).toBe(1);
    const second = await send(replay.url, SCHEMA, { token: TOKENS.sales, fault: LONG }).reply;
    expect(second.status).toBe(429);
    expect(second.ms).toBeLessThan(AT_ONCE_MS);
    held.req.destroy();
    await expect.poll(() => replay.service.runSlots.inUse, { timeout: 2_000 }).toBe(0);
    const answered = await send(replay.url, SCHEMA, { token: TOKENS.sales, fault: 'delay-first=200' }).reply;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.text)).toEqual({ metadataKeys: [] });
  });
});
