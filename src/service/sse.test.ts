/**
 * SSE framing of the run streams, read as raw bytes over real HTTP and parsed with an
 * independent parser (eventsource-parser), plus the in-process fallback of `app.request`.
 */
import type { EventSourceMessage } from 'eventsource-parser';
import { describe, expect, test } from 'vitest';
import { createService } from './app.ts';
import { listen } from './node.ts';
import { listeningService } from './test-http.ts';
import type { RunEnded, RunStarted } from './runs.ts';
import { DEMO_TOKENS } from './seed.ts';
import { specErrors } from './test-support/spec.ts';
import { answerText, eventsOf, readSse, type SseItem } from './test-support/sse.ts';

const AGENTS = DEMO_TOKENS.find((t) => t.label === 'Demo: agents')!.token;

const USER_HI = [{ role: 'USER', content: [{ type: 'text', text: 'Hi there' }] }];
const ECHO_ANSWER = 'You asked: "Hi there". This is the reference service\'s echo assistant, answering one word per event.';
const HR_INPUT = { topic: 'parental leave', audience: '', region: 'emea', tone: '', maxPoints: '', includeLinks: '' };
const HR_ANSWER =
  'Policy summary on parental leave for region emea (audience: none; tone: none; at most none points; links: none). ' +
  '1. Check the handbook. 2. Ask your HR partner.';
const FLAKY_PARTIAL = 'Starting the quarterly report. Gathering sources now. Almost there';

type Flavour = 'platform' | 'legacy';

const server = listeningService();

function runRequest(flavour: Flavour, agentId: string, body: Record<string, unknown>): { path: string; init: RequestInit } {
  const headers = { authorization: `Bearer ${AGENTS}`, 'content-type': 'application/json', accept: 'text/event-stream' };
  return flavour === 'platform'
    ? { path: `/api/agents/${agentId}/runs`, init: { method: 'POST', headers, body: JSON.stringify({ ...body, stream: true }) } }
    : { path: '/rest/api/v1/agents/runs/stream', init: { method: 'POST', headers, body: JSON.stringify({ agent_id: agentId, ...body }) } };
}

function startStream(base: string, flavour: Flavour, agentId: string, body: Record<string, unknown>, signal?: AbortSignal) {
  const { path, init } = runRequest(flavour, agentId, body);
  return fetch(base + path, { ...init, signal });
}

function expectStreamHeaders(res: Response): void {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')?.split(';')[0]?.trim()).toBe('text/event-stream');
  expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
}

function expectIdsFromOne(events: readonly EventSourceMessage[]): void {
  expect(events.map((e) => e.id)).toEqual(events.map((_, i) => String(i + 1)));
}

/** Every message event's data is exactly one GLEAN_AI message with one text block. */
function expectMessageShape(events: readonly EventSourceMessage[]): void {
  for (const e of events.filter((x) => x.event === 'message')) {
    const data: unknown = JSON.parse(e.data);
    expect(data, `event ${e.id}`).toEqual({ messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text: expect.any(String) }] }] });
  }
}

describe.each(['platform', 'legacy'] as const)('%s run stream', (flavour) => {
  test('streams a messages agent as message events with ids from 1 that make up the answer', async () => {
    const res = await startStream(server.url, flavour, 'echo-assistant', { messages: USER_HI });
    expectStreamHeaders(res);
    const { items, ended } = await readSse(res.body);
    expect(ended).toBe(true);
    const events = eventsOf(items);
    expect(events).toHaveLength(ECHO_ANSWER.split(' ').length);
    expect(events.every((e) => e.event === 'message')).toBe(true);
    expectIdsFromOne(events);
    expectMessageShape(events);
    expect(answerText(events)).toBe(ECHO_ANSWER);
  });

  test('streams an input-form agent sent every form field, optional ones as ""', async () => {
    const res = await startStream(server.url, flavour, 'hr-policy-form', { input: HR_INPUT });
    expectStreamHeaders(res);
    const events = eventsOf((await readSse(res.body)).items);
    expect(events.length).toBe(HR_ANSWER.split(' ').length);
    expect(events.every((e) => e.event === 'message')).toBe(true);
    expectIdsFromOne(events);
    expectMessageShape(events);
    expect(answerText(events)).toBe(HR_ANSWER);
  });

  test('sends keep-alive comments between events of a slow agent', async () => {
    const abort = new AbortController();
    const res = await startStream(server.url, flavour, 'slow-storyteller', { messages: USER_HI }, abort.signal);
    expectStreamHeaders(res);
    const { items } = await readSse(res.body, (seen) => eventsOf(seen).length >= 3);
    abort.abort();
    const kinds = items.map((i) => (i.kind === 'event' ? `event ${i.event.id}` : `comment ${i.text}`));
    const first = kinds.indexOf('event 1');
    const second = kinds.indexOf('event 2');
    const third = kinds.indexOf('event 3');
    expect(first).toBeGreaterThanOrEqual(0);
    // 400 ms between fragments, a keep-alive after 250 ms idle: one comment in each gap.
    expect(kinds.slice(first + 1, second)).toContain('comment keep-alive');
    expect(kinds.slice(second + 1, third)).toContain('comment keep-alive');
    expect(kinds.filter((k) => k.startsWith('comment')).every((k) => k === 'comment keep-alive')).toBe(true);
  });

  test('sends keep-alive comments from the moment the stream opens, before an agent that starts slowly says anything', async () => {
    // An idle-timeout proxy in between cuts a stream that stays silent; the first fragment comes after 400 ms.
    const abort = new AbortController();
    const res = await startStream(server.url, flavour, 'slow-storyteller', { messages: USER_HI }, abort.signal);
    expectStreamHeaders(res);
    const { items } = await readSse(res.body, (seen) => eventsOf(seen).length >= 1);
    abort.abort();
    const first = items.findIndex((i) => i.kind === 'event');
    expect(items.slice(0, first)).toContainEqual({ kind: 'comment', text: 'keep-alive' });
  });
});

describe('a run that fails after the stream started', () => {
  test('ends a platform stream with exactly one run.failed event carrying a ProblemDetail, then closes', async () => {
    const res = await startStream(server.url, 'platform', 'flaky-reporter', { messages: USER_HI });
    expectStreamHeaders(res);
    const { items, raw, ended } = await readSse(res.body);
    expect(ended).toBe(true);
    const events = eventsOf(items);
    expect(events.map((e) => e.event)).toEqual(['message', 'message', 'message', 'run.failed']);
    expectIdsFromOne(events);
    expectMessageShape(events);
    expect(answerText(events)).toBe(FLAKY_PARTIAL);

    const failed = events[3]!;
    expect(items.at(-1)).toEqual({ kind: 'event', event: failed } satisfies SseItem);
    expect(raw.endsWith(`data: ${failed.data}\n\n`)).toBe(true);
    const data = JSON.parse(failed.data) as { error: Record<string, unknown> };
    expect(Object.keys(data)).toEqual(['error']);
    expect(data.error).toMatchObject({
      type: 'https://developers.glean.com/errors/spend-limit-exceeded',
      title: 'Spend Limit Exceeded',
      status: 403,
      detail: "You've reached the monthly limit set by your admin.",
      code: 'spend_limit_exceeded',
      request_id: res.headers.get('x-request-id'),
    });
    expect(specErrors('platform', 'ProblemDetail', data.error)).toBe('');
  });

  test('ends a legacy stream with a message event whose text carries the error', async () => {
    const res = await startStream(server.url, 'legacy', 'flaky-reporter', { messages: USER_HI });
    expectStreamHeaders(res);
    const { items, ended } = await readSse(res.body);
    expect(ended).toBe(true);
    const events = eventsOf(items);
    expect(events.map((e) => e.event)).toEqual(['message', 'message', 'message', 'message']);
    expectIdsFromOne(events);
    expectMessageShape(events);
    expect(answerText(events.slice(0, 3))).toBe(FLAKY_PARTIAL);
    const last = answerText(events.slice(3));
    expect(last).toContain('Spend Limit Exceeded');
    expect(last).toContain("You've reached the monthly limit set by your admin.");
    expect(last).toContain('spend_limit_exceeded');
    expect(items.at(-1)).toEqual({ kind: 'event', event: events[3] });
  });

  test('marks both legacy run endpoints deprecated, with a sunset date and the successor link', async () => {
    const stream = await startStream(server.url, 'legacy', 'flaky-reporter', { messages: USER_HI });
    await readSse(stream.body);
    const wait = await fetch(`${server.url}/rest/api/v1/agents/runs/wait`, {
      method: 'POST',
      headers: { authorization: `Bearer ${AGENTS}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: 'flaky-reporter', messages: USER_HI }),
    });
    expect(wait.status).toBe(200);
    expect(((await wait.json()) as { run: { status: string } }).run.status).toBe('error');
    for (const res of [stream, wait]) {
      expect(res.headers.get('deprecation')).toBe('@1787616000');
      expect(res.headers.get('sunset')).toBe('Thu, 15 Apr 2027 00:00:00 GMT');
      expect(res.headers.get('link')).toBe('</api/agents/flaky-reporter/runs>; rel="successor-version"');
    }
    const platform = await startStream(server.url, 'platform', 'echo-assistant', { messages: USER_HI });
    await readSse(platform.body);
    expect(platform.headers.get('deprecation')).toBeNull();
    expect(platform.headers.get('sunset')).toBeNull();
  });
});

describe('a client that disconnects', () => {
  test.each(['platform', 'legacy'] as const)('stops the %s run within a second of the disconnect', async (flavour) => {
    const started: RunStarted[] = [];
    let resolveEnded!: (run: RunEnded) => void;
    const ended = new Promise<RunEnded>((resolve) => {
      resolveEnded = resolve;
    });
    const watched = createService({
      memory: true,
      rateLimitPerMinute: 0,
      runObserver: { started: (run) => started.push(run), ended: (run) => resolveEnded(run) },
    });
    const watchedServer = await listen(watched, 0);
    try {
      const total = watched.catalog.get('slow-storyteller')!.behaviour.text!.split(' ').length;
      const abort = new AbortController();
      const res = await startStream(watchedServer.url, flavour, 'slow-storyteller', { messages: USER_HI }, abort.signal);
      expectStreamHeaders(res);
      const { items } = await readSse(res.body, (seen) => eventsOf(seen).length >= 2);
      expect(eventsOf(items)).toHaveLength(2);
      expect(started).toEqual([{ requestId: expect.stringMatching(/^req_/), flavour, agentId: 'slow-storyteller', mode: 'stream' }]);

      abort.abort();
      const closedAt = Date.now();
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 1000));
      const result = await Promise.race([ended, timeout]);
      expect(result, 'ended was not called within 1 s of the disconnect').not.toBe('timeout');
      const run = result as RunEnded;
      expect(Date.now() - closedAt).toBeLessThan(1000);
      expect(run).toMatchObject({ flavour, agentId: 'slow-storyteller', mode: 'stream', outcome: 'client-closed' });
      // Two events were read; at most the one in flight may have been written after them.
      expect(run.events).toBeGreaterThanOrEqual(2);
      expect(run.events).toBeLessThanOrEqual(3);
      expect(total).toBeGreaterThan(40);
    } finally {
      await watchedServer.close();
      watched.close();
    }
  });
});

describe('a high-volume stream', () => {
  test('delivers all 20000 events of firehose in order, none lost', async () => {
    const res = await startStream(server.url, 'platform', 'firehose', { input: { count: 20000 } });
    expectStreamHeaders(res);
    const { items, ended } = await readSse(res.body);
    expect(ended).toBe(true);
    const events = eventsOf(items);
    expect(events).toHaveLength(20000);
    const wrong = events.findIndex((e, i) => {
      if (e.id !== String(i + 1) || e.event !== 'message') return true;
      const data = JSON.parse(e.data) as { messages: { role: string; content: { type: string; text: string }[] }[] };
      return data.messages.length !== 1 || data.messages[0]!.role !== 'GLEAN_AI' || data.messages[0]!.content[0]!.text !== `token ${i + 1} `;
    });
    expect(wrong, `first wrong event: ${JSON.stringify(events[wrong])}`).toBe(-1);
  });
});

describe('the in-process fallback without Node bindings', () => {
  test('frames a platform stream from app.request exactly as over HTTP', async () => {
    const { path, init } = runRequest('platform', 'echo-assistant', { messages: USER_HI });
    const inProcess = await server.service.app.request(path, init);
    expectStreamHeaders(inProcess);
    const local = await readSse(inProcess.body);
    expect(local.ended).toBe(true);

    const overHttp = await readSse((await startStream(server.url, 'platform', 'echo-assistant', { messages: USER_HI })).body);
    expect(local.items).toEqual(overHttp.items);
    const events = eventsOf(local.items);
    expectIdsFromOne(events);
    expectMessageShape(events);
    expect(answerText(events)).toBe(ECHO_ANSWER);
  });

  test('ends a failing platform run from app.request with one run.failed event', async () => {
    const { path, init } = runRequest('platform', 'flaky-reporter', { messages: USER_HI });
    const res = await server.service.app.request(path, init);
    expectStreamHeaders(res);
    const { items, ended } = await readSse(res.body);
    expect(ended).toBe(true);
    const events = eventsOf(items);
    expect(events.map((e) => e.event)).toEqual(['message', 'message', 'message', 'run.failed']);
    expectIdsFromOne(events);
    expect(items.at(-1)).toEqual({ kind: 'event', event: events[3] });
    const { error } = JSON.parse(events[3]!.data) as { error: { code: string } };
    expect(error.code).toBe('spend_limit_exceeded');
    expect(specErrors('platform', 'ProblemDetail', error)).toBe('');
  });
});
