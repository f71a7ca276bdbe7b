import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough, Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { refuse, sendRefusal, type Refusal } from './families.ts';
import type { Middleware } from './middleware.ts';
import type { ExchangeRecording, Recorder } from './recorder.ts';
import { isAllowedHost, unsafePathProblem } from './request-guard.ts';

/**
 * The console's own server forwards API requests to production instances named at start
 * (`npm start -- --upstream https://acme-be.glean.com`), for instances that do not allow
 * the console's origin with CORS. It forwards only to those origins, never to a URL the
 * page chooses, only API paths, and streams answers chunk by chunk so SSE stays live.
 */

/**
 * The request headers an upstream gets; nothing else of the browser's request leaves this
 * machine. X-Sandbox-Fault, the reference service's own, is never among them: a production
 * instance is not asked for faults.
 */
const FORWARDED_REQUEST_HEADERS = ['authorization', 'content-type', 'accept', 'accept-language', 'last-event-id', 'if-none-match'];

/**
 * What an upstream may say on the console's origin, where tokens live. Everything else is
 * dropped: its CORS headers would widen this origin's policy, Set-Cookie would plant cookies
 * here, Location would navigate, and WWW-Authenticate: Basic would pop a login dialog.
 */
const FORWARDED_RESPONSE_HEADERS = new Set([
  'content-type',
  'cache-control',
  'etag',
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

/** What the console server's proxy is told at start. */
export interface UpstreamProxyOptions {
  /** Host names besides loopback ones that may use the proxy (`--allowed-host`). */
  allowedHosts?: readonly string[];
  /**
   * How long an upstream may send nothing (`--upstream-timeout-ms`): before its answer's
   * head, a 502; between two chunks of its body, the client's connection is broken.
   */
  timeoutMs?: number;
  /** Headers every answer of the console server carries (its page security headers). */
  headers?: Readonly<Record<string, string>>;
  /** `--record DIR`: every exchange forwarded is written there (recorder.ts). */
  recorder?: Recorder;
}

/** A wait-mode run sends nothing until it ends; five minutes leaves it room (reference choice). */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 5 * 60_000;

/** The proxy's refusals by kind; the console server's host check uses the first. */
export const REFUSALS = {
  hostNotAllowed: { status: 403, code: 'host_not_allowed', title: 'Host Not Allowed', error: 'host not allowed' },
  upstreamNotAllowed: { status: 403, code: 'upstream_not_allowed', title: 'Upstream Not Allowed', error: 'upstream not allowed' },
  pathNotAllowed: { status: 400, code: 'invalid_request', title: 'Invalid Request', error: 'path not allowed' },
  notForwarded: { status: 404, code: 'resource_not_found', title: 'Resource Not Found', error: 'not forwarded' },
  methodNotAllowed: { status: 405, code: 'method_not_allowed', title: 'Method Not Allowed', error: 'method not allowed' },
  badGateway: { status: 502, code: 'bad_gateway', title: 'Bad Gateway', error: 'bad gateway' },
} satisfies Record<string, Omit<Refusal, 'detail'>>;

/** The proxy's own refusals, in the family of the API path they were asked for (the part after `/upstream/<host>`). */
function refuseAs(req: IncomingMessage, res: ServerResponse, apiPath: string, kind: keyof typeof REFUSALS, detail: string, headers: Readonly<Record<string, string>>) {
  void refuse(req, res, apiPath, { ...REFUSALS[kind], detail }, headers);
}

/** Forwards `/upstream/<host>/<API path>` to the upstream of that host, if it was given at start. */
export function upstreamProxy(upstreams: readonly string[], options: UpstreamProxyOptions = {}): Middleware {
  const allowedHosts = options.allowedHosts ?? [];
  const timeoutMs = options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const headers = options.headers ?? {};
  const byHost = new Map(upstreams.map((u) => [new URL(u).host.toLowerCase(), new URL(u).origin]));
  const list = [...byHost.values()];
  return (req, res, next) => {
    const url = req.url ?? '';
    const mine = url === UPSTREAMS_INFO_PATH || url.startsWith(UPSTREAM_PREFIX);
    if (!mine) return next();
    const rest = url.startsWith(UPSTREAM_PREFIX) ? url.slice(UPSTREAM_PREFIX.length) : '';
    const slash = rest.indexOf('/');
    const host = (slash < 0 ? rest : rest.slice(0, slash)).toLowerCase();
    const path = slash < 0 ? '/' : rest.slice(slash);
    if (!isAllowedHost(req.headers.host, allowedHosts)) {
      return refuseAs(req, res, path, 'hostNotAllowed',
        `This console's server answers only on loopback names or those given with --allowed-host; not "${req.headers.host ?? ''}".`, headers);
    }
    if (url === UPSTREAMS_INFO_PATH) {
      if (req.method !== 'GET') return refuseAs(req, res, '/', 'methodNotAllowed', 'Use GET.', headers);
      const body = JSON.stringify({ upstreams: list });
      res.writeHead(200, { ...headers, 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
      return void res.end(body);
    }
    const origin = byHost.get(host);
    if (!origin) {
      return refuseAs(req, res, path, 'upstreamNotAllowed',
        list.length
          ? `This console's server forwards only to ${list.join(', ')}, the upstreams it was started with; "${host}" is not one of them.`
          : `This console's server was started without upstreams; start it with npm start -- --upstream <instance origin> to forward to "${host}".`,
        headers);
    }
    const unsafe = unsafePathProblem(path);
    if (unsafe) return refuseAs(req, res, path, 'pathNotAllowed', unsafe, headers);
    // The URL the upstream will be asked for, as fetch will normalize it; the decision is taken on that.
    const target = new URL(`${origin}${path}`);
    if (target.origin !== origin || !API_PATH.test(target.pathname)) {
      return refuseAs(req, res, path, 'notForwarded', 'Only API paths (/rest/… and /api/…) are forwarded to an upstream.', headers);
    }
    void forward(req, res, target.href, path, timeoutMs, headers, options.recorder?.begin(req, path, origin));
  };
}

/** A stream that hands on what passes through it, after showing each chunk to `see`. */
function tap(see: (chunk: Uint8Array) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      see(chunk);
      callback(null, chunk);
    },
  });
}

/**
 * The client's request body as the upstream gets it, through `via`. A body that breaks off
 * breaks the forwarded one too. But an upstream that answers before it took the whole body
 * (a 413 judged by Content-Length) ends the forwarded one, and that must not destroy the
 * client's request: that would reset its connection, and a client still sending would lose
 * the answer. The request is left as it is, for the answer to close its connection after
 * (linger.ts reads and drops the rest).
 */
function forwardedBody(req: IncomingMessage, via: Transform): Readable {
  req.pipe(via);
  req.once('error', (err) => via.destroy(err));
  req.once('close', () => {
    if (!req.complete) via.destroy(new Error('The request body broke off.'));
  });
  return via;
}

class UpstreamTimeout extends Error {}

type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;

/** The upstream's body as a Node stream, failing when the upstream sends nothing for `timeoutMs` while more is asked for. */
function bodyStream(reader: ReadableStreamDefaultReader<Uint8Array>, timeoutMs: number, first?: ReadResult): Readable {
  let pending = first;
  return new Readable({
    // Called only when the client's side wants more: a slow reader pauses the clock too.
    read() {
      const ready = pending;
      pending = undefined;
      let timer: NodeJS.Timeout | undefined;
      const next = ready
        ? Promise.resolve(ready)
        : Promise.race([
            reader.read(),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new UpstreamTimeout(`The upstream sent nothing for ${timeoutMs} ms.`)), timeoutMs);
            }),
          ]);
      next.then(
        ({ done, value }) => {
          clearTimeout(timer);
          this.push(done ? null : value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          this.destroy(err as Error);
        },
      );
    },
    destroy(err, callback) {
      reader.cancel(err ?? undefined).catch(() => {});
      callback(err);
    },
  });
}

async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  target: string,
  apiPath: string,
  timeoutMs: number,
  headers: Readonly<Record<string, string>>,
  recording?: ExchangeRecording,
): Promise<void> {
  const abort = new AbortController();
  const onClose = () => abort.abort();
  res.once('close', onClose);
  const origin = new URL(target).origin;
  // A body the upstream never took is still on the connection: the 502 closes it, or the
  // client's next request there would be read as the rest of that body and never answered.
  const badGateway = (detail: string) => sendRefusal(res, apiPath, { ...REFUSALS.badGateway, detail }, headers, !req.complete);
  const requestHeaders = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const v = req.headers[name];
    if (typeof v === 'string') requestHeaders.set(name, v);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const requestBody = hasBody ? forwardedBody(req, recording ? tap((chunk) => recording.requestChunk(chunk)) : new PassThrough()) : undefined;
  let timedOut = false;
  const headTimer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, timeoutMs);
  let upstream: Response;
  try {
    upstream = await fetch(target, {
      method: req.method,
      headers: requestHeaders,
      body: requestBody ? (Readable.toWeb(requestBody) as ReadableStream<Uint8Array>) : undefined,
      // Required by Node's fetch for a streamed request body.
      ...(hasBody && { duplex: 'half' }),
      redirect: 'manual',
      signal: abort.signal,
    } as RequestInit);
  } catch (err) {
    if (!res.headersSent && !res.destroyed) {
      badGateway(
        timedOut
          ? `The upstream ${origin} sent no answer within ${timeoutMs} ms (--upstream-timeout-ms).`
          : `The upstream ${origin} ${whyFetchFailed(err)}`,
      );
    }
    return;
  } finally {
    clearTimeout(headTimer);
  }
  // A status past 599 means nothing to a browser or to the console: the instance is broken.
  if (upstream.status > 599) {
    void upstream.body?.cancel();
    return badGateway(`The upstream ${origin} answered ${upstream.status}, which is not an HTTP status.`);
  }
  // 304 Not Modified is the answer to a revalidation (If-None-Match), not a redirect.
  if (upstream.status >= 300 && upstream.status < 400 && upstream.status !== 304) {
    void upstream.body?.cancel();
    return badGateway(
      `The upstream ${origin} answered ${upstream.status}, a redirect${upstream.headers.has('location') ? ` to ${upstream.headers.get('location')}` : ''}; the console's server does not follow redirects. Check the instance URL.`,
    );
  }
  const type = (upstream.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
  const reader = upstream.body?.getReader();
  let first: ReadResult | undefined;
  if (!FORWARDED_CONTENT_TYPES.has(type)) {
    // No content type is acceptable only for an empty answer (a bare 200 or 204), which nothing can interpret.
    if (type === '' && reader) {
      // The head came; the body must still come within the timeout, or the client waits forever.
      let silent = false;
      const bodyTimer = setTimeout(() => {
        silent = true;
        void reader.cancel().catch(() => {});
      }, timeoutMs);
      first = await reader.read().catch(() => undefined);
      clearTimeout(bodyTimer);
      if (silent) return badGateway(`The upstream ${origin} answered ${upstream.status} with no content type, then sent nothing within ${timeoutMs} ms (--upstream-timeout-ms).`);
    }
    if (type !== '' || (first !== undefined && !first.done)) {
      void reader?.cancel().catch(() => {});
      return badGateway(
        `The upstream ${origin} answered ${upstream.status} with ${type ? `content type ${type}` : 'no content type'}; only JSON, problem+json, event streams and plain text are passed on to the console.`,
      );
    }
  }
  const passed: Record<string, string> = {};
  upstream.headers.forEach((value, name) => {
    if (FORWARDED_RESPONSE_HEADERS.has(name) || FORWARDED_RESPONSE_HEADER_PREFIXES.some((p) => name.startsWith(p))) passed[name] = value;
  });
  // Answered before the client's body came in whole: the rest is not for the next request.
  if (hasBody && !req.complete) passed.connection = 'close';
  res.writeHead(upstream.status, { ...headers, 'x-content-type-options': 'nosniff', ...passed });
  res.flushHeaders();
  recording?.responseHead(upstream.status, passed);
  if (!reader) {
    res.end();
    return recording?.finish('complete');
  }
  res.off('close', onClose);
  try {
    // One write per chunk as it arrives, events never held back; back-pressure from the
    // client reaches the upstream; no listener is added per chunk.
    const body = bodyStream(reader, timeoutMs, first);
    if (recording) await pipeline(body, tap((chunk) => recording.responseChunk(chunk)), res);
    else await pipeline(body, res);
    recording?.finish('complete');
  } catch {
    recording?.finish('broken');
    // The upstream broke off, went silent, or the client left: pipeline has destroyed the
    // client's connection. Ending it normally would tell the browser the answer was
    // complete, and a broken run would show as done.
  }
}

/**
 * Node's fetch reports every failure as "fetch failed" and keeps the reason in `cause`: the
 * console showed "did not answer: fetch failed" for a refused connection and for an answer
 * it could not read alike. This says which, with the cause's own code.
 */
export function whyFetchFailed(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown; name?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const detail = typeof cause?.message === 'string' && cause.message ? cause.message : err instanceof Error ? err.message : String(err);
  const tail = code ? ` (${code})` : '';
  switch (code) {
    case 'UND_ERR_HEADERS_OVERFLOW':
      return `answered with a head larger than this proxy reads (16 kB)${tail}.`;
    case 'ECONNREFUSED':
      return `refused the connection${tail}.`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `could not be found: its host name does not resolve${tail}.`;
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
      return `closed the connection before its answer was complete${tail}: ${detail}.`;
    default:
      // Only the HTTP parser's own errors are an answer it could not read; any other
      // (EHOSTUNREACH, ETIMEDOUT, …) is an upstream that was not reached. Node 20's fetch gives
      // them the parser's code (HPE_…); Node 24's (undici 7) loses the code and names them only.
      return code?.startsWith('HPE_') || cause?.name === 'HTTPParserError'
        ? `sent an answer this proxy cannot read as HTTP: ${detail}${tail}.`
        : `did not answer: ${detail}${tail}.`;
  }
}

