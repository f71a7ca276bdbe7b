import type { IncomingMessage, Server } from 'node:http';
import { Socket } from 'node:net';

/**
 * An answer given before the request's body came in whole (a 413 judged by Content-Length, a
 * 401 or a 400 decided from the head, with a body too large to read and drop) closes the
 * connection after it. Node closed it the moment the answer was written, while the client
 * was still sending: the kernel then resets the connection, and a client that sends its
 * whole body before it reads (Python's http.client, Node's fetch with a large body) lost
 * the answer to a broken pipe. So the connection lingers, as nginx's does: the answer goes,
 * then our side's end (FIN), and what the client still sends is read and dropped until it
 * ends or closes; for LINGER_MS at most, and no longer than LINGER_IDLE_MS of silence.
 */
export const LINGER_MS = 30_000;
export const LINGER_IDLE_MS = 5_000;

/** The events by which Node's server hands over a request (with its response). */
const PIPELINED_EVENTS = new Set(['request', 'checkContinue', 'checkExpectation']);

/** Connections lingering: what they still send is dropped, not served. */
const lingering = new WeakSet<Socket>();

/** The request whose body a connection is still reading, for the connections that had one. */
const bodyOf = new WeakMap<Socket, IncomingMessage>();

/** Makes `server` linger on connections it closes before the request's body came in whole. */
export function lingerOnEarlyClose(server: Server, timing: { lingerMs?: number; idleMs?: number } = {}): void {
  const lingerMs = timing.lingerMs ?? LINGER_MS;
  const idleMs = timing.idleMs ?? LINGER_IDLE_MS;
  function destroySoon(this: Socket): void {
    const req = bodyOf.get(this);
    if (!req || req.complete || this.destroyed) return Socket.prototype.destroySoon.call(this);
    linger(this, req, lingerMs, idleMs);
  }
  // Requests pipelined behind the body are parsed while the connection lingers (the parser
  // reads on to find the body's end, and goes on past it in the same chunk). Their answers
  // could never be written, so they are not served either: a PUT sent after a refused body
  // must not change a schema that the client is never told about.
  const emit = server.emit;
  server.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (typeof event === 'string' && PIPELINED_EVENTS.has(event) && lingering.has((args[0] as IncomingMessage).socket)) {
      const req = args[0] as IncomingMessage;
      req.removeAllListeners('data');
      req.resume();
      return true;
    }
    return (emit as (this: Server, event: string | symbol, ...args: unknown[]) => boolean).call(this, event, ...args);
  } as Server['emit'];
  server.on('request', (req: IncomingMessage) => {
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return;
    const socket = req.socket;
    // Node ends a connection it will not keep with destroySoon (after the answer's last write).
    if (!bodyOf.has(socket)) socket.destroySoon = destroySoon;
    bodyOf.set(socket, req);
  });
}

function linger(socket: Socket, req: IncomingMessage, lingerMs: number, idleMs: number): void {
  // Node-server's own drain of an unread body ends with destroySoon too: once is enough.
  if (lingering.has(socket)) return;
  lingering.add(socket);
  const since = performance.now();
  let lastRead = socket.bytesRead;
  let lastActive = since;
  // The body's bytes go through Node's parser into a request that drops them, with no event
  // for each: the socket's count of bytes read is the sign of life.
  const check = setInterval(
    () => {
      const now = performance.now();
      if (socket.bytesRead !== lastRead) {
        lastRead = socket.bytesRead;
        lastActive = now;
      }
      if (now - lastActive >= idleMs || now - since >= lingerMs) stop();
    },
    Math.max(10, Math.min(1_000, idleMs / 5)),
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
  req.removeAllListeners('data');
  req.resume();
  socket.resume();
}
