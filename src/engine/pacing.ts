/**
 * The one retry and pacing policy of every request the engine sends for a run (create, read,
 * decide, cancel), for the page and `npm run suite` alike.
 *
 * - A 429 or 503 is the service asking to wait: with `Retry-After`, that long; without, a back-off
 *   with full jitter. The wait holds every request of the connection, not only the refused one:
 *   a rate limit counts the client's requests, and the others would only be refused too.
 * - A request that never got an answer (a network error) is tried again only when asked
 *   (`network: true`): a read, a decision (the service answers the same decisions twice with the
 *   current snapshot, and stale ones 409), a cancellation. Never a run's creation: a second POST
 *   is a second run.
 * - A connection's budget: at most `maxInFlight` requests at once and, when set, `maxRps` a second.
 * - Every wait ends at once when the caller's signal aborts; a wait longer than `maxWaitMs` is
 *   not waited: the refusal stands (the page says how long the service asked for). So is a wait
 *   that would take one request's waits past `maxWaitMs` in all: a service answering
 *   "Retry-After: 120" forever would otherwise hold a Cancel for `maxAttempts` times as long.
 */
import { ApiError, NOT_CONNECTED } from '../lib/api-client';
import { retryAfterSeconds } from '../lib/retry-after';

export interface PacingOptions {
  /** Requests a second to one connection at most (`--max-rps`); none by default: the service's 429s pace it. */
  maxRps?: number;
  /** Requests in flight to one connection at once. */
  maxInFlight?: number;
  /** Tries of one request refused for a temporary reason, the first included. */
  maxAttempts?: number;
  /** The longest wait honoured, and the longest one request is kept waiting in all; past it the refusal stands. */
  maxWaitMs?: number;
  /** Back-off without `Retry-After`: the first wait's ceiling, doubling up to `capDelayMs`. */
  baseDelayMs?: number;
  capDelayMs?: number;
  /** For tests: a source of randomness in [0, 1) and the clock. */
  random?: () => number;
  now?: () => number;
}

export const DEFAULT_PACING: Required<Omit<PacingOptions, 'maxRps' | 'random' | 'now'>> = {
  maxInFlight: 6,
  maxAttempts: 8,
  maxWaitMs: 120_000,
  baseDelayMs: 500,
  capDelayMs: 30_000,
};

/** Statuses that say "not now": the request was not acted on, so sending it again is safe. */
export const TEMPORARY_STATUSES = [429, 503];

export interface PacedRequest {
  /** Whether a request that got no answer may be sent again (reads, decisions, cancellations). */
  network?: boolean;
  /** Whether a 429 or 503 is waited out and the request sent again (false: the refusal is the answer, as for a run the user sent). */
  temporary?: boolean;
  signal?: AbortSignal;
  /** Epoch ms past which it is not sent again: a refusal whose wait would end later stands (a suite case's deadline). */
  until?: number;
}

/** Why a paced request's wait ended early: the caller's signal. */
export class PacingAborted extends Error {
  constructor() {
    super('The request was cancelled while it waited its turn.');
    this.name = 'PacingAborted';
  }
}

/** Waits `ms`, or less when `signal` aborts (then rejects with PacingAborted). */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new PacingAborted());
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => {
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    const t = setTimeout(done, ms);
    const stop = () => {
      clearTimeout(t);
      reject(new PacingAborted());
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}

/** How long the service asked to wait (ms), from an error's `Retry-After`; undefined when it did not say. */
export function retryAfterMs(error: ApiError, now = Date.now()): number | undefined {
  const s = retryAfterSeconds(error.header('retry-after'), now);
  return s === undefined ? undefined : s * 1000;
}

/**
 * The requests of one connection (one base URL and token). Each request waits for its turn
 * (the budget, and any wait the service asked of the connection), is sent, and is sent again
 * while the service says "not now" and the policy allows.
 */
export class Pacer {
  private readonly o: Required<Omit<PacingOptions, 'maxRps'>> & { maxRps?: number };
  /** No request of this connection goes out before this time (a Retry-After, a back-off). */
  private heldUntil = 0;
  private inFlight = 0;
  private readonly queue: (() => void)[] = [];
  /** When the next request may go out under `maxRps`. */
  private nextSlot = 0;
  /** Requests sent again after a temporary refusal or no answer. */
  retries = 0;

  constructor(options: PacingOptions = {}) {
    this.o = { ...DEFAULT_PACING, random: Math.random, now: Date.now, ...options };
  }

  /** Sends `attempt` in its turn, again after a temporary refusal, as the request's kind allows. */
  async send<T>(attempt: () => Promise<T>, request: PacedRequest = {}): Promise<T> {
    let waited = 0;
    for (let tries = 1; ; tries++) {
      await this.turn(request.signal);
      let result: T;
      try {
        result = await attempt();
      } catch (err) {
        this.release();
        const wait = this.waitAfter(err, tries, request);
        if (wait === undefined) throw err;
        // The connection is held either way: the service asked it of every request.
        this.hold(wait);
        waited += wait;
        if (waited > this.o.maxWaitMs) throw err;
        this.retries++;
        continue;
      }
      this.release();
      return result;
    }
  }

  /** The wait before trying again, or undefined when the error is the answer. */
  private waitAfter(err: unknown, tries: number, request: PacedRequest): number | undefined {
    if (!(err instanceof ApiError) || err.kind === 'aborted' || request.signal?.aborted) return undefined;
    if (tries >= this.o.maxAttempts) return undefined;
    const temporary = err.kind === 'http' && TEMPORARY_STATUSES.includes(err.status);
    const unanswered = err.kind === 'network' && err.code !== NOT_CONNECTED;
    if (!(temporary && request.temporary !== false) && !(unanswered && request.network)) return undefined;
    const asked = temporary ? retryAfterMs(err, this.o.now()) : undefined;
    // "Retry-After: 0" to every try is a loop, not a pace: it is backed off like no Retry-After at all.
    const wait = asked ? asked : this.backoff(tries);
    if (request.until !== undefined && this.o.now() + wait > request.until) return undefined;
    return wait > this.o.maxWaitMs ? undefined : wait;
  }

  /** Full jitter: a random wait up to the doubled ceiling, so many clients refused together do not come back together. */
  private backoff(tries: number): number {
    const ceiling = Math.min(this.o.capDelayMs, this.o.baseDelayMs * 2 ** (tries - 1));
    return Math.round(this.o.random() * ceiling);
  }

  /** Holds every request of the connection for `ms` from now (never shortening a longer hold). */
  hold(ms: number): void {
    this.heldUntil = Math.max(this.heldUntil, this.o.now() + ms);
  }

  private async turn(signal?: AbortSignal): Promise<void> {
    // A slot freed while others wait is handed to the first of them (release), never taken back by
    // whoever asks next: a request sent again after a refusal joins the queue like any other.
    if (this.inFlight >= this.o.maxInFlight || this.queue.length > 0) {
      await new Promise<void>((resolve, reject) => {
        const go = () => {
          signal?.removeEventListener('abort', stop);
          resolve();
        };
        const stop = () => {
          const i = this.queue.indexOf(go);
          if (i >= 0) this.queue.splice(i, 1);
          reject(new PacingAborted());
        };
        if (signal?.aborted) return stop();
        this.queue.push(go);
        signal?.addEventListener('abort', stop, { once: true });
      });
    } else this.inFlight++;
    try {
      // Waits until neither a hold nor the rate stands in the way; a hold set meanwhile is waited too.
      for (;;) {
        const now = this.o.now();
        const at = Math.max(this.heldUntil, this.o.maxRps ? this.nextSlot : 0);
        if (at <= now) break;
        await pause(at - now, signal);
      }
      if (this.o.maxRps) this.nextSlot = Math.max(this.o.now(), this.nextSlot) + 1000 / this.o.maxRps;
    } catch (err) {
      this.release();
      throw err;
    }
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.inFlight--;
  }
}
