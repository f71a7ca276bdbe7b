/**
 * A run's session against a real reference service behind a real proxy that refuses as a busy
 * instance does: following a durable run keeps to what the service asked.
 */
import { afterEach, expect, it } from 'vitest';
import { listen } from '../service/node';
import { freshService, TOKENS } from '../service/test-http';
import { faultProxy } from '../test-support/fault-proxy';
import { Pacer } from './pacing';
import { newRunRecord, RunSession } from './session';
import { runRequest } from './run-request';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const isRead = (method: string, path: string) => method === 'GET' && /\/runs\/[^/]+$/.test(path);

/** A durable run of long-runner started through a proxy that refuses its reads `times` times with a ten-minute Retry-After (past the two minutes the pacer waits). */
async function refusedFor(times: number, refusing: () => boolean = () => true) {
  const s = await listen(freshService({ memory: true, rateLimitPerMinute: 0 }), 0);
  closers.push(() => s.close());
  const proxy = await faultProxy(s.url, [{ match: (method, path) => refusing() && isRead(method, path), times, refuse: { status: 429, retryAfter: 600 } }]);
  closers.push(() => proxy.close());
  const request = runRequest('platform', 'durable', { id: 'long-runner' }, { messages: [{ role: 'USER', content: [{ type: 'text', text: 'hi' }] }] });
  const target = { profileId: 'p', profileLabel: 'test', mode: 'direct' as const, target: proxy.url, baseUrl: proxy.url, fingerprint: 'f' };
  const session = new RunSession(newRunRecord(request, target), { connection: { baseUrl: proxy.url, token: TOKENS.agents, problem: undefined }, pacer: new Pacer() });
  await session.send(new AbortController().signal);
  expect(session.record.runId).toBeDefined();
  closers.push(async () => {
    await fetch(`${s.url}/api/agents/long-runner/cancellations`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS.agents}`, 'content-type': 'application/json' }, body: JSON.stringify({ run_id: session.record.runId }) });
  });
  return { session, proxy };
}

const reads = (proxy: { seen: { method: string; path: string }[] }) => proxy.seen.filter((r) => isRead(r.method, r.path)).length;

it('a read refused with a Retry-After longer than the pacer waits is not asked again before it has passed', async () => {
  const { session, proxy } = await refusedFor(Infinity);
  const following = new AbortController();
  const followed = session.follow({ signal: following.signal, readFirst: true });
  // Long enough for the console's own pace (a read a second at first) to ask four times more.
  await new Promise((r) => setTimeout(r, 4_500));
  following.abort();
  expect(await followed).toBe('stopped');
  expect(session.record.state.readError?.status).toBe(429);
  expect(reads(proxy)).toBe(1);
}, 30_000);

it('once a read (Read again) succeeds after such a refusal, following goes back to its own pace', async () => {
  let refusing = false;
  const { session, proxy } = await refusedFor(1, () => refusing);
  // The run is running, as read: a later read that finds it so changes nothing of its state.
  await expect.poll(async () => (await session.read(), session.record.state.status), { timeout: 10_000 }).toBe('RUNNING');
  const before = reads(proxy);
  refusing = true;
  const following = new AbortController();
  const followed = session.follow({ signal: following.signal, readFirst: true });
  await expect.poll(() => session.record.state.readError?.status).toBe(429);
  await session.read();
  expect(session.record.state.readError).toBeUndefined();
  expect(session.record.state.status).toBe('RUNNING');
  // The refusal no longer stands: the loop reads again within its pace (a second), not ten minutes on.
  await expect.poll(() => reads(proxy) - before, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
  following.abort();
  expect(await followed).toBe('stopped');
}, 30_000);
