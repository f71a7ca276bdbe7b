import { getRequestListener, RequestError, type HttpBindings, type Http2Bindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SERVICE_PREFIXES, type Service } from './app.ts';
import { familyOf, refusalBody, sendRefusal } from './families.ts';
import { MAX_BODY_BYTES, newRequestId } from './http.ts';
import { LINGER_MAX_BYTES, lingerOn, lingerOnEarlyClose } from './linger.ts';
import { LargeBodyCollector } from './memory.ts';
import { acceptMany } from './multi-accept.ts';
import { clip } from './problem-list.ts';
import { watchConnections } from './turns.ts';
import { awaitingContinue, settleUnreadBody } from './unread-body.ts';
import { UPSTREAM_PREFIX } from './upstream-proxy.ts';

/**
 * The app's fetch for node-server. A stream writes its head to the socket itself and
 * returns node-server's already-sent marker, but Hono copies a returned response once
 * anything has read `c.res`, and node-server's own `Response` class then takes a path
 * that ignores the marker and writes the head again (ERR_HTTP_HEADERS_SENT: the stream
 * is cut short by an error text). So the marker itself goes back once the head is out.
 */
function nodeFetch(service: Service) {
  return async (req: Request, env: HttpBindings | Http2Bindings): Promise<Response> => {
    const res = await service.app.fetch(req, env);
    if (env.outgoing.headersSent) return RESPONSE_ALREADY_SENT;
    // Answered before its body was read: drop the body, or close after this answer.
    if (env.outgoing instanceof ServerResponse && !(await settleUnreadBody(env.incoming as IncomingMessage, MAX_BODY_BYTES, req))) {
      // The body stopped coming and the body watch answered 408 meanwhile.
      if (env.outgoing.headersSent) return RESPONSE_ALREADY_SENT;
      env.outgoing.setHeader('connection', 'close');
    }
    return res;
  };
}

import type { Middleware } from './middleware.ts';

export function isServicePath(url: string | undefined): boolean {
  return SERVICE_PREFIXES.some((p) => (url ?? '').startsWith(p));
}

const REQUEST_ERRORS: Record<string, string> = {
  'Backslash in request path': 'The path contains a backslash; such paths are refused, not resolved.',
  'Missing host header': 'The request has no Host header.',
  'Invalid host header': 'The Host header is not a valid host name.',
};

/**
 * node-server refuses a request it cannot turn into a `Request` (a backslash in the path, a
 * bad or missing Host) with an empty 400; this says why, as JSON. The API family is not
 * known yet, so the answer takes the custom-metadata shape.
 */
function requestErrorAnswer(err: unknown): Response {
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'x-content-type-options': 'nosniff' } });
  if (err instanceof RequestError) {
    return json(400, { error: 'bad request', message: REQUEST_ERRORS[err.message] ?? `The request cannot be read: ${err.message}.` });
  }
  console.error(`[reference-service] request failed before routing: ${(err as Error).message}`);
  return json(500, { error: 'internal error', message: 'The request failed before it reached a route.' });
}

function requestListener(service: Service) {
  return getRequestListener(nodeFetch(service), { errorHandler: requestErrorAnswer });
}

/** A connect-style middleware that answers the service's paths and passes the rest on. */
export function serviceMiddleware(service: Service, timeouts: Pick<ServerTimeouts, 'bodyIdleTimeoutMs' | 'checkIntervalMs'> = {}): Middleware {
  const listener = requestListener(service);
  const bodies = new BodyWatch(timeouts);
  const garbage = new LargeBodyCollector();
  const prepared = service.preparedRead;
  const preparedRun = service.preparedRun;
  return (req, res, next) => {
    if (!isServicePath(req.url)) return next();
    if (prepared?.(req, res)) return;
    bodies.watch(req, res);
    res.once('close', () => garbage.answered(req));
    if (preparedRun?.(req, res, () => void listener(req, res))) return;
    void listener(req, res);
  };
}

export interface ServerTimeouts {
  /** Time a client has to send the whole request head. */
  headersTimeoutMs?: number;
  /** Time a client has to send the whole request, body included (not the answer: streams last). */
  requestTimeoutMs?: number;
  /** Time a client may send nothing of a request body it announced (Content-Length or chunked) before 408. */
  bodyIdleTimeoutMs?: number;
  /** How often Node checks the head and request timeouts (its default is 30 s), and the body watch its bodies. */
  checkIntervalMs?: number;
  /** How long a connection closed before its request's body came in whole reads on and drops the rest (linger.ts). */
  lingerMs?: number;
  /** How long such a connection lingers with nothing more coming. */
  lingerIdleMs?: number;
  /** How much of such a body it reads at most. */
  lingerMaxBytes?: number;
}

export const DEFAULT_TIMEOUTS = { headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, bodyIdleTimeoutMs: 5_000, checkIntervalMs: 1_000 } as const;

interface WatchedBody {
  res: ServerResponse;
  bytesRead: number;
  since: number;
}

/**
 * A client that announces a body (Content-Length: 100) and sends less would hold its
 * connection, and the request's handler, for the whole request timeout (60 s). So a body
 * that stops coming is bounded on its own: once nothing of it has arrived for
 * `bodyIdleTimeoutMs`, the request is answered 408 in the family of its path and the
 * connection closed. A body that keeps coming, however slowly, is not cut; nor one the
 * service itself has not read yet (its bytes wait in the request's buffer).
 *
 * The socket's byte count is read every `checkIntervalMs`: the body itself is left alone,
 * as a second reader of it would take bytes from the handler's.
 */
export class BodyWatch {
  private readonly idleMs: number;
  private readonly checkMs: number;
  private readonly watched = new Map<IncomingMessage, WatchedBody>();
  private timer: NodeJS.Timeout | undefined;

  constructor(timeouts: Pick<ServerTimeouts, 'bodyIdleTimeoutMs' | 'checkIntervalMs'> = {}) {
    this.idleMs = timeouts.bodyIdleTimeoutMs ?? DEFAULT_TIMEOUTS.bodyIdleTimeoutMs;
    this.checkMs = Math.min(timeouts.checkIntervalMs ?? DEFAULT_TIMEOUTS.checkIntervalMs, this.idleMs);
  }

  watch(req: IncomingMessage, res: ServerResponse): void {
    const announced = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (!announced || req.complete) return;
    this.watched.set(req, { res, bytesRead: req.socket.bytesRead, since: performance.now() });
    this.timer ??= setInterval(() => this.check(), this.checkMs).unref();
  }

  private check(): void {
    const now = performance.now();
    for (const [req, w] of this.watched) {
      const socket = req.socket;
      if (req.complete || socket.destroyed || w.res.writableEnded) {
        this.watched.delete(req);
      } else if (socket.bytesRead !== w.bytesRead || req.readableLength > 0) {
        w.bytesRead = socket.bytesRead;
        w.since = now;
      } else if (now - w.since >= this.idleMs) {
        this.watched.delete(req);
        this.expire(req, w.res);
      }
    }
    if (!this.watched.size) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private expire(req: IncomingMessage, res: ServerResponse): void {
    const length = req.headers['content-length'];
    const announced = length !== undefined ? ` (announced: ${Number(length).toLocaleString('en-US')} bytes)` : '';
    const seconds = this.idleMs % 1000 === 0 ? `${this.idleMs / 1000} s` : `${this.idleMs} ms`;
    if (!res.headersSent) {
      sendRefusal(
        res,
        req.url ?? '/',
        {
          status: 408,
          code: 'request_timeout',
          title: 'Request Timeout',
          error: 'request timeout',
          detail: `The request body stopped arriving before its end${announced}: nothing more of it came for ${seconds}.`,
        },
        {},
        true,
      );
    }
    // The handler still waits for the rest of the body; closing the connection ends that wait.
    res.once('finish', () => req.socket.destroy());
    if (res.writableFinished) req.socket.destroy();
  }
}

/** What Node's parser refused, before any route could answer: status and explanation. */
function parserRefusal(err: NodeJS.ErrnoException): [number, string, string] {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'request header fields too large', 'The request head is larger than this server accepts (16 kB).'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'request timeout', 'The request was not received in time.'];
    default:
      return [400, 'bad request', `The request is not valid HTTP/1.1 (${err.code ?? 'parse error'}).`];
  }
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/**
 * How long a connection whose request the parser refused (or timed out) reads on after the
 * answer: enough for a client still sending to read it; such a client gets no more than that.
 */
const CLIENT_ERROR_LINGER_MS = 2_000;

/**
 * A request Node's parser refuses never reaches Hono, and Node would answer it with an
 * empty body. This answers in the custom-metadata error shape instead (the request's path,
 * and so its API family, is unknown at that point), when the socket can still be written.
 */
function clientErrorAnswer(headers: Readonly<Record<string, string>>, answering: (socket: Socket) => boolean) {
  const extra = Object.entries(headers)
    .filter(([k]) => !['content-type', 'content-length', 'connection', 'x-content-type-options'].includes(k.toLowerCase()))
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    // An answer already under way on the connection cannot be followed by another: Node's own
    // check before its empty 400, which it makes on a property of the socket it keeps private.
    if (err.code === 'ECONNRESET' || !socket.writable || answering(socket)) {
      socket.destroy();
      return;
    }
    const [status, error, message] = parserRefusal(err);
    const body = JSON.stringify({ error, message });
    socket.end(
      `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `${extra}X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
    // Ending our side alone left the socket open for as long as the client sent (a 408's body
    // a byte at a time kept thousands open, and what they sent was buffered): it closes soon.
    lingerOn(socket, { lingerMs: CLIENT_ERROR_LINGER_MS, idleMs: CLIENT_ERROR_LINGER_MS, maxBytes: LINGER_MAX_BYTES });
  };
}

/** The API path a console-server path is for: after `/upstream/<host>` for its proxy, else the path itself. */
function apiPathOf(url: string): string {
  if (!url.startsWith(UPSTREAM_PREFIX)) return url;
  const slash = url.indexOf('/', UPSTREAM_PREFIX.length);
  return slash < 0 ? '/' : url.slice(slash);
}

/**
 * CONNECT (a proxy tunnel) and Upgrade (another protocol, e.g. a WebSocket) are not what this
 * server speaks. Node hands them to 'connect' and 'upgrade' listeners with the bare socket,
 * and destroyed a CONNECT with no listener: the client got 0 bytes. So they are answered with
 * a 400 in the family of the path asked for (a CONNECT's target is no path: the
 * custom-metadata shape), with `headers`, and the connection is closed.
 *
 * Where another listener takes upgrades (Vite's dev server, for its hot reload), only the
 * API paths are answered here; the rest stays the other listener's.
 */
function protocolSwitchAnswer(server: Server, headers: Readonly<Record<string, string>>) {
  const extra = Object.entries(headers)
    .filter(([k]) => !['content-type', 'content-length', 'connection', 'x-content-type-options'].includes(k.toLowerCase()))
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return (req: IncomingMessage, socket: Socket): void => {
    const url = req.url ?? '';
    const connect = req.method === 'CONNECT';
    const api = !connect && (isServicePath(url) || url.startsWith(UPSTREAM_PREFIX));
    if (!connect && !api && server.listenerCount('upgrade') > 1) return;
    socket.on('error', () => {});
    if (!socket.writable) return void socket.destroy();
    const id = newRequestId();
    const detail = connect
      ? 'CONNECT is not supported: this server is no proxy. Send HTTP requests to it directly.'
      : `This server does not switch protocols (Upgrade: ${clip(String(req.headers.upgrade ?? ''), 60)}); send the request without Upgrade.`;
    const { contentType, body } = refusalBody(connect ? 'metadata' : familyOf(apiPathOf(url)), { status: 400, code: 'invalid_request', title: 'Invalid Request', error: 'bad request', detail }, id);
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}` +
        `Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}

/**
 * Timeouts for slow clients, and JSON answers to what the parser refuses and to CONNECT and
 * Upgrade requests, with `headers` (the console server's security headers). This is the
 * server's only answer to parser errors: a handler added before (Vite's, with an empty body)
 * is removed.
 */
export function hardenServer(server: Server, timeouts: ServerTimeouts = {}, headers: Readonly<Record<string, string>> = {}): void {
  const t = { ...DEFAULT_TIMEOUTS, ...timeouts };
  server.headersTimeout = t.headersTimeoutMs;
  server.requestTimeout = t.requestTimeoutMs;
  server.removeAllListeners('clientError');
  // The answer each connection is writing, once it has the connection (a pipelined one waits).
  const answers = new WeakMap<Socket, ServerResponse>();
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (res.socket) answers.set(res.socket, res);
    else res.once('socket', (socket: Socket) => answers.set(socket, res));
  });
  const answering = (socket: Socket) => {
    const res = answers.get(socket);
    return res !== undefined && res.headersSent && !res.writableFinished;
  };
  server.on('clientError', clientErrorAnswer(headers, answering));
  const switchAnswer = protocolSwitchAnswer(server, headers);
  server.on('connect', switchAnswer);
  server.on('upgrade', switchAnswer);
  // An Expect other than 100-continue: Node would answer an empty 417 before any route. The body
  // (if the client sends it anyway) is not read: the connection closes.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const expectation = clip(String(req.headers.expect ?? ''), 60);
    sendRefusal(
      res,
      apiPathOf(req.url ?? '/'),
      {
        status: 417,
        code: 'expectation_failed',
        title: 'Expectation Failed',
        error: 'expectation failed',
        detail: `This server meets no Expect but 100-continue (Expect: ${expectation}); send the request without it.`,
      },
      headers,
      true,
    );
  });
  // Expect: 100-continue asks whether to send the body at all, and Node said 100 Continue to
  // every such request: a client announcing a body over the limit sent it all (curl: a
  // megabyte and more) only to be told 413. Now the 100 goes when something first reads the
  // body. An answer decided from the head alone (413 by Content-Length, 401, a foreign Host,
  // 404) goes out with the body never sent, and Node closes the connection after it; the
  // proxy, the run streams and the routes that read a body get theirs as before.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    continueOnFirstRead(req, res);
    server.emit('request', req, res);
  });
  lingerOnEarlyClose(server, { lingerMs: t.lingerMs, idleMs: t.lingerIdleMs, maxBytes: t.lingerMaxBytes });
  watchConnections(server);
}

/**
 * Sends `res` its 100 Continue when the body is first read, unless an answer has begun by then.
 * A read begins with the stream set flowing ('resume': a 'data' listener, pipe, Readable.toWeb's
 * first pull, a drain) or with a 'readable' listener (async iteration).
 */
function continueOnFirstRead(req: IncomingMessage, res: ServerResponse): void {
  awaitingContinue.add(req);
  const go = () => {
    req.off('resume', go);
    req.off('newListener', onListener);
    awaitingContinue.delete(req);
    if (!res.headersSent && !res.writableEnded) res.writeContinue();
  };
  const onListener = (event: string | symbol) => {
    if (event === 'readable') go();
  };
  req.on('resume', go);
  req.on('newListener', onListener);
}

/** Connections the kernel may queue before they are accepted; Linux caps it at net.core.somaxconn (4096 by default). */
export const LISTEN_BACKLOG = 4096;
/**
 * Copies of the listening socket that `npm start` and `npm run service` accept on
 * (multi-accept.ts): a turn of the loop accepts up to one more connection per copy. In
 * bench:load's burst of 1,000 streams the slow first event's p99 was about 1,060 ms with none,
 * 540-680 ms with 31 (740 ms beside one or two busy loops) and 700-880 ms with 15. Each copy with
 * no connection to take costs one accept() that gets EAGAIN: with 31, a client that opens a
 * connection per request cost the service about 20 % more CPU; a kept-alive one, nothing.
 */
export const ACCEPT_COPIES = 31;

/** A server the CLI starts (the console's, the bench's baseline) takes connections in as the service does. */
export function acceptAsTheService(server: Server): Promise<number> {
  return acceptMany(server, { copies: ACCEPT_COPIES, backlog: LISTEN_BACKLOG });
}

/**
 * Serves the service alone on `host:port` (port 0 picks a free one). `acceptCopies`: copies of
 * the listening socket to accept on too (ACCEPT_COPIES for the CLI; none by default, for the
 * tests that start a service each, where a copier child per start would cost 100 ms or more).
 */
export function listen(
  service: Service,
  port: number,
  host = '127.0.0.1',
  timeouts: ServerTimeouts = {},
  { acceptCopies = 0 }: { acceptCopies?: number } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const checkInterval = timeouts.checkIntervalMs ?? DEFAULT_TIMEOUTS.checkIntervalMs;
  const listener = requestListener(service);
  const bodies = new BodyWatch(timeouts);
  const garbage = new LargeBodyCollector();
  const prepared = service.preparedRead;
  const preparedRun = service.preparedRun;
  const server = createServer({ connectionsCheckingInterval: checkInterval }, (req, res) => {
    if (prepared?.(req, res)) return;
    bodies.watch(req, res);
    res.once('close', () => garbage.answered(req));
    if (preparedRun?.(req, res, () => void listener(req, res))) return;
    void listener(req, res);
  });
  hardenServer(server, timeouts);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // Node's default backlog (511) drops the connections past it when a thousand clients
    // connect at once; they come back only after the kernel's retransmission back-off
    // (1 s, 3 s, 7 s…), which is how a stream's first event took seconds under load.
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, async () => {
      await acceptMany(server, { copies: acceptCopies, backlog: LISTEN_BACKLOG });
      const info = server.address() as AddressInfo;
      // Its own origins from the address and the port actually bound (port 0 is one by now).
      service.ownOrigins.listening(info.address, info.port);
      const shownHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shownHost}:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
