import type { MiddlewareHandler } from 'hono';
import { bodyLimit as honoBodyLimit } from 'hono/body-limit';

/**
 * Hono's `bodyLimit`, without its cost where the answer is already known. GET and HEAD
 * have no body (node-server gives them none); a body with a Content-Length (and no
 * Transfer-Encoding, as Hono checks) is judged by that header, which Node's parser holds
 * the body to. Either way Hono's middleware would first ask for `c.req.raw.body`, which
 * makes node-server build a whole web `Request` (headers, AbortSignal, a ReadableStream
 * over the socket) and takes the body off node-server's direct read: most of the cost of
 * a schema GET, and about a fifth of a run's start. Chunked bodies are counted by Hono.
 */
export function bodyLimit(options: Parameters<typeof honoBodyLimit>[0]): MiddlewareHandler {
  const limit = honoBodyLimit(options);
  return (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined && /^\d+$/.test(length.trim())) {
      return Number(length) > options.maxSize ? limit(c, next) : next();
    }
    return limit(c, next);
  };
}
