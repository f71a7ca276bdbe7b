import type { Context } from 'hono';
import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { SSE_CONTENT_TYPE } from '../contract/sse.ts';

/**
 * A server-sent event stream for one response. On Node (the console's server and
 * `npm run service`) it writes straight to the socket: the events of one synchronous burst
 * in one write at the burst's end, with back-pressure from `drain`. Without Node bindings (in-process tests through
 * `app.request`) it falls back to a web ReadableStream with the same framing.
 */
export interface SseStream {
  /**
   * Sends one event. Under back-pressure it returns a promise that resolves once the
   * transport can take more; otherwise nothing, so a fast producer does not wait a tick.
   */
  send(event: string, data: unknown): Promise<void> | undefined;
  /** `send` for data already serialized: JSON on one line. */
  sendJson(event: string, json: string): Promise<void> | undefined;
  /** Sends a comment line, used as keep-alive. */
  comment(text: string): Promise<void> | undefined;
  /** True once the client went away; producers stop work then. */
  readonly closed: boolean;
  /** Aborted when the client disconnects. */
  readonly signal: AbortSignal;
  end(): void;
  /** Breaks the connection without ending the stream, as a failing network would. */
  drop(): void;
}

export interface SseOptions {
  /** Idle time after which a `: keep-alive` comment is sent. */
  keepAliveMs: number;
}

const SSE_HEADERS = {
  'content-type': `${SSE_CONTENT_TYPE}; charset=utf-8`,
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/** SSE framing of one event; `data` is JSON on one line, so it needs no splitting. */
export function frameEvent(id: number, event: string, data: unknown): string {
  return frameJson(id, event, JSON.stringify(data));
}

function frameJson(id: number, event: string, json: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${json}\n\n`;
}

/** Past this many characters waiting, a burst is written at once rather than at its end. */
const BATCH_CHARS = 32 * 1024;

interface Transport {
  write(chunk: string): boolean | Promise<void>;
  waitDrain(): Promise<void>;
  end(): void;
  drop(): void;
}

/**
 * Starts an SSE answer and runs `produce` against it. Returns the Response Hono must
 * return: the already-sent marker on Node, a streaming Response otherwise.
 */
export function streamSse(
  c: Context,
  options: SseOptions,
  produce: (stream: SseStream) => Promise<void>,
): Response {
  const controller = new AbortController();
  const headers: Record<string, string> = { ...SSE_HEADERS };
  // Headers middlewares set on the context (request id, deprecation, CORS) go out too.
  c.res.headers.forEach((value, key) => {
    if (!(key in headers)) headers[key] = value;
  });

  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  let transport: Transport;
  let response: Response;
  if (outgoing) {
    outgoing.writeHead(200, headers);
    outgoing.flushHeaders();
    outgoing.on('close', () => controller.abort());
    transport = {
      write: (chunk) => outgoing.write(chunk),
      waitDrain: () =>
        new Promise<void>((resolve) => {
          const done = () => {
            outgoing.off('drain', done);
            outgoing.off('close', done);
            resolve();
          };
          outgoing.on('drain', done);
          outgoing.on('close', done);
        }),
      end: () => outgoing.end(),
      // No terminating chunk: the client sees the body cut off mid-stream. The socket is ended
      // (FIN after what was written), not destroyed: a reset would throw away events the client
      // has not read yet, and a slow client would see fewer than were sent.
      drop: () => {
        const socket = outgoing.socket;
        if (!socket) return;
        socket.end();
        setTimeout(() => socket.destroy(), 5_000).unref();
      },
    };
    response = RESPONSE_ALREADY_SENT;
  } else {
    const encoder = new TextEncoder();
    let ctrl!: ReadableStreamDefaultController<Uint8Array>;
    let wake: (() => void) | undefined;
    const readable = new ReadableStream<Uint8Array>(
      {
        start: (cc) => {
          ctrl = cc;
        },
        pull: () => {
          wake?.();
          wake = undefined;
        },
        cancel: () => controller.abort(),
      },
      { highWaterMark: 16 },
    );
    transport = {
      write: (chunk) => {
        ctrl.enqueue(encoder.encode(chunk));
        return (ctrl.desiredSize ?? 1) > 0;
      },
      waitDrain: () =>
        new Promise<void>((resolve) => {
          wake = resolve;
          controller.signal.addEventListener('abort', () => resolve(), { once: true });
        }),
      end: () => {
        try {
          ctrl.close();
        } catch {
          // already closed by a cancelled reader
        }
      },
      drop: () => ctrl.error(new Error('connection dropped')),
    };
    response = new Response(readable, { status: 200, headers });
    c.req.raw.signal.addEventListener('abort', () => controller.abort());
  }

  let nextId = 1;
  let ended = false;
  let keepAlive: NodeJS.Timeout | undefined;
  let rearm: NodeJS.Immediate | undefined;
  const rearmKeepAlive = () => {
    rearm = undefined;
    keepAlive?.refresh();
  };
  // Idle time counts from the end of a burst of writes: the timer is re-armed once per
  // burst, not once per event, which kept a timer-list update on every event.
  const armKeepAlive = () => {
    if (!keepAlive) keepAlive = setInterval(() => void write(': keep-alive\n\n'), options.keepAliveMs);
    else rearm ??= setImmediate(rearmKeepAlive);
  };
  const stopKeepAlive = () => {
    clearInterval(keepAlive);
    clearImmediate(rearm);
  };
  // Events written in one synchronous burst (a fast producer's slice of the loop) leave as
  // one write at the end of the burst, a microtask later, before the loop takes in any I/O:
  // no event waits for a later turn, and a burst costs one trip through the HTTP and stream
  // layers instead of one per event, which was most of the service's CPU per event.
  let pending = '';
  let flushQueued = false;
  /** The transport is full: writers wait for this. */
  let blocked: Promise<void> | undefined;
  const flush = (): void => {
    flushQueued = false;
    if (pending === '' || controller.signal.aborted) return;
    const chunk = pending;
    pending = '';
    const accepted = transport.write(chunk);
    if (accepted === false || accepted instanceof Promise) {
      blocked ??= (accepted === false ? transport.waitDrain() : accepted).then(() => {
        blocked = undefined;
      });
    }
  };
  const write = (chunk: string): Promise<void> | undefined => {
    if (controller.signal.aborted || ended) return undefined;
    pending += chunk;
    armKeepAlive();
    if (pending.length >= BATCH_CHARS) flush();
    else if (!flushQueued) {
      flushQueued = true;
      queueMicrotask(flush);
    }
    return blocked;
  };
  const stream: SseStream = {
    send: (event, data) => write(frameEvent(nextId++, event, data)),
    sendJson: (event, json) => write(frameJson(nextId++, event, json)),
    comment: (text) => write(`: ${text}\n\n`),
    get closed() {
      return controller.signal.aborted;
    },
    signal: controller.signal,
    end: () => {
      if (ended) return;
      flush();
      ended = true;
      stopKeepAlive();
      transport.end();
    },
    drop: () => {
      if (ended) return;
      flush();
      ended = true;
      stopKeepAlive();
      transport.drop();
    },
  };
  controller.signal.addEventListener('abort', stopKeepAlive);
  // From the moment the stream opens: an agent that thinks before its first event must not
  // leave the connection silent for a proxy's idle timeout to cut.
  armKeepAlive();

  void produce(stream)
    .catch(() => {
      // A producer that throws after the headers are out can only end the stream;
      // the family-specific terminal event is the producer's own job.
    })
    .finally(() => stream.end());
  return response;
}
