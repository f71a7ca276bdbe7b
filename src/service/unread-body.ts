import type { IncomingMessage } from 'node:http';

/**
 * Requests that asked `Expect: 100-continue` and were not told to go on yet: their client
 * holds the body back, so reading it would only make the server say 100 Continue for a body
 * it drops. Such a request is answered with the connection closed instead.
 */
export const awaitingContinue = new WeakSet<IncomingMessage>();

/**
 * A request refused before its body was read (a 401 for a missing token, a 400 for a bad
 * group name, a proxy refusal) leaves that body on the connection. Answering
 * `Connection: keep-alive` and then closing (as node-server does once its drain gives up)
 * breaks the client's next request on the socket. So before answering: a body of known
 * length within `limit` is read and dropped, and the connection stays usable; any other
 * (larger, or chunked) is not waited for, and the answer says `Connection: close`.
 *
 * `web` is the request as the app saw it, when there was one: once node-server has made
 * its body stream, the bytes must be read from that stream, not from the socket's.
 * Answers true when the connection may be kept.
 */
export async function settleUnreadBody(req: IncomingMessage, limit: number, web?: Request): Promise<boolean> {
  const length = Number(req.headers['content-length'] ?? 0);
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if ((!chunked && !(length > 0)) || req.readableEnded || req.destroyed) return true;
  if (awaitingContinue.has(req)) return false;
  if (web?.bodyUsed) return req.complete;
  if (chunked || length > limit) return false;
  if (web?.body) {
    try {
      const reader = web.body.getReader();
      while (!(await reader.read()).done);
      return true;
    } catch {
      return false;
    }
  }
  return new Promise<boolean>((resolve) => {
    const done = (ok: boolean) => () => {
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      req.off('data', drop);
      resolve(ok);
    };
    const onEnd = done(true);
    const onClose = done(false);
    const drop = () => {};
    req.on('end', onEnd);
    req.on('close', onClose);
    req.on('error', onClose);
    // A 'data' listener rather than resume() alone: the bytes are read and dropped as they come.
    req.on('data', drop);
  });
}
