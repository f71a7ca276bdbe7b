import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

/**
 * An answer given before the request's body came in whole (a 413 judged by Content-Length, a
 * 417, a 401 or a 400 decided from the head, with a body too large to read and drop) closes
 * the connection after it. Node closed it the moment the answer was written, while the client
 * was still sending: the kernel then resets the connection, and a client that sends its whole
 * body before it reads (Python's http.client, Node's fetch with a streamed body) lost the
 * answer to a broken pipe. So the connection lingers, as nginx's does: the answer goes, then
 * our side's end (FIN), and what the client still sends is read and dropped until it ends or
 * closes; for LINGER_MS at most, no longer than LINGER_IDLE_MS of silence, and no more than
 * LINGER_MAX_BYTES (a body announced larger is not waited for at all).
 */
export const LINGER_MS = 30_000;
export const LINGER_IDLE_MS = 5_000;
/** As much as node-server's own drain of an unread body reads. */
export const LINGER_MAX_BYTES = 64 * 1024 * 1024;

/** The events by which Node's server hands over a request with its response. */
const HANDOVER_EVENTS = new Set(['request', 'checkContinue', 'checkExpectation']);

/** Connections lingering: what they still send is dropped, not served. */
const lingering = new WeakSet<Socket>();

/** The request whose body a connection is still reading, for the connections that had one. */
const bodyOf = new WeakMap<Socket, IncomingMessage>();

export interface LingerLimits {
  lingerMs?: number;
  idleMs?: number;
  maxBytes?: number;
}

/** Makes `server` linger on connections it closes before the request's body came in whole. */
export function lingerOnEarlyClose(server: Server, limits: LingerLimits = {}): void {
  const bounds = { lingerMs: limits.lingerMs ?? LINGER_MS, idleMs: limits.idleMs ?? LINGER_IDLE_MS, maxBytes: limits.maxBytes ?? LINGER_MAX_BYTES };
  function destroySoon(this: Socket): void {
    const req = bodyOf.get(this);
    if (!req || req.complete || this.destroyed || !linger(this, req, bounds)) Socket.prototype.destroySoon.call(this);
  }
  const emit = server.emit as (this: Server, event: string | symbol, ...args: unknown[]) => boolean;
  const handOver = (server: Server, event: string, req: IncomingMessage, res: ServerResponse): boolean => {
    const socket = req.socket;
    // Parsed while the connection lingers (the parser reads on to find the body's end, and
    // goes on past it in the same chunk): its answer could never be written, so it is not
    // served either. A PUT pipelined behind a refused body must not change a schema the
    // client is never told of.
    if (lingering.has(socket)) return drop(req);
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) {
      // Node ends a connection it will not keep with destroySoon (after the answer's last write).
      if (!bodyOf.has(socket)) socket.destroySoon = destroySoon;
      bodyOf.set(socket, req);
    }
    return emit.call(server, event, req, res);
  };
  server.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (typeof event !== 'string' || !HANDOVER_EVENTS.has(event)) return emit.call(this, event, ...args);
    const [req, res] = args as [IncomingMessage, ServerResponse];
    return handOver(this, event, req, res);
  } as Server['emit'];
}

/** Reads and drops a request's body: nothing will answer it. */
function drop(req: IncomingMessage): true {
  req.removeAllListeners('data');
  req.resume();
  return true;
}

/** Lingers on `socket` after its answer, within `bounds`; false when the body announced is too large to wait for. */
function linger(socket: Socket, req: IncomingMessage, bounds: Required<LingerLimits>): boolean {
  const announced = Number(req.headers['content-length']);
  if (req.headers['transfer-encoding'] === undefined && announced > bounds.maxBytes) return false;
  // Node-server's own drain of an unread body ends with destroySoon too: once is enough.
  if (lingering.has(socket)) return true;
  lingering.add(socket);
  const since = performance.now();
  const readBefore = socket.bytesRead;
  let lastRead = readBefore;
  let lastActive = since;
  // The body's bytes go through Node's parser into a request that drops them, with no event
  // for each: the socket's count of bytes read is the sign of life, and the bound.
  const check = setInterval(
    () => {
      const now = performance.now();
      if (socket.bytesRead !== lastRead) {
        lastRead = socket.bytesRead;
        lastActive = now;
      }
      if (now - lastActive >= bounds.idleMs || now - since >= bounds.lingerMs || lastRead - readBefore > bounds.maxBytes) stop();
    },
    Math.max(10, Math.min(100, bounds.idleMs / 5)),
  );
  function stop(): void {
    clearInterval(check);
    socket.destroy();
  }
  socket.once('close', () => clearInterval(check));
  // Once the body ended, or the client ended its side, nothing more will come that needs reading.
  req.once('end', stop);
  socket.once('end', stop);
  socket.end();
  // Whatever still read the body (a web stream over it, which pauses it once its queue is
  // full and nobody reads on) is done with it: its bytes are dropped from now on, as Node's
  // own dump of an unread body does.
  drop(req);
  // A body still read through the request (not dumped by Node) is counted as it comes: the
  // bound holds to the chunk, where the check above could let a fast client past it.
  let counted = 0;
  req.on('data', (chunk: Buffer) => {
    if ((counted += chunk.length) > bounds.maxBytes) stop();
  });
  socket.resume();
  return true;
}
