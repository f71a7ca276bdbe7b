import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Middleware } from './node.ts';
import { isAllowedHost, unsafePathProblem } from './request-guard.ts';

/**
 * The console's own server forwards API requests to production instances named at start
 * (`npm start -- --upstream https://acme-be.glean.com`), for instances that do not allow
 * the console's origin with CORS. It forwards only to those origins, never to a URL the
 * page chooses, only API paths, and streams answers chunk by chunk so SSE stays live.
 */

const FORWARDED_REQUEST_HEADERS = ['authorization', 'content-type', 'accept', 'accept-language', 'last-event-id'];

/**
 * What an upstream may say on the console's origin, where tokens live. Everything else is
 * dropped: its CORS headers would widen this origin's policy, Set-Cookie would plant cookies
 * here, Location would navigate, and WWW-Authenticate: Basic would pop a login dialog.
 */
const FORWARDED_RESPONSE_HEADERS = new Set([
  'content-type',
  'cache-control',
  'retry-after',
  'deprecation',
  'sunset',
  'link',
  'x-request-id',
  'request-id',
  'x-correlation-id',
  'ratelimit',
  'ratelimit-policy',
]);
const FORWARDED_RESPONSE_HEADER_PREFIXES = ['x-ratelimit-', 'ratelimit-'];

/** Content types the console reads; anything else (HTML, scripts, SVG) never reaches its origin. */
const FORWARDED_CONTENT_TYPES = new Set(['application/json', 'application/problem+json', 'text/event-stream', 'text/plain']);

const API_PATH = /^\/(rest|api)\//;

export const UPSTREAM_PREFIX = '/upstream/';
export const UPSTREAMS_INFO_PATH = '/console/upstreams';

/** Checks `--upstream` values: an http(s) origin, nothing after it. */
export function upstreamProblem(value: string): string | null {
  if (!URL.canParse(value)) return `--upstream "${value}" is not a URL; give an origin such as https://acme-be.glean.com`;
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `--upstream "${value}" must be http or https.`;
  if (url.origin !== value.replace(/\/+$/, '')) return `--upstream "${value}" must be an origin only (no path, query or credentials).`;
  return null;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(JSON.stringify(body));
}

/**
 * `allowedHosts`: Host names besides loopback ones that may use the proxy (`--allowed-host`),
 * as for the service: a rebound foreign name must not reach the instances behind it.
 */
export function upstreamProxy(upstreams: readonly string[], allowedHosts: readonly string[] = []): Middleware {
  const byHost = new Map(upstreams.map((u) => [new URL(u).host.toLowerCase(), new URL(u).origin]));
  const list = [...byHost.values()];
  return (req, res, next) => {
    const url = req.url ?? '';
    const mine = url === UPSTREAMS_INFO_PATH || url.startsWith(UPSTREAM_PREFIX);
    if (!mine) return next();
    if (!isAllowedHost(req.headers.host, allowedHosts)) {
      return sendJson(res, 403, {
        error: 'host not allowed',
        message: `This console's server answers only on loopback names or those given with --allowed-host; not "${req.headers.host ?? ''}".`,
      });
    }
    if (url === UPSTREAMS_INFO_PATH) {
      return req.method === 'GET' ? sendJson(res, 200, { upstreams: list }) : sendJson(res, 405, { error: 'method not allowed', message: 'Use GET.' });
    }
    const rest = url.slice(UPSTREAM_PREFIX.length);
    const slash = rest.indexOf('/');
    const host = (slash < 0 ? rest : rest.slice(0, slash)).toLowerCase();
    const path = slash < 0 ? '/' : rest.slice(slash);
    const origin = byHost.get(host);
    if (!origin) {
      return sendJson(res, 403, {
        error: 'upstream not allowed',
        message: list.length
          ? `This console's server forwards only to ${list.join(', ')}, the upstreams it was started with; "${host}" is not one of them.`
          : `This console's server was started without upstreams; start it with npm start -- --upstream <instance origin> to forward to "${host}".`,
      });
    }
    const unsafe = unsafePathProblem(path);
    if (unsafe) return sendJson(res, 400, { error: 'path not allowed', message: unsafe });
    // The URL the upstream will be asked for, as fetch will normalize it; the decision is taken on that.
    const target = new URL(`${origin}${path}`);
    if (target.origin !== origin || !API_PATH.test(target.pathname)) {
      return sendJson(res, 404, { error: 'not forwarded', message: 'Only API paths (/rest/… and /api/…) are forwarded to an upstream.' });
    }
    void forward(req, res, target.href);
  };
}

async function forward(req: IncomingMessage, res: ServerResponse, target: string): Promise<void> {
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const v = req.headers[name];
    if (typeof v === 'string') headers.set(name, v);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  let upstream: Response;
  try {
    upstream = await fetch(target, {
      method: req.method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
      // Required by Node's fetch for a streamed request body.
      ...(hasBody && { duplex: 'half' }),
      redirect: 'manual',
      signal: abort.signal,
    } as RequestInit);
  } catch (err) {
    if (!res.headersSent && !abort.signal.aborted) {
      sendJson(res, 502, { error: 'bad gateway', message: `The upstream ${new URL(target).origin} did not answer: ${(err as Error).message}` });
    }
    return;
  }
  const origin = new URL(target).origin;
  if (upstream.status >= 300 && upstream.status < 400) {
    void upstream.body?.cancel();
    return sendJson(res, 502, {
      error: 'bad gateway',
      message: `The upstream ${origin} answered ${upstream.status}, a redirect${upstream.headers.has('location') ? ` to ${upstream.headers.get('location')}` : ''}; the console's server does not follow redirects. Check the instance URL.`,
    });
  }
  const type = (upstream.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
  const reader = upstream.body?.getReader();
  let first: Awaited<ReturnType<NonNullable<typeof reader>['read']>> | undefined;
  if (!FORWARDED_CONTENT_TYPES.has(type)) {
    // No content type is acceptable only for an empty answer (a bare 200 or 204), which nothing can interpret.
    if (type === '' && reader) first = await reader.read().catch(() => undefined);
    if (type !== '' || (first !== undefined && !first.done)) {
      void reader?.cancel().catch(() => {});
      return sendJson(res, 502, {
        error: 'bad gateway',
        message: `The upstream ${origin} answered ${upstream.status} with ${type ? `content type ${type}` : 'no content type'}; only JSON, problem+json, event streams and plain text are passed on to the console.`,
      });
    }
  }
  const out: Record<string, string> = { 'x-content-type-options': 'nosniff' };
  upstream.headers.forEach((value, name) => {
    if (FORWARDED_RESPONSE_HEADERS.has(name) || FORWARDED_RESPONSE_HEADER_PREFIXES.some((p) => name.startsWith(p))) out[name] = value;
  });
  res.writeHead(upstream.status, out);
  res.flushHeaders();
  if (!reader) return void res.end();
  try {
    for (;;) {
      const { done, value } = first ?? (await reader.read());
      first = undefined;
      if (done) break;
      // One write per chunk as it arrives: events are never held back.
      // A client that leaves while the socket is full never drains: 'close' ends the wait too.
      if (!res.write(value)) await new Promise((r) => (res.once('drain', r), res.once('close', r)));
    }
  } catch {
    // The upstream broke off (or the client left). Ending normally would tell the browser the
    // answer was complete: a broken run would show as done. Destroying the socket makes it a
    // network error there too.
    res.destroy();
    return;
  }
  res.end();
}
