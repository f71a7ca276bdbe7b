/**
 * `slow-bytes` pacing under back-pressure: bytes leave at N a second only while the reader
 * takes them. A reader that stops (a client that reads nothing) stops the pacing, and the
 * answer stays where it was instead of being copied into a queue or a socket buffer.
 */
import { describe, expect, test } from 'vitest';
import { ByteThrottle, throttledBody } from './throttle.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A source of `chunks` chunks of 64 kB that counts how many were taken from it. */
function countedSource(chunks: number): { stream: ReadableStream<Uint8Array>; taken(): number } {
  let taken = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (taken === chunks) return controller.close();
        taken++;
        controller.enqueue(new Uint8Array(64 * 1024).fill(taken));
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, taken: () => taken };
}

describe('throttledBody (a JSON answer at slow-bytes)', () => {
  test('takes bytes from the answer only as its reader asks: a reader that stops holds nothing more', async () => {
    const source = countedSource(16);
    const reader = throttledBody(source.stream, 10_000_000).getReader();
    await reader.read();
    // At 10 MB a second, 300 ms is 3 MB: the whole megabyte, had the pacing gone on unread.
    await sleep(300);
    expect(source.taken()).toBeLessThanOrEqual(2);
    // Read on: every byte comes, in order.
    let bytes = 1;
    const seen: number[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      if (seen.at(-1) !== value[0]) seen.push(value[0]!);
    }
    expect(bytes).toBe(16 * 64 * 1024);
    expect(seen).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
  });

  test('paces at the rate asked: 2 kB at 10 kB a second takes about 0.2 s, never much less', async () => {
    const text = new TextEncoder().encode('x'.repeat(2_000));
    const started = performance.now();
    const reader = throttledBody(new Response(text).body!, 10_000).getReader();
    let n = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      n += value.length;
    }
    expect(n).toBe(2_000);
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
  });

  test('a reader that gives up clears the clock and releases the answer', async () => {
    let cancelled = false;
    const source = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(new Uint8Array(1_000)),
      cancel: () => void (cancelled = true),
    });
    const reader = throttledBody(source, 1).getReader();
    await reader.read();
    const pending = reader.read();
    await reader.cancel();
    expect(await pending).toMatchObject({ done: true });
    expect(cancelled).toBe(true);
  });
});

describe('ByteThrottle (a stream at slow-bytes)', () => {
  test('stops while the transport under it is full, and goes on once it has drained', async () => {
    const written: number[] = [];
    let full = true;
    let drained!: () => void;
    const throttle = new ByteThrottle(
      10_000,
      (bytes) => {
        written.push(bytes.length);
        return !full;
      },
      new AbortController().signal,
      () => new Promise<void>((resolve) => (drained = resolve)),
    );
    let done = false;
    void throttle.push(new Uint8Array(2_000)).then(() => (done = true));
    // 300 ms at 10 kB a second would be all 2,000 bytes; the transport said it was full after the first.
    await sleep(300);
    expect(written.reduce((a, b) => a + b, 0)).toBe(1);
    expect(done).toBe(false);
    full = false;
    drained();
    await expect.poll(() => done, { timeout: 5_000 }).toBe(true);
    expect(written.reduce((a, b) => a + b, 0)).toBe(2_000);
  });
});
