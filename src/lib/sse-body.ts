/**
 * A stream's body as it is handed to the SSE parser: paced, and bounded event by event.
 *
 * fetch-event-source reads the body in a loop of awaited reads; when the network has
 * delivered faster than the page parses, every read resolves at once and the whole backlog
 * (tens of thousands of events) is parsed in one task, so nothing is painted meanwhile. The
 * body is therefore handed to it through `pacedBody`: in slices of at most SLICE_BYTES, with
 * a yield to the event loop whenever a task has parsed for SLICE_BUDGET_MS. Same bytes, same
 * parser, same single request.
 */
import { formatBytes } from './format';

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
