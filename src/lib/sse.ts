/**
 * Runs over server-sent events, POSTed exactly once.
 *
 * fetch-event-source retries by default: after an error, after the stream closes, on a
 * non-2xx answer, and it re-POSTs when a hidden tab becomes visible again. A run has side
 * effects and cost, so each of those is switched off here: `openWhenHidden: true` keeps the
 * one request open, `onopen` throws on a non-2xx answer or a wrong content type, `onerror`
 * rethrows (which ends the retry loop), and a closed stream is never reopened.
 *
 * fetch-event-source reads the body in a loop of awaited reads; when the network has
 * delivered faster than the page parses, every read resolves at once and the whole backlog
 * (tens of thousands of events) is parsed in one task, so nothing is painted meanwhile. The
 * body is therefore handed to it through `pacedBody`: in slices of at most SLICE_BYTES, with
 * a yield to the event loop whenever a task has parsed for SLICE_BUDGET_MS. Same bytes, same
 * parser, same single request.
 */

import { fetchEventSource, type EventSourceMessage } from '@microsoft/fetch-event-source';
import { SSE_CONTENT_TYPE } from '../contract/sse';
import { ApiError, httpErrorOf, networkErrorDetail, notConnected, parseBody, responseMetaOf, urlOf, type ResponseMeta } from './api-client';
import type { Connection } from './connection';
import { formatBytes } from './format';

export interface SseEvent {
  /** The `id` field, '' when the server sent none. */
  id: string;
  /** The event name; `message` when the server sent none. */
  event: string;
  data: string;
}

export interface StreamHandlers {
  /** The answer's status and headers, once, before any event. */
  onOpen(meta: Omit<ResponseMeta, 'rawBody' | 'durationMs'> & { durationMs: number }): void;
  onEvent(event: SseEvent): void;
}

export type StreamEnd =
  /** The server ended the stream. */
  | { kind: 'closed' }
  /** The user stopped it. */
  | { kind: 'stopped' }
  /** Refused before the stream started (non-2xx, wrong content type, network). */
  | { kind: 'refused'; error: ApiError }
  /** The connection broke after the stream had started. */
  | { kind: 'interrupted'; reason: string };

/** Longest a task parses before the reader yields, so frames and input get their turn. */
const SLICE_BUDGET_MS = 12;
/** Largest piece of a network chunk parsed at once (about 140 small events). */
const SLICE_BYTES = 16 * 1024;

interface TaskScheduler {
  postTask(callback: () => void, options: { priority: 'background' }): Promise<void>;
}

/** The Prioritized Task Scheduling API, where there is one (Chromium, Firefox). */
const taskScheduler = (globalThis as { scheduler?: Partial<TaskScheduler> }).scheduler;

/**
 * A later task. Background priority where the page is visible and the browser has it: the
 * frame, input and network tasks go first, so a flood is read between frames rather than
 * holding them back. Hidden pages may throttle such tasks, and fall back to a
 * MessageChannel task, which nothing throttles (the run keeps streaming while hidden).
 */
function laterTask(fallback: () => Promise<void>): Promise<void> {
  if (taskScheduler?.postTask && typeof document !== 'undefined' && document.visibilityState === 'visible') {
    return (taskScheduler as TaskScheduler).postTask(() => undefined, { priority: 'background' });
  }
  return fallback();
}

/**
 * The same bytes as `body`, in slices, yielding to the event loop (a task, not a timer,
 * which would be clamped to 4 ms) once SLICE_BUDGET_MS have passed since the last yield.
 * Slices may cut a line or a UTF-8 sequence: the parser joins bytes into lines first.
 */
export function pacedBody(body: ReadableStream<Uint8Array>, budgetMs = SLICE_BUDGET_MS, sliceBytes = SLICE_BYTES): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const channel = new MessageChannel();
  let wake: (() => void) | undefined;
  channel.port1.onmessage = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const nextTask = () =>
    laterTask(
      () =>
        new Promise<void>((resolve) => {
          wake = resolve;
          channel.port2.postMessage(null);
        }),
    );
  let chunk: Uint8Array | undefined;
  let offset = 0;
  // When the reader last started on data without waiting for the network (a chunk to slice, or
  // a read answered at once): a flood. Only a flood yields; a stream slower than the network
  // never does. (Yielding before every chunk of a slow stream, at a priority a busy page runs
  // late, left received events unread; a connection that broke meanwhile took them with it.)
  let since: number | undefined;
  let flooding = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const needRead = !chunk || offset >= chunk.length;
          if (since !== undefined && (flooding || !needRead) && performance.now() - since >= budgetMs) {
            await nextTask();
            since = performance.now();
          }
          if (needRead) {
            const asked = performance.now();
            const { done, value } = await reader.read();
            const now = performance.now();
            flooding = now - asked <= 1;
            if (!flooding || since === undefined) since = now;
            if (done) {
              channel.port1.close();
              controller.close();
              return;
            }
            chunk = value;
            offset = 0;
          }
          const current = chunk!;
          const end = Math.min(offset + sliceBytes, current.length);
          controller.enqueue(current.subarray(offset, end));
          offset = end;
        } catch (err) {
          channel.port1.close();
          throw err;
        }
      },
      cancel(reason) {
        channel.port1.close();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Most bytes one event may take on the wire (its lines and their ends, up to the blank line
 * that ends it). fetch-event-source keeps a line until it ends, and an event until its blank
 * line, however long: an instance that never ends one would fill the page's memory.
 */
export const MAX_EVENT_BYTES = 8_000_000;

/** The stream broke off because one event passed MAX_EVENT_BYTES. */
export class EventTooLong extends Error {
  constructor(readonly limit: number) {
    super(`An event passed ${formatBytes(limit)} without an end of line and a blank line to close it; the console stopped reading the stream there.`);
  }
}

const LF = 10;
const CR = 13;

/**
 * The same bytes as `body`, handed on in whole lines only: what arrived of a line not yet
 * ended is held back, in its pieces, until its end arrives, then passed on with it in one
 * chunk. fetch-event-source joins a line's chunks by copying what it holds at every chunk
 * (quadratic: a 1 MB line in 16 kB slices copied 32 MB), and never gives up on a line; here
 * each byte is looked at once, and an event longer than `limit` bytes errors the stream.
 */
export function boundedEvents(body: ReadableStream<Uint8Array>, limit = MAX_EVENT_BYTES): ReadableStream<Uint8Array> {
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  /** Bytes of the event under way, line ends included; 0 after a blank line. */
  let eventBytes = 0;
  /** Bytes of the line under way, without its end. */
  let lineBytes = 0;
  let afterCr = false;
  const joinHeld = (tail: Uint8Array): Uint8Array => {
    if (!held.length) return tail;
    const out = new Uint8Array(heldBytes + tail.length);
    let at = 0;
    for (const part of held) {
      out.set(part, at);
      at += part.length;
    }
    out.set(tail, at);
    held = [];
    heldBytes = 0;
    return out;
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let lastEnd = -1;
        // The next LF and CR from `i`, found natively (indexOf), each looked for again only once passed.
        let nextLf = -1;
        let nextCr = -1;
        for (let i = 0; i < chunk.length; ) {
          if (nextLf !== chunk.length && nextLf < i) nextLf = chunk.indexOf(LF, i) === -1 ? chunk.length : chunk.indexOf(LF, i);
          if (nextCr !== chunk.length && nextCr < i) nextCr = chunk.indexOf(CR, i) === -1 ? chunk.length : chunk.indexOf(CR, i);
          const end = Math.min(nextLf, nextCr);
          const n = end - i;
          if (n > 0) {
            afterCr = false;
            lineBytes += n;
            eventBytes += n;
            if (eventBytes > limit) {
              controller.error(new EventTooLong(limit));
              held = [];
              return;
            }
          }
          if (end === chunk.length) break;
          const b = chunk[end];
          // CR LF is one line end; its LF neither ends another line nor counts.
          if (!(b === LF && afterCr)) {
            eventBytes = lineBytes === 0 ? 0 : eventBytes + 1;
            lineBytes = 0;
          }
          afterCr = b === CR;
          lastEnd = end;
          i = end + 1;
        }
        if (lastEnd === -1) {
          held.push(chunk);
          heldBytes += chunk.length;
          return;
        }
        controller.enqueue(joinHeld(chunk.subarray(0, lastEnd + 1)));
        if (lastEnd + 1 < chunk.length) {
          held.push(chunk.subarray(lastEnd + 1));
          heldBytes += chunk.length - lastEnd - 1;
        }
      },
      flush(controller) {
        if (heldBytes) controller.enqueue(joinHeld(new Uint8Array(0)));
      },
    }),
  );
}

/** fetch, with an event stream's body paced and its events bounded; any other answer (a refusal) as it came. */
const pacedFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok || !response.body || !type.startsWith(SSE_CONTENT_TYPE)) return response;
  return new Response(boundedEvents(pacedBody(response.body)), { status: response.status, statusText: response.statusText, headers: response.headers });
};

/** Carries a refusal out of `onopen` so it is not mistaken for a broken stream. */
class Refused extends Error {
  constructor(readonly error: ApiError) {
    super(error.message);
  }
}

async function refusalOf(response: Response, url: string, method: string, started: number): Promise<ApiError> {
  const rawBody = await response.text().catch(() => '');
  const type = response.headers.get('content-type') ?? '';
  const body = parseBody(rawBody, type);
  const meta = responseMetaOf(response, method, url, started, rawBody);
  if (response.ok) {
    return new ApiError('http', response.status, 'Not an event stream', `Expected ${SSE_CONTENT_TYPE}, got ${type || 'no content type'}.`, body, meta);
  }
  return httpErrorOf(response, body, meta);
}

/** One event as a reader hands it on: `event` '' when the server named none. */
export interface ReadEvent {
  id: string;
  event: string;
  data: string;
}

/**
 * What reads an event stream: POSTs once, hands the answer to `onopen` (which throws to refuse
 * it), then each event to `onmessage`; resolves when the stream ends or the signal aborts, and
 * throws whatever broke it. Never retries.
 */
export type EventReader = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal },
  onopen: (response: Response) => Promise<void>,
  onmessage: (event: ReadEvent) => void,
) => Promise<void>;

/** The page's reader: fetch-event-source, configured for exactly-once, its body paced and bounded. */
export const fetchEventSourceReader: EventReader = (url, init, onopen, onmessage) =>
  fetchEventSource(url, {
    ...init,
    credentials: 'omit',
    openWhenHidden: true,
    fetch: pacedFetch,
    onopen,
    onmessage: (msg: EventSourceMessage) => onmessage({ id: msg.id, event: msg.event, data: msg.data }),
    onerror(err) {
      throw err;
    },
  });

/** This origin, in a page; none in Node (the headless suite runner), where every URL is another host. */
function pageLocation(): { href: string; origin: string } | undefined {
  return typeof window === 'undefined' ? undefined : window.location;
}

/**
 * POSTs `body` once and reads the answer as an event stream until it ends. Never retries.
 * `reader` is fetch-event-source in the page; `npm run suite` gives one that runs in Node.
 */
export async function streamRun(
  connection: Connection,
  path: string,
  body: unknown,
  handlers: StreamHandlers,
  signal: AbortSignal,
  /** Headers the run adds (its X-Sandbox-Fault); an Authorization among them is not sent. */
  extra: Readonly<Record<string, string>> = {},
  reader: EventReader = fetchEventSourceReader,
): Promise<StreamEnd> {
  if (connection.problem) return { kind: 'refused', error: notConnected(connection.problem) };
  const url = urlOf(connection, path);
  const method = 'POST';
  // Lower-case on purpose: fetch-event-source adds `accept` itself unless that exact key is set,
  // and with `Accept` too the request would say "text/event-stream, text/event-stream".
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(extra)) if (name.toLowerCase() !== 'authorization') headers[name] = value;
  Object.assign(headers, { 'Content-Type': 'application/json', accept: SSE_CONTENT_TYPE });
  if (connection.token) headers.Authorization = `Bearer ${connection.token}`;
  const started = performance.now();
  let opened = false;
  try {
    await reader(
      url,
      { method, headers, body: JSON.stringify(body), signal },
      async (response) => {
        const type = response.headers.get('content-type') ?? '';
        if (!response.ok || !type.startsWith(SSE_CONTENT_TYPE)) throw new Refused(await refusalOf(response, url, method, started));
        opened = true;
        const { rawBody: _none, ...meta } = responseMetaOf(response, method, url, started);
        handlers.onOpen(meta);
      },
      (msg) => {
        // A reader calls this at every blank line, also after a keep-alive comment or a block
        // with no data; by the WHATWG rules an empty data buffer dispatches nothing.
        // (It cannot tell an explicit empty `data:` line apart, so that rare event is dropped too.)
        if (msg.data === '') return;
        handlers.onEvent({ id: msg.id, event: msg.event || 'message', data: msg.data });
      },
    );
  } catch (err) {
    if (signal.aborted) return { kind: 'stopped' };
    if (err instanceof Refused) return { kind: 'refused', error: err.error };
    if (!opened) {
      const here = pageLocation();
      const sameOrigin = here !== undefined && new URL(url, here.href).origin === here.origin;
      return { kind: 'refused', error: new ApiError('network', 0, sameOrigin ? 'No answer' : 'Network or CORS failure', networkErrorDetail(url, sameOrigin), String(err), undefined) };
    }
    return { kind: 'interrupted', reason: err instanceof Error ? err.message : String(err) };
  }
  return signal.aborted ? { kind: 'stopped' } : { kind: 'closed' };
}
