/**
 * X-Sandbox-Fault on the reference service, over real HTTP: every setting, their
 * combinations, and malformed values, in each API family. Streams are read as raw bytes with
 * node:http (a broken stream is told apart from one that ended) and parsed with an independent
 * parser. Timings are checked with wide margins: the machine may be loaded.
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { RunEnded } from './runs.ts';
import { expectFamilyError, expectLegacyError, expectMetadataError, expectProblem, listeningService, rawCall, TOKENS, type Answer } from './test-http.ts';
import { eventsOf, parseSseText } from './test-support/sse.ts';

const ended: RunEnded[] = [];
const started: string[] = [];
// Keep-alives every 150 ms: a stalled stream must send none, however long it stays open.
const server = listeningService({
  memory: true,
  rateLimitPerMinute: 0,
  keepAliveMs: 150,
  runObserver: { started: (r) => void started.push(r.requestId), ended: (r) => void ended.push(r) },
});

const USER_HI = [{ role: 'USER', content: [{ type: 'text', text: 'Hi' }] }];
const SCHEMA = '/rest/api/index/custom-metadata/schema/sales';

interface Streamed {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The server ended the answer; false when the connection broke first. */
  complete: boolean;
  /** When each chunk arrived, in ms from the answer's head, with its text. */
  chunks: { at: number; text: string }[];
  headAt: number;
  startedAt: number;
}

/**
 * One request over its own connection, its answer read chunk by chunk. `stopAfterMs`: the
 * client leaves (and the read resolves) that long after the head, if the answer has not ended.
 */
function send(path: string, options: { method?: string; fault?: string; token?: string; body?: unknown; stopAfterMs?: number } = {}): Promise<Streamed> {
  const url = new URL(path, server.url);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { authorization: `Bearer ${options.token ?? TOKENS.everything}`, accept: 'text/event-stream, application/json' };
  if (options.fault !== undefined) headers['x-sandbox-fault'] = options.fault;
  if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  const startedAt = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: options.method ?? (body ? 'POST' : 'GET'), headers, agent: false }, (res) => {
      const headAt = performance.now();
      const chunks: Streamed['chunks'] = [];
      let settled = false;
      const done = (complete: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: chunks.map((c) => c.text).join(''), complete, chunks, headAt: headAt - startedAt, startedAt });
      };
      const timer = options.stopAfterMs === undefined ? undefined : setTimeout(() => {
        done(false);
        req.destroy();
      }, options.stopAfterMs);
      res.setEncoding('utf8');
      res.on('data', (t: string) => chunks.push({ at: performance.now() - headAt, text: t }));
      res.on('end', () => done(true));
      res.on('aborted', () => done(false));
      res.on('error', () => done(false));
      res.on('close', () => done(res.complete));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const asAnswer = (s: Streamed): Answer => {
  const h = new Headers();
  for (const [k, v] of Object.entries(s.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
  let json: unknown;
  try {
    json = JSON.parse(s.text);
  } catch {
    json = undefined;
  }
  return { status: s.status, headers: h, contentType: h.get('content-type') ?? '', text: s.text, json };
};

const platformStream = (agent: string, fault?: string, extra: Record<string, unknown> = {}) =>
  send(`/api/agents/${agent}/runs`, { fault, body: { stream: true, messages: USER_HI, ...extra } });
const legacyStream = (agent: string, fault?: string) => send('/rest/api/v1/agents/runs/stream', { fault, body: { agent_id: agent, messages: USER_HI } });

const eventsIn = (text: string) => eventsOf(parseSseText(text));
const commentsIn = (text: string) => parseSseText(text).filter((i) => i.kind === 'comment');

describe('X-Sandbox-Fault: malformed values', () => {
  const cases: [family: 'platform' | 'legacy' | 'metadata', path: string, body?: unknown][] = [
    ['platform', '/api/agents/echo-assistant/runs', { stream: true, messages: USER_HI }],
    ['legacy', '/rest/api/v1/agents/runs/stream', { agent_id: 'echo-assistant', messages: USER_HI }],
    ['metadata', SCHEMA],
  ];
  it.each(cases)('a malformed value answers 400 in the %s family, says why, and runs nothing', async (family, path, body) => {
    const before = started.length;
    for (const [value, why] of [
      ['drop-after=soon', /drop-after takes events.*not "soon"/],
      ['explode=1', /"explode" is not a setting/],
      ['retry-after=3', /retry-after goes with status=429 or status=503/],
      ['status=500; stall-after=1', /cannot go with drop-after or stall-after/],
      ['', /the value is empty/],
    ] as const) {
      const a = asAnswer(await send(path, { fault: value, body }));
      expectFamilyError(family, a, 400);
      const said = family === 'legacy' ? (a.json as string) : family === 'platform' ? (a.json as { detail: string }).detail : (a.json as { message: string }).message;
      expect(said, value).toMatch(why);
      expect(said).toMatch(/^X-Sandbox-Fault: /);
    }
    expect(started.length).toBe(before);
  });

  it('the sandbox routes do not read it', async () => {
    const a = await rawCall(server.url, 'GET', '/sandbox/info', { headers: { 'x-sandbox-fault': 'status=500' } });
    expect(a.status).toBe(200);
  });
});

describe('X-Sandbox-Fault: status', () => {
  it('answers 429 with Retry-After in each family, before any run starts', async () => {
    const before = started.length;
    const platform = asAnswer(await platformStream('echo-assistant', 'status=429; retry-after=7'));
    expect(expectProblem(platform, 429, 'rate_limit_exceeded').detail).toMatch(/Sandbox fault/);
    expect(platform.headers.get('retry-after')).toBe('7');
    const legacy = asAnswer(await legacyStream('echo-assistant', 'status=429;retry-after=7'));
    expectLegacyError(legacy, 429);
    expect(legacy.headers.get('retry-after')).toBe('7');
    const metadata = asAnswer(await send(SCHEMA, { fault: 'status=429; retry-after=7' }));
    expectMetadataError(metadata, 429);
    expect(metadata.json).toMatchObject({ error: 'too many requests' });
    expect(metadata.headers.get('retry-after')).toBe('7');
    expect(started.length).toBe(before);
  });

  it('answers 503 with its code, a 429 without Retry-After when none was asked, and any other error status', async () => {
    const unavailable = asAnswer(await platformStream('echo-assistant', 'status=503; retry-after=30'));
    expectProblem(unavailable, 503, 'service_unavailable');
    expect(unavailable.headers.get('retry-after')).toBe('30');
    const bare = asAnswer(await platformStream('echo-assistant', 'status=429'));
    expectProblem(bare, 429, 'rate_limit_exceeded');
    expect(bare.headers.get('retry-after')).toBeNull();
    const teapot = expectProblem(asAnswer(await send('/api/agents/search', { fault: 'status=418', body: {} })), 418, 'sandbox_fault');
    expect(teapot.title).toBe("I'm a Teapot");
    const unauthorized = asAnswer(await send(SCHEMA, { fault: 'status=401' }));
    expectMetadataError(unauthorized, 401);
    expect(unauthorized.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('is answered whatever the token: the fault replaces the answer', async () => {
    expectProblem(asAnswer(await send('/api/agents/echo-assistant', { fault: 'status=500', token: 'unknown-token' })), 500, 'internal_error');
  });

  it('with delay-first, the error is held that long', async () => {
    const s = await send(SCHEMA, { fault: 'status=503; delay-first=700' });
    expect(s.status).toBe(503);
    expect(s.headAt).toBeGreaterThanOrEqual(650);
  });
});

describe('X-Sandbox-Fault: drop-after', () => {
  it('breaks a stream after N events, with no run.failed, on both APIs', async () => {
    for (const read of [() => platformStream('echo-assistant', 'drop-after=3'), () => legacyStream('echo-assistant', 'drop-after=3')]) {
      const s = await read();
      expect(s.status).toBe(200);
      expect(s.complete).toBe(false);
      const events = eventsIn(s.text);
      expect(events.map((e) => e.id)).toEqual(['1', '2', '3']);
      expect(events.every((e) => e.event === 'message')).toBe(true);
    }
  });

  it('breaks it before a failure event too, and at once with 0', async () => {
    const flaky = await platformStream('flaky-reporter', 'drop-after=3');
    expect(flaky.complete).toBe(false);
    expect(eventsIn(flaky.text).map((e) => e.event)).toEqual(['message', 'message', 'message']);
    const none = await platformStream('echo-assistant', 'drop-after=0');
    expect(none.status).toBe(200);
    expect(none.complete).toBe(false);
    expect(eventsIn(none.text)).toEqual([]);
  });

  it('a run of exactly N events is broken at its end, one of fewer ends as usual; the run log says which', async () => {
    const n = eventsIn((await platformStream('echo-assistant')).text).length;
    const exactly = await platformStream('echo-assistant', `drop-after=${n}`);
    expect(exactly.complete).toBe(false);
    expect(eventsIn(exactly.text)).toHaveLength(n);
    await expect.poll(() => ended.find((r) => r.requestId === exactly.headers['x-request-id'])?.outcome).toBe('dropped');
    const more = await platformStream('echo-assistant', `drop-after=${n + 1}`);
    expect(more.complete).toBe(true);
    expect(eventsIn(more.text)).toHaveLength(n);
    await expect.poll(() => ended.find((r) => r.requestId === more.headers['x-request-id'])?.outcome).toBe('completed');
  });

  it('does nothing to a JSON answer', async () => {
    const s = await send('/api/agents/echo-assistant/runs', { fault: 'drop-after=1', body: { stream: false, messages: USER_HI } });
    expect(s.status).toBe(200);
    expect(s.complete).toBe(true);
    expect((JSON.parse(s.text) as { run: { status: string } }).run.status).toBe('success');
  });
});

describe('X-Sandbox-Fault: stall-after', () => {
  it('stops sending after N events, keep-alives included, and keeps the connection open', async () => {
    // The client leaves after 1.5 s: the answer was still open (not complete) and silent.
    const open = await send('/api/agents/echo-assistant/runs', { fault: 'stall-after=2', body: { stream: true, messages: USER_HI }, stopAfterMs: 1_500 });
    expect(open.status).toBe(200);
    expect(open.complete).toBe(false);
    expect(eventsIn(open.text).map((e) => e.id)).toEqual(['1', '2']);
    const lastEvent = open.chunks.findLast((c) => c.text.includes('event: message'))!;
    // Nothing at all after the second event: no keep-alive, though one is due every 150 ms.
    expect(open.chunks.filter((c) => c.at > lastEvent.at)).toEqual([]);
  });
});

describe('X-Sandbox-Fault: delay-first', () => {
  it('holds the first event, with keep-alives meanwhile; the rest follow as usual', async () => {
    const s = await platformStream('echo-assistant', 'delay-first=1500');
    expect(s.complete).toBe(true);
    const first = s.chunks.find((c) => c.text.includes('event: message'))!;
    expect(first.at).toBeGreaterThanOrEqual(1_300);
    const before = s.chunks.filter((c) => c.at < first.at).map((c) => c.text).join('');
    expect(commentsIn(before).length).toBeGreaterThanOrEqual(1);
    expect(eventsIn(s.text).length).toBeGreaterThan(5);
  });

  it('holds a JSON answer that long', async () => {
    const s = await send(SCHEMA, { fault: 'delay-first=800' });
    expect(s.status).toBe(200);
    expect(s.headAt).toBeGreaterThanOrEqual(750);
    expect(JSON.parse(s.text)).toHaveProperty('metadataKeys');
  });
});

describe('X-Sandbox-Fault: slow-bytes', () => {
  it('sends a stream at N bytes a second, every byte intact', async () => {
    const plain = await platformStream('echo-assistant');
    const bytes = Buffer.byteLength(plain.text);
    const rate = Math.ceil(bytes / 1.5);
    const slow = await platformStream('echo-assistant', `slow-bytes=${rate}`);
    expect(slow.complete).toBe(true);
    const tookMs = slow.chunks.at(-1)!.at;
    // About 1.5 s at that rate; a loaded machine is only ever slower.
    expect(tookMs).toBeGreaterThanOrEqual(1_000);
    expect(eventsIn(slow.text).map((e) => e.data)).toEqual(eventsIn(plain.text).map((e) => e.data));
    // Many small pieces, never a whole burst at once.
    expect(Math.max(...slow.chunks.map((c) => Buffer.byteLength(c.text)))).toBeLessThanOrEqual(rate);
  });

  it('sends a JSON answer slowly too', async () => {
    const plain = await send(SCHEMA);
    const slow = await send(SCHEMA, { fault: 'slow-bytes=100' });
    expect(slow.status).toBe(200);
    expect(slow.text).toBe(plain.text);
    // 200-odd bytes at 100 a second.
    expect(slow.chunks.at(-1)!.at).toBeGreaterThanOrEqual(Buffer.byteLength(plain.text) * 10 - 1_200);
  });

  it('combines with drop-after: the events before the break arrive slowly', async () => {
    const s = await platformStream('echo-assistant', 'slow-bytes=400; drop-after=2');
    expect(s.complete).toBe(false);
    expect(eventsIn(s.text).map((e) => e.id)).toEqual(['1', '2']);
    expect(s.chunks.at(-1)!.at).toBeGreaterThanOrEqual(200);
  });
});
