/**
 * Test support (Node): a real HTTP proxy in front of a real service that refuses chosen requests
 * as a flaky network or a busy instance would (a 503, a 429 with Retry-After, a connection cut
 * before any answer) and notes every request it saw and what it did. Only tests import it.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  at: number;
  method: string;
  path: string;
  /** What the proxy did: forwarded it, or refused it itself. */
  outcome: 'forwarded' | 'refused' | 'cut';
  status?: number;
}

export interface FaultRule {
  match(method: string, path: string): boolean;
  /** How many matching requests it refuses before letting them through (Infinity: all). */
  times: number;
  /** The refusal: a status (with Retry-After when given), or a cut connection (no answer at all). */
  refuse: { status: number; retryAfter?: number } | 'cut';
}

export interface FaultProxy {
  url: string;
  seen: ProxiedRequest[];
  close(): Promise<void>;
}

export interface ProxyOptions {
  /** A fixed-window rate limit of its own, as an instance's: `max` requests a `windowMs`, then 429 with Retry-After until the window ends. */
  rateLimit?: { max: number; windowMs: number };
}

export async function faultProxy(target: string, rules: FaultRule[] = [], options: ProxyOptions = {}): Promise<FaultProxy> {
  const seen: ProxiedRequest[] = [];
  const left = rules.map((r) => r.times);
  let window = { start: 0, count: 0 };
  const server: Server = createServer((req: IncomingMessage, res) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const at = Date.now();
    const limit = options.rateLimit;
    if (limit) {
      if (at - window.start >= limit.windowMs) window = { start: at, count: 0 };
      if (++window.count > limit.max) {
        const retryAfter = Math.max(1, Math.ceil((window.start + limit.windowMs - at) / 1000));
        seen.push({ at, method, path, outcome: 'refused', status: 429 });
        req.resume();
        req.on('end', () => {
          res.writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': String(retryAfter) });
          res.end(JSON.stringify({ type: 'about:blank', title: 'Too Many Requests', status: 429, detail: 'Slow down.', code: 'rate_limit_exceeded', request_id: 'proxy' }));
        });
        return;
      }
    }
    const i = rules.findIndex((r, n) => left[n]! > 0 && r.match(method, path));
    if (i >= 0) {
      left[i]!--;
      const refuse = rules[i]!.refuse;
      // The body is read whole first, so the client is not reset while it still sends.
      req.resume();
      req.on('end', () => {
        if (refuse === 'cut') {
          seen.push({ at, method, path, outcome: 'cut' });
          res.socket?.destroy();
          return;
        }
        seen.push({ at, method, path, outcome: 'refused', status: refuse.status });
        res.writeHead(refuse.status, {
          'content-type': 'application/problem+json',
          ...(refuse.retryAfter !== undefined && { 'retry-after': String(refuse.retryAfter) }),
        });
        res.end(JSON.stringify({ type: 'about:blank', title: 'Refused by the test proxy', status: refuse.status, detail: 'Not now.', code: refuse.status === 429 ? 'rate_limit_exceeded' : 'service_unavailable', request_id: 'proxy' }));
      });
      return;
    }
    const url = new URL(path, target);
    const upstream = httpRequest(url, { method, headers: { ...req.headers, host: url.host } }, (answer) => {
      seen.push({ at, method, path, outcome: 'forwarded', status: answer.statusCode ?? 0 });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
