import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

/**
 * An answer given before the request's body came in whole (a 413 judged by Content-Length, a
 * 417, a 401 or a 400 decided from the head, with a body too large to read and drop) closes
 * the connection after it. Node closed it the moment the answer was written, while the client
 * was still sending: the kernel then resets the connection, and a client that sends its whole
 * body before it reads (Python's http.client, Node's fetch with a streamed body) lost the
 * answer to a broken pipe. So the connection lingers, as nginx's does: the answer goes, then
 * our side's end (FIN), and what the client still sends is read and dropped, unparsed, until
 * it ends or closes its side; for LINGER_MS at most, no longer than LINGER_IDLE_MS of silence,
 * and no more than LINGER_MAX_BYTES (a body announced larger is not waited for at all).
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
    // Parsed from what came in the same read as the linger's start: its answer could never be
    // written, so it is not served either. A PUT pipelined behind a refused body must not
    // change a schema the client is never told of.
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
    // HTTP pipelining: Node hands a request over at once, its answer queued behind the one
    // before, which may close the connection (a 417, a refusal of a body it did not read) and
    // so never let it be written. A request queued so waits for its answer to get the
    // connection, as it does once the one before went and the connection stays; it is not
    // served if it never does.
    if (res.socket === null) {
      res.once('socket', () => void handOver(this, event, req, res));
      return true;
    }
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
  // What the request still held is dropped; nothing reads it any more.
  drop(req);
  lingerOn(socket, bounds);
  return true;
}

/**
 * Ends our side of `socket` (after what was written) and reads and drops what the client
 * still sends, within `bounds`, then closes it. The bytes no longer go through Node's HTTP
 * parser: a body of 1-byte chunks cost a parse and an event per chunk, and held the event
 * loop for seconds; and nothing pipelined behind it is parsed, let alone served.
 */
export function lingerOn(socket: Socket, bounds: Required<LingerLimits>): void {
  if (lingering.has(socket) || socket.destroyed) return;
  lingering.add(socket);
  let read = 0;
  // The whole bound is one timer; silence is the socket's own idle timeout, which each read
  // and write restarts (no timer of ours per connection ticking while it lingers).
  const whole = setTimeout(stop, bounds.lingerMs).unref();
  function stop(): void {
    clearTimeout(whole);
    socket.destroy();
  }
  socket.once('close', () => clearTimeout(whole));
  socket.once('end', stop);
  socket.setTimeout(bounds.idleMs, stop);
  // Node's parser reads the socket through its 'data' listener (or straight from the handle,
  // until a 'data' listener is added, which makes Node hand the bytes to listeners instead):
  // with ours alone, the bytes come here, a read at a time, and go.
  socket.removeAllListeners('data');
  socket.on('data', (chunk: Buffer) => {
    if ((read += chunk.length) > bounds.maxBytes) stop();
  });
  socket.end();
  socket.resume();
  // Node 20 stops reading under the stream when the request's buffer is full (the parser
  // reads the socket itself until a 'data' listener is added), and the stream then still
  // counts a read as pending, so resume() starts none: the client, never read, would stall and
  // lose the answer. A push of nothing is how a stream says its pending read is over (no byte
  // is added); the stream then asks for more, which starts reading again. Node 24 needs it not.
  socket.push(Buffer.alloc(0));
}
