/**
 * The one retry and pacing policy, against a real HTTP server that refuses as a service does:
 * a 429 or 503 (with or without Retry-After) is waited out and sent again, holding every request
 * of the connection meanwhile; no answer is sent again only where that is safe; the budget holds.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { apiRequest, ApiError } from '../lib/api-client';
import { Pacer, PacingAborted } from './pacing';

interface Seen {
  at: number;
  path: string;
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server answering each request by `answer` (status and headers), noting when each came. */
async function serve(answer: (req: IncomingMessage, n: number) => { status: number; headers?: Record<string, string> }): Promise<{ baseUrl: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    seen.push({ at: Date.now(), path: req.url ?? '' });
    const a = answer(req, seen.length);
    res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
    res.end(JSON.stringify(a.status < 300 ? { ok: true } : { error: 'no', message: `status ${a.status}` }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

const get = (baseUrl: string, path: string) => () => apiRequest(({ baseUrl, token: 't' }) as never, path);

describe('Pacer', () => {
  it('waits out a 429’s Retry-After, holding every request of the connection, then sends each again', async () => {
    const { baseUrl, seen } = await serve((_req, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
    const pacer = new Pacer();
    const first = pacer.send(get(baseUrl, '/a'), { network: true });
    // The second request starts once the first was refused: it too waits the service's second.
    while (pacer.retries === 0) await new Promise((r) => setTimeout(r, 5));
    const second = pacer.send(get(baseUrl, '/b'), { network: true });
    await Promise.all([first, second]);
    const refusedAt = seen[0]!.at;
    const after = seen.slice(1);
    expect(after.map((s) => s.path).sort()).toEqual(['/a', '/b']);
    for (const s of after) expect(s.at - refusedAt).toBeGreaterThanOrEqual(950);
    expect(pacer.retries).toBe(1);
  });

  it('backs off a 503 without Retry-After, each wait longer than the last at most, and gives up after its tries with the refusal', async () => {
    const { baseUrl, seen } = await serve(() => ({ status: 503 }));
    // random() = 1: every wait is the ceiling, 20, 40, 80 ms.
    const pacer = new Pacer({ baseDelayMs: 20, maxAttempts: 4, random: () => 0.999 });
    const err = await pacer.send(get(baseUrl, '/x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(503);
    expect(seen).toHaveLength(4);
    const gaps = seen.slice(1).map((s, i) => s.at - seen[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(15);
    expect(gaps[2]).toBeGreaterThanOrEqual(70);
  });

  it('a Retry-After of 0 on every try is backed off like no Retry-After: a looping service gets no burst of tries', async () => {
    const { baseUrl, seen } = await serve(() => ({ status: 503, headers: { 'retry-after': '0' } }));
    const pacer = new Pacer({ baseDelayMs: 20, maxAttempts: 4, random: () => 0.999 });
    await pacer.send(get(baseUrl, '/x')).catch(() => undefined);
    expect(seen).toHaveLength(4);
    const gaps = seen.slice(1).map((s, i) => s.at - seen[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(15);
    expect(gaps[2]).toBeGreaterThanOrEqual(70);
  });

  it('never sends again what got no answer unless asked (a run’s creation), and does when asked (a read)', async () => {
    const { baseUrl } = await serve(() => ({ status: 200 }));
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    let tries = 0;
    const attempt = () => {
      tries++;
      return get(baseUrl, '/gone')();
    };
    const once = await new Pacer({ baseDelayMs: 1 }).send(attempt, { network: false }).catch((e: unknown) => e);
    expect((once as ApiError).kind).toBe('network');
    expect(tries).toBe(1);
    tries = 0;
    await new Pacer({ baseDelayMs: 1, maxAttempts: 3 }).send(attempt, { network: true }).catch((e: unknown) => e);
    expect(tries).toBe(3);
  });

  it('a refusal that is the answer (a run the user sent) is not sent again', async () => {
    const { baseUrl, seen } = await serve(() => ({ status: 429, headers: { 'retry-after': '1' } }));
    const err = await new Pacer().send(get(baseUrl, '/run'), { temporary: false }).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(429);
    expect(seen).toHaveLength(1);
  });

  it('a Retry-After longer than the longest wait leaves the refusal standing at once', async () => {
    const { baseUrl, seen } = await serve(() => ({ status: 429, headers: { 'retry-after': '3600' } }));
    const started = Date.now();
    const err = await new Pacer({ maxWaitMs: 60_000 }).send(get(baseUrl, '/x')).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(429);
    expect(seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('bounds the whole wait of one request by the longest wait, however many tries a hostile Retry-After asks for', async () => {
    // A service answering "503, Retry-After: 1" forever: each wait is short, but eight of them are not.
    const { baseUrl, seen } = await serve(() => ({ status: 503, headers: { 'retry-after': '1' } }));
    const started = Date.now();
    const err = await new Pacer({ maxWaitMs: 2_500 }).send(get(baseUrl, '/x'), { network: true }).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(503);
    // Tries at 0, 1 and 2 s; a third wait would end past the 2.5 s bound, so the refusal stands.
    expect(seen).toHaveLength(3);
    expect(Date.now() - started).toBeLessThan(4_500);
  });

  it('stops waiting at once when the caller’s signal aborts', async () => {
    const { baseUrl } = await serve(() => ({ status: 429, headers: { 'retry-after': '30' } }));
    const controller = new AbortController();
    const pacer = new Pacer();
    const p = pacer.send(get(baseUrl, '/x'), { signal: controller.signal }).catch((e: unknown) => e);
    // Aborted while it waits out the 429's Retry-After (once the refusal came back).
    while (pacer.retries === 0) await new Promise((r) => setTimeout(r, 5));
    const aborted = Date.now();
    controller.abort();
    expect(await p).toBeInstanceOf(PacingAborted);
    expect(Date.now() - aborted).toBeLessThan(1_000);
  });

  it('keeps at most maxInFlight requests of a connection open at once', async () => {
    let open = 0;
    let most = 0;
    const pacer = new Pacer({ maxInFlight: 2 });
    await Promise.all(
      Array.from({ length: 8 }, () =>
        pacer.send(async () => {
          open++;
          most = Math.max(most, open);
          await new Promise((r) => setTimeout(r, 30));
          open--;
        }),
      ),
    );
    expect(most).toBe(2);
  });

  it('keeps to maxInFlight when a refused request is sent again while another waited its turn', async () => {
    let open = 0;
    let most = 0;
    const { baseUrl } = await serve((_req, n) => (n === 1 ? { status: 503 } : { status: 200 }));
    const pacer = new Pacer({ maxInFlight: 1, baseDelayMs: 20, random: () => 0.999 });
    const counted = (path: string) => async () => {
      open++;
      most = Math.max(most, open);
      try {
        return await get(baseUrl, path)();
      } finally {
        // Held open a moment: two requests let out together would overlap here.
        await new Promise((r) => setTimeout(r, 50));
        open--;
      }
    };
    // The first is refused (503) while the second waits its turn; the first is then sent again.
    await Promise.all([pacer.send(counted('/a')), pacer.send(counted('/b'))]);
    expect(pacer.retries).toBe(1);
    expect(most).toBe(1);
  });

  it('sends at most maxRps requests a second', async () => {
    const sent: number[] = [];
    const pacer = new Pacer({ maxRps: 20 });
    await Promise.all(Array.from({ length: 10 }, () => pacer.send(async () => void sent.push(Date.now()))));
    // Ten requests at 20 a second: the last goes out 450 ms after the first at the soonest.
    expect(sent.at(-1)! - sent[0]!).toBeGreaterThanOrEqual(430);
  });
});
