/**
 * A suite never fails a case for its own reasons: against a real reference service (behind a
 * real proxy that refuses as a busy instance does), decisions refused for a moment are sent
 * again, the service's rate limit and Retry-After are kept to on every request, and a durable
 * case past its deadline leaves nothing running at the service.
 */
import { afterEach, expect, it } from 'vitest';
import { listen } from '../../service/node';
import { freshService, TOKENS } from '../../service/test-http';
import { faultProxy, type FaultProxy } from '../../test-support/fault-proxy';
import { nodeEventReader } from '../../lib/node-event-reader';
import { runSuite, type RunnerEnv } from './runner';
import { itemsOf, type SuiteCase } from './suite';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function service(options: Parameters<typeof freshService>[0] = { memory: true, rateLimitPerMinute: 0 }) {
  const s = await listen(freshService(options), 0);
  closers.push(() => s.close());
  return s;
}

async function proxied(target: string, rules: Parameters<typeof faultProxy>[1] = [], options: Parameters<typeof faultProxy>[2] = {}): Promise<FaultProxy> {
  const p = await faultProxy(target, rules, options);
  closers.push(() => p.close());
  return p;
}

const envOf = (baseUrl: string): RunnerEnv => ({
  connection: { baseUrl, token: TOKENS.agents, problem: undefined },
  target: { profileId: 'cli', profileLabel: 'test', mode: 'direct', target: baseUrl, baseUrl, fingerprint: 'cli' },
  reader: nodeEventReader,
});

const tripCase = (id: string, patch: Partial<SuiteCase> = {}): SuiteCase => ({
  id,
  name: id,
  agent: { id: 'trip-planner' },
  api: 'platform',
  mode: 'durable',
  messages: [{ role: 'USER', content: [{ type: 'text', text: 'Plan Berlin' }] }],
  policy: { kind: 'approve-all' },
  assertions: [{ kind: 'outcome', expect: 'success' }],
  ...patch,
});

const isResponses = (method: string, path: string) => method === 'POST' && path.endsWith('/responses');

it('decisions refused for a moment (503, then no answer at all) are sent again, and the case passes', async () => {
  const s = await service();
  const proxy = await proxied(s.url, [{ match: isResponses, times: 1, refuse: { status: 503 } }, { match: isResponses, times: 1, refuse: 'cut' }]);
  const [result] = await runSuite(itemsOf([tripCase('flaky-decisions')]), envOf(proxy.url));
  expect(result!.verdict).toBe('passed');
  expect(result!.entry.status).toBe('SUCCEEDED');
  const decisions = proxy.seen.filter((r) => isResponses(r.method, r.path));
  expect(decisions.map((r) => r.outcome)).toEqual(['refused', 'cut', 'forwarded']);
}, 60_000);

it('keeps to an instance’s rate limit: every case passes, and after a 429 nothing is sent until its Retry-After has passed', async () => {
  // 6 requests a second: eight durable cases of about five requests each, four at once, cannot fit in one window.
  const s = await service({ memory: true, rateLimitPerMinute: 0, maxDurableRunsPerToken: 0 });
  const proxy = await proxied(s.url, [], { rateLimit: { max: 6, windowMs: 1_000 } });
  const cases = Array.from({ length: 8 }, (_, i) => tripCase(`trip-${i}`));
  const results = await runSuite(itemsOf(cases), envOf(proxy.url), { concurrency: 4 });
  expect(results.map((r) => `${r.name} ${r.verdict}`)).toEqual(cases.map((c) => `${c.name} passed`));
  const refused = proxy.seen.filter((r) => r.status === 429);
  expect(refused.length).toBeGreaterThan(0);
  // Each 429 said to wait until its window ends: no request of the suite went out in that time.
  // Seen where they arrive: one sent before the 429 came back may arrive after it, late by up
  // to 97 ms on a loaded machine; unpaced, the others would fill the window.
  for (const r of refused) {
    const during = proxy.seen.filter((o) => o.at > r.at + 200 && o.at < r.at + 900);
    expect(during, `requests sent within the Retry-After of the 429 at ${r.at}`).toEqual([]);
  }
}, 180_000);

it('a durable case past its deadline is cancelled at the service, so it holds no durable slot', async () => {
  const s = await service({ memory: true, rateLimitPerMinute: 0, maxDurableRunsPerToken: 1 });
  // No policy decision is ever accepted: the run waits for approval past the case's deadline.
  const proxy = await proxied(s.url, [{ match: isResponses, times: Infinity, refuse: { status: 409 } }]);
  const [result] = await runSuite(itemsOf([tripCase('stuck')]), { ...envOf(proxy.url), caseDeadlineMs: 1_500 });
  expect(result!.verdict).toBe('failed');
  expect(result!.entry.problem).toMatch(/deadline \(1,500 ms\) passed before its run ended: the suite stopped following it and asked the service to cancel it/);
  expect(proxy.seen.some((r) => r.method === 'POST' && r.path.endsWith('/cancellations'))).toBe(true);
  // The token's one durable slot is free again: a new durable run is accepted.
  const [next] = await runSuite(itemsOf([tripCase('after')]), envOf(s.url));
  expect(next!.verdict).toBe('passed');
}, 60_000);

it('a suite stopped while the service asks it to wait a minute ends in seconds, not after the wait (Ctrl+C, a CI’s SIGTERM)', async () => {
  const s = await service();
  const isRead = (method: string, path: string) => method === 'GET' && /\/runs\/[^/]+$/.test(path);
  const isCancel = (method: string, path: string) => method === 'POST' && path.endsWith('/cancellations');
  const proxy = await proxied(s.url, [
    { match: isRead, times: Infinity, refuse: { status: 429, retryAfter: 60 } },
    { match: isCancel, times: Infinity, refuse: { status: 429, retryAfter: 60 } },
  ]);
  const stop = new AbortController();
  const running = runSuite(itemsOf([tripCase('held')]), envOf(proxy.url), { signal: stop.signal });
  await expect.poll(() => proxy.seen.some((r) => r.status === 429), { timeout: 20_000 }).toBe(true);
  const stoppedAt = Date.now();
  stop.abort('SIGTERM');
  const late = Symbol('late');
  const ended = await Promise.race([running, new Promise<typeof late>((r) => setTimeout(() => r(late), 20_000))]);
  expect(ended, 'the suite still waited 20 s after it was stopped').not.toBe(late);
  expect((ended as Awaited<typeof running>)[0]!.verdict).toBe('stopped');
  expect(Date.now() - stoppedAt).toBeLessThan(20_000);
}, 60_000);

it('a stream case stopped while it waits out a 429 before its POST is stopped, not failed as refused', async () => {
  const s = await service();
  const isPost = (method: string, path: string) => method === 'POST' && path.endsWith('/runs');
  const proxy = await proxied(s.url, [{ match: isPost, times: Infinity, refuse: { status: 429, retryAfter: 30 } }]);
  const stop = new AbortController();
  const echo = tripCase('echo', { agent: { id: 'echo-assistant' }, mode: 'stream', policy: undefined });
  const running = runSuite(itemsOf([echo]), envOf(proxy.url), { signal: stop.signal });
  await expect.poll(() => proxy.seen.some((r) => r.status === 429), { timeout: 20_000 }).toBe(true);
  stop.abort('SIGINT');
  const [result] = await running;
  expect(result!.entry.status).toBe('stopped');
  expect(result!.verdict).toBe('stopped');
}, 60_000);

it('the agent’s schemas a suite reads once are read again after a 429, as every request of the suite is, not given up for the whole run', async () => {
  const s = await service();
  const isSchemas = (method: string, path: string) => method === 'GET' && path.includes('/schemas');
  const proxy = await proxied(s.url, [{ match: isSchemas, times: 1, refuse: { status: 429, retryAfter: 1 } }]);
  const hr: SuiteCase = {
    id: 'hr',
    name: 'Leave policy',
    agent: { id: 'hr-policy-form' },
    api: 'platform',
    mode: 'wait',
    input: { topic: 'Leave', region: 'emea', maxPoints: 3, includeLinks: false, audience: '', tone: '' },
    rows: [{ topic: 'Travel', maxPoints: '5' }],
    assertions: [{ kind: 'outcome', expect: 'success' }],
  };
  const [result] = await runSuite(itemsOf([hr]), envOf(proxy.url));
  expect(proxy.seen.filter((r) => isSchemas(r.method, r.path)).map((r) => r.status)).toEqual([429, 200]);
  expect(result!.notes ?? []).not.toContainEqual(expect.stringMatching(/input schema could not be read/));
  expect(result!.verdict).toBe('passed');
}, 60_000);

it('nothing is sent for a stopped suite once it has ended: a cancellation given up on is not followed by a read', async () => {
  const s = await service();
  const isRead = (method: string, path: string) => method === 'GET' && /\/runs\/[^/]+$/.test(path);
  const isCancel = (method: string, path: string) => method === 'POST' && path.endsWith('/cancellations');
  // Every read and cancellation is refused for 3 s at a time: the stopped suite's cancellation waits, is refused again, and is given up on at 5 s.
  const proxy = await proxied(s.url, [
    { match: isRead, times: Infinity, refuse: { status: 429, retryAfter: 3 } },
    { match: isCancel, times: Infinity, refuse: { status: 429, retryAfter: 3 } },
  ]);
  const stop = new AbortController();
  const running = runSuite(itemsOf([tripCase('held')]), envOf(proxy.url), { signal: stop.signal });
  await expect.poll(() => proxy.seen.some((r) => r.status === 429), { timeout: 20_000 }).toBe(true);
  stop.abort('SIGINT');
  await running;
  const sent = proxy.seen.length;
  await new Promise((r) => setTimeout(r, 4_000));
  expect(proxy.seen.slice(sent).map((r) => `${r.method} ${r.path}`)).toEqual([]);
}, 60_000);

it('a durable case’s POST is not sent again after a 429 whose wait would pass the case’s deadline: the refusal is its answer', async () => {
  const s = await service();
  const isPost = (method: string, path: string) => method === 'POST' && path.endsWith('/runs');
  const proxy = await proxied(s.url, [{ match: isPost, times: Infinity, refuse: { status: 429, retryAfter: 30 } }]);
  const late = Symbol('late');
  const running = runSuite(itemsOf([tripCase('refused', { deadlineMs: 2_000 })]), envOf(proxy.url));
  const ended = await Promise.race([running, new Promise<typeof late>((r) => setTimeout(() => r(late), 20_000))]);
  expect(ended, 'the case was still waiting to be sent 20 s after its 2 s deadline').not.toBe(late);
  const [result] = ended as Awaited<typeof running>;
  // Its 30 s wait would pass the deadline: the service's refusal is the case's answer, and nothing was sent again.
  expect(result!.verdict).toBe('failed');
  expect(result!.entry.status).toBe('refused');
  expect(result!.entry.refusal?.status).toBe(429);
  expect(proxy.seen.filter((r) => isPost(r.method, r.path))).toHaveLength(1);
}, 60_000);
