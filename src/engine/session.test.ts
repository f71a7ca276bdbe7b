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

it('a read refused with a Retry-After longer than the pacer waits is not asked again before it has passed', async () => {
  const s = await listen(freshService({ memory: true, rateLimitPerMinute: 0 }), 0);
  closers.push(() => s.close());
  // Reads are refused for ten minutes: past the longest wait the pacer honours (two minutes).
  const proxy = await faultProxy(s.url, [{ match: isRead, times: Infinity, refuse: { status: 429, retryAfter: 600 } }]);
  closers.push(() => proxy.close());
  const request = runRequest('platform', 'durable', { id: 'long-runner' }, { messages: [{ role: 'USER', content: [{ type: 'text', text: 'hi' }] }] });
  const target = { profileId: 'p', profileLabel: 'test', mode: 'direct' as const, target: proxy.url, baseUrl: proxy.url, fingerprint: 'f' };
  const session = new RunSession(newRunRecord(request, target), { connection: { baseUrl: proxy.url, token: TOKENS.agents, problem: undefined }, pacer: new Pacer() });
  await session.send(new AbortController().signal);
  expect(session.record.runId).toBeDefined();
  const following = new AbortController();
  const followed = session.follow({ signal: following.signal, readFirst: true });
  // Long enough for the console's own pace (a read a second at first) to ask four times more.
  await new Promise((r) => setTimeout(r, 4_500));
  following.abort();
  expect(await followed).toBe('stopped');
  expect(session.record.state.readError?.status).toBe(429);
  expect(proxy.seen.filter((r) => isRead(r.method, r.path)).length).toBe(1);
  await fetch(`${s.url}/api/agents/long-runner/cancellations`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS.agents}`, 'content-type': 'application/json' }, body: JSON.stringify({ run_id: session.record.runId }) });
}, 30_000);
