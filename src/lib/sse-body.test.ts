import { describe, expect, it, vi } from 'vitest';
import { boundedEvents, EventTooLong, pacedBody } from './sse-body';

/** A response body that delivers `chunks`, then closes, breaks with `end`, or stays open. */
function source(chunks: Uint8Array[], end: 'close' | 'open' | Error = 'close') {
  const state = { cancelled: undefined as unknown };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      if (end instanceof Error) controller.error(end);
      else if (end === 'close') controller.close();
    },
    cancel(reason) {
      state.cancelled = reason;
    },
  });
  return { body, state };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

const bytes = (n: number, seed = 0) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);
const joined = (parts: Uint8Array[]) => {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all;
};

describe('pacedBody: the stream handed to the SSE parser', () => {
  it('passes the same bytes in order, in slices no larger than asked', async () => {
    const chunks = [bytes(100_000, 1), bytes(10, 2), bytes(40_000, 3)];
    const slices = await readAll(pacedBody(source(chunks).body, 12, 16 * 1024));
    expect(slices.every((s) => s.length > 0 && s.length <= 16 * 1024)).toBe(true);
    const [got, want] = [joined(slices), joined(chunks)];
    expect(got.length).toBe(want.length);
    expect(got.every((b, i) => b === want[i])).toBe(true);
  });

  it('yields to the event loop between slices once the budget is spent', async () => {
    // Without a visible document (here, Node) the yield is a MessageChannel task.
    const posted = vi.spyOn(MessagePort.prototype, 'postMessage');
    try {
      // A budget of 0 ms: a task boundary before every slice.
      const slices = await readAll(pacedBody(source([bytes(64 * 1024)]).body, 0, 1024));
      expect(slices).toHaveLength(64);
      expect(posted.mock.calls.length).toBeGreaterThanOrEqual(64);
    } finally {
      posted.mockRestore();
    }
  });

  it('never yields for a stream slower than the network: each event is read the moment it arrives', async () => {
    const posted = vi.spyOn(MessagePort.prototype, 'postMessage');
    try {
      let n = 0;
      const slow = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await new Promise((r) => setTimeout(r, 5));
          if (n++ < 8) controller.enqueue(bytes(100, n));
          else controller.close();
        },
      });
      // A budget of 0 ms: a flood would yield before every slice; a slow stream never does.
      expect(await readAll(pacedBody(slow, 0, 1024))).toHaveLength(8);
      expect(posted).not.toHaveBeenCalled();
    } finally {
      posted.mockRestore();
    }
  });

  it('does not yield while within the budget', async () => {
    const posted = vi.spyOn(MessagePort.prototype, 'postMessage');
    try {
      await readAll(pacedBody(source([bytes(8 * 1024)]).body, 60_000, 1024));
      expect(posted).not.toHaveBeenCalled();
    } finally {
      posted.mockRestore();
    }
  });

  it('passes a broken connection on as an error', async () => {
    const broken = new TypeError('network error');
    await expect(readAll(pacedBody(source([bytes(10)], broken).body))).rejects.toBe(broken);
  });

  it('cancels the response body when the reader is cancelled', async () => {
    const { body, state } = source([bytes(100_000)], 'open');
    const reader = pacedBody(body, 12, 1024).getReader();
    await reader.read();
    await reader.cancel('stopped');
    expect(state.cancelled).toBe('stopped');
  });
});

const text = (s: string) => new TextEncoder().encode(s);
const decoded = (parts: Uint8Array[]) => new TextDecoder().decode(joined(parts));

describe('boundedEvents: whole lines to the parser, and no event past its limit', () => {
  it('passes the same bytes, each chunk ending where a line ends, a line held back across chunks', async () => {
    const wire = 'id: 1\nevent: message\ndata: {"a":1}\n\nid: 2\r\ndata: split across\r\n\r\n: keep-alive\n\n';
    const pieces = [wire.slice(0, 3), wire.slice(3, 30), wire.slice(30, 52), wire.slice(52, 53), wire.slice(53)].map(text);
    const out = await readAll(boundedEvents(source(pieces).body, 1024));
    expect(decoded(out)).toBe(wire);
    for (const chunk of out) expect([10, 13]).toContain(chunk[chunk.length - 1]);
  });

  it('hands on a 1 MB line cut in 16 kB slices as one chunk', async () => {
    const line = `data: ${'x'.repeat(1024 * 1024)}\n\n`;
    const all = text(line);
    const slices = Array.from({ length: Math.ceil(all.length / 16_384) }, (_, i) => all.subarray(i * 16_384, (i + 1) * 16_384));
    const out = await readAll(boundedEvents(source(slices).body, 2 * 1024 * 1024));
    expect(out).toHaveLength(1);
    expect(out[0]!.length).toBe(all.length);
  });

  it('lets any number of events through, each within the limit', async () => {
    const event = `data: ${'y'.repeat(900)}\n\n`;
    const out = await readAll(boundedEvents(source(Array.from({ length: 200 }, () => text(event))).body, 1000));
    expect(decoded(out)).toBe(event.repeat(200));
  });

  it('errors the stream, and stops reading the body, once a line or an event passes the limit', async () => {
    for (const wire of [`data: ${'z'.repeat(5000)}`, `data: ${'z'.repeat(400)}\ndata: ${'z'.repeat(400)}\ndata: ${'z'.repeat(400)}\n`]) {
      const { body, state } = source([text(wire)], 'open');
      await expect(readAll(boundedEvents(body, 1000))).rejects.toBeInstanceOf(EventTooLong);
      expect(state.cancelled).toBeInstanceOf(EventTooLong);
    }
  });
});
