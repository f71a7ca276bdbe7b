/**
 * `slow-bytes=N` of X-Sandbox-Fault: an answer's bytes at N a second, whatever the answer
 * (an event stream, a JSON body, an error). Bytes leave on a clock, a few at each tick, so a
 * client sees a slow network, not a slow server that sends whole events late.
 */

/** How often bytes leave: ten times a second, or once per byte when fewer than ten a second. */
export function tickMsOf(bytesPerSecond: number): number {
  return bytesPerSecond >= 10 ? 100 : Math.ceil(1000 / bytesPerSecond);
}

/**
 * A queue of bytes drained at `bytesPerSecond` into `write`. `push` answers a promise that
 * resolves once everything queued so far has left (the writer's back-pressure); `drained`
 * the same without adding anything. Stops, and lets every waiter go, when `signal` aborts.
 */
export class ByteThrottle {
  private readonly queue: Uint8Array[] = [];
  private offset = 0;
  private queued = 0;
  private allowance = 0;
  private last = 0;
  private timer: NodeJS.Timeout | undefined;
  private waiters: (() => void)[] = [];
  private readonly tickMs: number;

  constructor(
    private readonly bytesPerSecond: number,
    private readonly write: (bytes: Uint8Array) => void,
    private readonly signal: AbortSignal,
  ) {
    this.tickMs = tickMsOf(bytesPerSecond);
    signal.addEventListener('abort', () => this.stop(), { once: true });
  }

  get empty(): boolean {
    return this.queued === 0;
  }

  push(bytes: Uint8Array): Promise<void> {
    if (this.signal.aborted) return Promise.resolve();
    if (bytes.length) {
      this.queue.push(bytes);
      this.queued += bytes.length;
      if (!this.timer) {
        this.last = performance.now();
        // One byte leaves at once, the rest on the clock: an event that comes after a pause
        // takes as long to arrive as it would on a slow network, not a tick's worth at once.
        this.allowance = 1;
        this.drain();
        if (this.queued) this.timer = setInterval(() => this.tick(), this.tickMs);
      }
    }
    return this.drained();
  }

  drained(): Promise<void> {
    if (this.queued === 0 || this.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private tick(): void {
    const now = performance.now();
    this.allowance += (this.bytesPerSecond * (now - this.last)) / 1000;
    this.last = now;
    this.drain();
  }

  private drain(): void {
    let budget = Math.floor(this.allowance);
    while (budget > 0 && this.queue.length) {
      const head = this.queue[0]!;
      const n = Math.min(budget, head.length - this.offset);
      this.write(head.subarray(this.offset, this.offset + n));
      this.offset += n;
      budget -= n;
      this.queued -= n;
      this.allowance -= n;
      if (this.offset === head.length) {
        this.queue.shift();
        this.offset = 0;
      }
    }
    if (this.queued === 0) this.settle();
  }

  private settle(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    // Unspent allowance does not pile up while nothing waits: a later burst is paced again.
    this.allowance = 0;
    for (const w of this.waiters.splice(0)) w();
  }

  private stop(): void {
    this.queue.length = 0;
    this.queued = 0;
    this.settle();
  }
}

/** `body` at `bytesPerSecond`, for a whole answer (JSON, an error) rather than a stream. */
export function throttledBody(body: ReadableStream<Uint8Array>, bytesPerSecond: number): ReadableStream<Uint8Array> {
  const abort = new AbortController();
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const throttle = new ByteThrottle(bytesPerSecond, (b) => controller.enqueue(b.slice()), abort.signal);
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          await throttle.push(value);
          if (abort.signal.aborted) return;
        }
        controller.close();
      } catch (err) {
        controller.error(err);
      }
    },
    cancel(reason) {
      abort.abort();
      return reader.cancel(reason);
    },
  });
}
