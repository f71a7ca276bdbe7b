import type { MiddlewareHandler } from 'hono';
import { bodyLimit as honoBodyLimit } from 'hono/body-limit';

/**
 * Hono's `bodyLimit`, skipped for GET and HEAD. Those requests have no body (node-server
 * gives them none), and the first thing `bodyLimit` does is ask for `c.req.raw.body`,
 * which makes node-server build a whole web `Request` (headers, AbortSignal) for the
 * request: most of the cost of a schema GET. Other methods are checked as before.
 */
export function bodyLimit(options: Parameters<typeof honoBodyLimit>[0]): MiddlewareHandler {
  const limit = honoBodyLimit(options);
  return (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limit(c, next));
}
