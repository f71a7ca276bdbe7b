import type { Context, MiddlewareHandler } from 'hono';
import { hashToken, type Store } from './store.ts';
import type { Env } from './http.ts';

/** Reads `Authorization: Bearer <token>`; anything else counts as no token. */
export function bearerToken(c: Context): string | undefined {
  const header = c.req.header('authorization');
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

/**
 * Resolves the bearer token to its record, or answers with the family's 401.
 * The token itself is never stored on the context, logged, or echoed.
 */
export function authenticate(store: Store, refuse: (c: Context<Env>, why: string) => Response): MiddlewareHandler<Env> {
  return async (c, next) => {
    const token = bearerToken(c);
    if (!token) return refuse(c, 'No bearer token: send Authorization: Bearer <token>.');
    // Hashed once: the lookup and the rate limit's key both use the hash.
    const hash = hashToken(token);
    const key = hash.toString('hex');
    const record = store.findTokenByHash(hash, key);
    if (!record) return refuse(c, 'The bearer token is not known to this service.');
    c.set('token', record);
    c.set('tokenKey', key);
    await next();
  };
}

/**
 * A fixed-window limit per token, so the sandbox shows what a 429 with Retry-After looks
 * like. `perMinute: 0` turns it off (benchmarks). One limiter may serve several ways in (the
 * custom-metadata routes and the prepared schema reads share one), so a token's count is one.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(readonly perMinute: number) {}

  /** Counts a request of `tokenKey`: 0 when it may go on, else the seconds until it may. */
  take(tokenKey: string): number {
    if (this.perMinute <= 0) return 0;
    const now = Date.now();
    let w = this.windows.get(tokenKey);
    if (!w || now - w.start >= 60_000) {
      w = { start: now, count: 0 };
      this.windows.set(tokenKey, w);
    }
    w.count++;
    return w.count > this.perMinute ? Math.max(1, Math.ceil((w.start + 60_000 - now) / 1000)) : 0;
  }
}

export function rateLimit(limit: number | RateLimiter, refuse: (c: Context<Env>, retryAfter: number) => Response): MiddlewareHandler<Env> {
  const limiter = typeof limit === 'number' ? new RateLimiter(limit) : limit;
  return async (c, next) => {
    const retryAfter = limiter.take(c.get('tokenKey'));
    if (retryAfter > 0) {
      c.header('Retry-After', String(retryAfter));
      return refuse(c, retryAfter);
    }
    await next();
  };
}
