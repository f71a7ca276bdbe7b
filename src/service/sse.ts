import type { Context } from 'hono';
import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { SandboxFault } from '../contract/sandbox-fault.ts';
import { SSE_CONTENT_TYPE } from '../contract/sse.ts';
import { ByteThrottle } from './throttle.ts';
import { nodeResponseOf } from './http.ts';

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
  /**
   * An event as a replay recorded it: its own id and event name (either may be absent), its
   * data as it came (lines joined with \n). Does not take an id of the stream's own count.
   */
  sendRecorded(id: string | undefined, event: string | undefined, data: string): Promise<void> | undefined;
  /** Sends a comment line, used as keep-alive. */
  comment(text: string): Promise<void> | undefined;
  /** True once the client went away; producers stop work then. */
  readonly closed: boolean;
  /** Aborted when the client disconnects. */
  readonly signal: AbortSignal;
  end(): void;
  /** Breaks the connection without ending the stream, as a failing network would. */
  drop(): void;
  /** What an X-Sandbox-Fault did to the stream, once it did it: broke it, or left it silent. */
  readonly faulted: 'dropped' | 'stalled' | undefined;
}

export interface SseOptions {
  /** Idle time after which a `: keep-alive` comment is sent. */
  keepAliveMs: number;
  /** X-Sandbox-Fault's settings for this answer (drop-after, delay-first, stall-after, slow-bytes). */
  fault?: SandboxFault;
}

/** While delay-first holds the first event, a keep-alive goes out this often (or the stream's own interval, if shorter). */
export const HELD_KEEP_ALIVE_MS = 1_000;

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

/** SSE framing of a recorded event: a data line per line of its data, and only the fields it had. */
export function frameRecorded(id: string | undefined, event: string | undefined, data: string): string {
  let out = id !== undefined ? `id: ${id}\n` : '';
  if (event !== undefined) out += `event: ${event}\n`;
  for (const line of data.split('\n')) out += `data: ${line}\n`;
  return `${out}\n`;
}

/**
 * How long after its last bytes left a broken stream's connection is cut: a browser whose page is
 * busy reads what came and the break in one go, and then reports the break without the events
 * (Chromium did, 100 ms after them, on a loaded machine).
 */
const DROP_AFTER_WRITTEN_MS = 1_000;

/** Past this many characters waiting, a burst is written at once rather than at its end. */
const BATCH_CHARS = 32 * 1024;

interface Transport {
  write(chunk: string | Uint8Array): boolean | Promise<void>;
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
  const headers: Record<string, string> = { ...SSE_HEADERS };
  // Headers middlewares set on the context (request id, deprecation, CORS) go out too.
  c.res.headers.forEach((value, key) => {
    if (!(key in headers)) headers[key] = value;
  });

  const outgoing = nodeResponseOf(c);
  if (outgoing) {
    // The answer is on the socket: Hono need not copy the returned marker over `c.res` (a new
    // Response and every header converted again, per stream: a burst of a thousand POSTs paid
    // that on the loop the first events wait for). nodeFetch returns the marker itself.
    c.finalized = true;
    streamSseOnNode(outgoing, headers, options, produce);
    return RESPONSE_ALREADY_SENT;
  }
  const controller = new AbortController();
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
  const transport: Transport = {
    write: (chunk) => {
      ctrl.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk.slice());
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
  const response = new Response(readable, { status: 200, headers });
  c.req.raw.signal.addEventListener('abort', () => controller.abort());
  runSse(transport, controller, options, produce);
  return response;
}

/** The head of an SSE answer: these headers, then `extra` (lower-case names, in the order a caller gives them). */
export function sseHeaders(extra: Readonly<Record<string, string>>): Record<string, string> {
  return { ...SSE_HEADERS, ...extra };
}

/**
 * Writes an SSE answer's head (`headers`, as `sseHeaders` makes them) straight to a Node
 * response and runs `produce` against the stream: what `streamSse` does on Node, for a way
 * in that has no Hono context (prepared-runs.ts).
 */
export function streamSseOnNode(
  outgoing: ServerResponse,
  headers: Record<string, string>,
  options: SseOptions,
  produce: (stream: SseStream) => Promise<void>,
): void {
  const controller = new AbortController();
  outgoing.writeHead(200, headers);
  outgoing.flushHeaders();
  outgoing.on('close', () => controller.abort());
  const transport: Transport = {
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
    drop: () => breakOffAnswer(outgoing),
  };
  runSse(transport, controller, options, produce);
}

/**
 * Breaks the connection of a chunked answer mid-body, as a failing network would: no
 * terminating chunk, so the client sees the body cut off. The socket is ended (FIN after what
 * was written), not destroyed: a reset would throw away bytes the client has not read yet, and
 * a slow client would see fewer than were sent. And it is ended a moment after the last bytes
 * left: a browser that reads the events and the break in one go reports the break and drops
 * the events with it (Chromium did, for a burst).
 */
export function breakOffAnswer(outgoing: ServerResponse): void {
  const socket = outgoing.socket;
  if (!socket) return;
  const cut = () => {
    socket.end();
    setTimeout(() => socket.destroy(), 5_000).unref();
  };
  // Bytes still buffered (the response's, the socket's) are waited for, a few seconds at most.
  const until = performance.now() + 5_000;
  const waitWritten = () => {
    if ((outgoing.writableLength > 0 || socket.writableLength > 0) && !socket.destroyed && performance.now() < until) {
      setTimeout(waitWritten, 10).unref();
    } else setTimeout(cut, DROP_AFTER_WRITTEN_MS).unref();
  };
  waitWritten();
}

function runSse(transport: Transport, controller: AbortController, options: SseOptions, produce: (stream: SseStream) => Promise<void>): void {
  const slowBytes = options.fault?.slowBytes;
  if (slowBytes !== undefined) transport = slowed(transport, slowBytes, controller.signal);

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
  // X-Sandbox-Fault: events counted as they are handed over, the first one held, the stream
  // broken or left silent once enough have gone.
  const fault = options.fault;
  let events = 0;
  let faulted: 'dropped' | 'stalled' | undefined;
  let firstHeld = false;
  let stalledUntilClose: Promise<void> | undefined;
  const stall = (): Promise<void> => {
    if (faulted !== 'stalled') {
      faulted = 'stalled';
      flush();
      stopKeepAlive();
      stalledUntilClose = new Promise((resolve) => controller.signal.addEventListener('abort', () => resolve(), { once: true }));
    }
    return stalledUntilClose!;
  };
  const holdFirst = async (ms: number): Promise<void> => {
    const beat = setInterval(() => void write(': keep-alive\n\n'), Math.min(HELD_KEEP_ALIVE_MS, options.keepAliveMs));
    try {
      await sleepUnless(ms, controller.signal);
    } finally {
      clearInterval(beat);
    }
  };
  const emit = (frame: () => string): Promise<void> | undefined => {
    if (faulted === 'stalled') return stalledUntilClose;
    if (faulted || ended || controller.signal.aborted) return undefined;
    if (fault?.dropAfter !== undefined && events >= fault.dropAfter) {
      stream.drop();
      faulted = 'dropped';
      return undefined;
    }
    if (fault?.stallAfter !== undefined && events >= fault.stallAfter) return stall();
    events++;
    if (fault?.delayFirst && !firstHeld) {
      firstHeld = true;
      return holdFirst(fault.delayFirst).then(() => write(frame()));
    }
    return write(frame());
  };
  const stream: SseStream = {
    send: (event, data) => emit(() => frameEvent(nextId++, event, data)),
    sendJson: (event, json) => emit(() => frameJson(nextId++, event, json)),
    sendRecorded: (id, event, data) => emit(() => frameRecorded(id, event, data)),
    comment: (text) => (faulted ? undefined : write(`: ${text}\n\n`)),
    get closed() {
      return controller.signal.aborted || faulted === 'dropped';
    },
    get faulted() {
      return faulted;
    },
    signal: controller.signal,
    end: () => {
      if (ended || faulted) return;
      // A run with no more events than the fault waits for is broken, or left silent, all the same.
      if (fault?.dropAfter !== undefined && events >= fault.dropAfter) {
        faulted = 'dropped';
        return void dropNow();
      }
      if (fault?.stallAfter !== undefined && events >= fault.stallAfter) return void stall();
      flush();
      ended = true;
      stopKeepAlive();
      transport.end();
    },
    drop: () => {
      if (ended || faulted === 'stalled') return;
      dropNow();
    },
  };
  const dropNow = () => {
    if (ended) return;
    flush();
    ended = true;
    stopKeepAlive();
    transport.drop();
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
}

/** Waits `ms`, or until `signal` aborts, whichever comes first; never rejects. */
export function sleepUnless(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * `slow-bytes`: what the stream writes leaves at `bytesPerSecond`. A write answers once its
 * bytes have left, so the producer waits as behind a slow client; the stream ends, or breaks,
 * after the last queued byte. A client that does not read stops the bytes, and so the run,
 * as it would without the fault: nothing piles up in the socket's buffer.
 */
function slowed(inner: Transport, bytesPerSecond: number, signal: AbortSignal): Transport {
  const encoder = new TextEncoder();
  const throttle = new ByteThrottle(bytesPerSecond, (bytes) => inner.write(bytes.slice()) !== false, signal, () => inner.waitDrain());
  return {
    write: (chunk) => throttle.push(typeof chunk === 'string' ? encoder.encode(chunk) : chunk),
    waitDrain: () => throttle.drained(),
    end: () => void throttle.drained().then(() => inner.end()),
    drop: () => void throttle.drained().then(() => inner.drop()),
  };
}
