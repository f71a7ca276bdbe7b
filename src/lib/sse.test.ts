import { describe, expect, it, vi } from 'vitest';
import { pacedBody } from './sse';

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
