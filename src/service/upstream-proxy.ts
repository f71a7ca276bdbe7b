import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Middleware } from './node.ts';

/**
 * The console's own server forwards API requests to production instances named at start
 * (`npm start -- --upstream https://acme-be.glean.com`), for instances that do not allow
 * the console's origin with CORS. It forwards only to those origins, never to a URL the
 * page chooses, only API paths, and streams answers chunk by chunk so SSE stays live.
 */

const FORWARDED_REQUEST_HEADERS = ['authorization', 'content-type', 'accept', 'accept-language', 'last-event-id'];
// Hop-by-hop headers, and the ones fetch invalidates by decoding the body.
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-encoding', 'content-length', 'set-cookie']);
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
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

export function upstreamProxy(upstreams: readonly string[]): Middleware {
  const byHost = new Map(upstreams.map((u) => [new URL(u).host.toLowerCase(), new URL(u).origin]));
  const list = [...byHost.values()];
  return (req, res, next) => {
    const url = req.url ?? '';
    if (url === UPSTREAMS_INFO_PATH && req.method === 'GET') return sendJson(res, 200, { upstreams: list });
    if (!url.startsWith(UPSTREAM_PREFIX)) return next();
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
    if (!API_PATH.test(path)) {
      return sendJson(res, 404, { error: 'not forwarded', message: 'Only API paths (/rest/… and /api/…) are forwarded to an upstream.' });
    }
    void forward(req, res, `${origin}${path}`);
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
  const out: Record<string, string> = {};
  upstream.headers.forEach((value, name) => {
    if (!DROPPED_RESPONSE_HEADERS.has(name)) out[name] = value;
  });
  res.writeHead(upstream.status, out);
  res.flushHeaders();
  if (!upstream.body) return void res.end();
  try {
    for await (const chunk of upstream.body as unknown as AsyncIterable<Uint8Array>) {
      // One write per chunk as it arrives: events are never held back.
      if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
    }
  } catch {
    // The client left or the upstream broke off; either way the answer ends here.
  } finally {
    res.end();
  }
}
