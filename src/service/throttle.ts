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
 *
 * `write` answering false says the transport under it is full: nothing more leaves, and the
 * clock gives no allowance, until `waitDrain` resolves. A client that reads nothing then
 * holds the queue where it is: the bytes stay with the producer, which waits, instead of
 * piling up in the socket's buffer at N a second.
 */
export class ByteThrottle {
  private readonly queue: Uint8Array[] = [];
  private offset = 0;
  private queued = 0;
  private allowance = 0;
  private last = 0;
  private full = false;
  private timer: NodeJS.Timeout | undefined;
  private waiters: (() => void)[] = [];
  private readonly tickMs: number;

  constructor(
    private readonly bytesPerSecond: number,
    private readonly write: (bytes: Uint8Array) => boolean | void,
    private readonly signal: AbortSignal,
    private readonly waitDrain?: () => Promise<void>,
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
      if (!this.timer && !this.full) {
        this.last = performance.now();
        // One byte leaves at once, the rest on the clock: an event that comes after a pause
        // takes as long to arrive as it would on a slow network, not a tick's worth at once.
        this.allowance = 1;
        this.drain();
        if (this.queued && !this.timer) this.timer = setInterval(() => this.tick(), this.tickMs);
      }
    }
    return this.drained();
  }

  drained(): Promise<void> {
    if ((this.queued === 0 && !this.full) || this.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private tick(): void {
    const now = performance.now();
    if (!this.full) this.allowance += (this.bytesPerSecond * (now - this.last)) / 1000;
    this.last = now;
    this.drain();
  }

  private drain(): void {
    let budget = Math.floor(this.allowance);
    while (budget > 0 && this.queue.length && !this.full) {
      const head = this.queue[0]!;
      const n = Math.min(budget, head.length - this.offset);
      const accepted = this.write(head.subarray(this.offset, this.offset + n));
      this.offset += n;
      budget -= n;
      this.queued -= n;
      this.allowance -= n;
      if (this.offset === head.length) {
        this.queue.shift();
        this.offset = 0;
      }
      if (accepted === false && this.waitDrain) this.pauseUntilDrained(this.waitDrain);
    }
    if (this.queued === 0) this.settle();
  }

  private pauseUntilDrained(waitDrain: () => Promise<void>): void {
    this.full = true;
    void waitDrain().then(() => {
      this.full = false;
      // The clock starts again from here: the time spent full is no allowance for a burst.
      this.last = performance.now();
      if (this.queued === 0) this.settle();
    });
  }

  private settle(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    // Unspent allowance does not pile up while nothing waits: a later burst is paced again.
    this.allowance = 0;
    if (this.full) return;
    for (const w of this.waiters.splice(0)) w();
  }

  private stop(): void {
    this.queue.length = 0;
    this.queued = 0;
    this.full = false;
    this.settle();
  }
}

/**
 * `body` at `bytesPerSecond`, for a whole answer (JSON, an error) rather than a stream. Bytes
 * are taken from `body` only as the reader asks for them (a stream with no queue of its own):
 * a client that stops reading stops the pacing, and no second copy of the answer builds up.
 */
export function throttledBody(body: ReadableStream<Uint8Array>, bytesPerSecond: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const tickMs = tickMsOf(bytesPerSecond);
  // A tick's worth at most: a reader that was slow to ask gets no burst for the time it took.
  const most = Math.max(1, Math.floor((bytesPerSecond * tickMs) / 1000));
  let head: Uint8Array | undefined;
  let offset = 0;
  let allowance = 1;
  let last: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  let cancelled = false;
  const accrue = () => {
    const now = performance.now();
    allowance = Math.min(most, allowance + (last === undefined ? 0 : (bytesPerSecond * (now - last)) / 1000));
    last = now;
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (!head || offset === head.length) {
          const { done, value } = await reader.read();
          if (cancelled) return;
          if (done) return controller.close();
          head = value;
          offset = 0;
        }
        accrue();
        while (allowance < 1) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, tickMs);
          });
          if (cancelled) return;
          accrue();
        }
        const n = Math.min(Math.floor(allowance), head.length - offset);
        controller.enqueue(head.slice(offset, offset + n));
        offset += n;
        allowance -= n;
      },
      cancel(reason) {
        cancelled = true;
        clearTimeout(timer);
        wake?.();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
