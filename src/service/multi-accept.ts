/**
 * More than one accepted connection per turn of the event loop, as nginx's `multi_accept`.
 *
 * libuv takes one connection from a listening socket each time epoll says it is ready: one per
 * turn of the loop, on Node 20 (libuv 1.46) and Node 24 (1.52) alike. While a thousand run
 * streams are being written a turn lasts 1 to 3 ms, and in `npm run bench:load` clients'
 * connections waited up to 660 ms in the kernel's accept queue (300 queued at once, seen with
 * `ss -ltn`), their requests unread: most of the slow first event's p99, with the service's own
 * loop a third idle over the phase.
 *
 * A handle sent over an IPC channel arrives as a new descriptor of the same socket. A
 * short-lived child process sends the server's back `copies` times; each copy is listened on by
 * a net.Server that hands its connections to the HTTP server (`'connection'`, as Node documents
 * for injected sockets). epoll reports every copy, so a turn accepts up to `copies + 1`
 * connections; when fewer are queued, the other copies' accept() gets EAGAIN inside libuv and no
 * JavaScript runs.
 *
 * Not `reusePort` (Node 22.12+): each listener there is a socket of its own, and a second
 * process of the same user listening on the port with it too would silently get a share of the
 * connections, where a copy is the one socket, and a second service on the port still fails
 * with EADDRINUSE; and Vite listens on the console's server itself, without it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type http from 'node:http';
import net from 'node:net';

/** The child: sends each server it is given back as many times as asked, until the parent lets go of it. */
const COPIER = "process.on('message', (m, server) => { if (server) for (let i = 0; i < m.copies; i++) process.send('copy', server); });";

export interface AcceptManyOptions {
  /** Copies of the listening socket besides the server's own: up to this many more connections a turn. */
  copies: number;
  /** The server's listen backlog: listening on a copy sets the socket's backlog again. */
  backlog: number;
  /** The child has this long to send the copies back; the server then goes on with those it got. */
  timeoutMs?: number;
}

/**
 * Gives a listening TCP HTTP server `copies` more descriptors to accept on. Resolves with how
 * many it got: 0 where it cannot (Windows, a pipe, a child that fails or cannot be spawned),
 * and the server accepts as before. Connections taken on a copy are the server's own:
 * getConnections() counts them, maxConnections caps them with the others, and close() stops
 * every copy at once and calls back (and emits 'close') only once they have ended too.
 */
export function acceptMany(server: http.Server, { copies, backlog, timeoutMs = 10_000 }: AcceptManyOptions): Promise<number> {
  const address = server.address();
  if (copies < 1 || process.platform === 'win32' || !server.listening || typeof address !== 'object' || address === null) return Promise.resolve(0);

  const env = { ...process.env };
  // The child needs no loader or flag of the parent's (tsx, a heap size): a bare node starts fastest.
  delete env.NODE_OPTIONS;
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, ['-e', COPIER], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env });
  } catch {
    // Node throws at once for some failures (E2BIG, ENOMEM on a loaded machine): one accept a turn, as before.
    return Promise.resolve(0);
  }

  const extras: net.Server[] = [];
  const held = countConnections(server);
  let closing = false;
  // Each copy counts the connections it took, as Node counts the server's own; an extra's close
  // calls back once its connections have ended.
  const extrasClosed = () => Promise.all(extras.map((extra) => new Promise<void>((resolve) => extra.close(() => resolve()))));
  let drained: Promise<unknown> | undefined;
  const close = server.close;
  server.close = function (this: http.Server, callback?: (err?: Error) => void) {
    closing = true;
    child.kill();
    drained ??= extrasClosed();
    return close.call(this, callback);
  } as typeof server.close;
  // Node says 'close' (and calls close()'s callback) once the connections its own descriptor
  // took have ended: it waits for those on the copies too (the console's server closes its
  // store on 'close').
  const emit = server.emit as (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
  server.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event !== 'close' || !drained) return emit.call(this, event, ...args);
    void drained.then(() => emit.call(this, event, ...args));
    return this.listenerCount('close') > 0;
  } as typeof server.emit;
  const getConnections = server.getConnections;
  server.getConnections = function (this: http.Server, callback: (err: Error | null, count: number) => void) {
    const count = (of: (callback: (err: Error | null, n: number) => void) => unknown) =>
      new Promise<number>((resolve, reject) => of((err, n) => (err ? reject(err) : resolve(n))));
    const counts = [count((cb) => getConnections.call(this, cb)), ...extras.map((extra) => count((cb) => extra.getConnections(cb)))];
    Promise.all(counts).then(
      (ns) => callback(null, ns.reduce((a, b) => a + b, 0)),
      (err: Error) => callback(err, 0),
    );
    return this;
  } as typeof server.getConnections;

  return new Promise<number>((resolve) => {
    let finished = false;
    const done = () => {
      finished = true;
      clearTimeout(timer);
      // Letting go of the channel ends the child, and with it its own descriptor of the socket;
      // copies still in the channel are let go of by the kernel with it.
      if (child.connected) child.disconnect();
      child.kill();
      resolve(extras.length);
    };
    const timer = setTimeout(done, timeoutMs);
    timer.unref();
    child.on('error', done);
    child.on('exit', done);
    child.on('message', (_message: unknown, copy?: net.Server) => {
      if (!(copy instanceof net.Server)) return;
      // A copy that comes too late (the server closed, the wait over) is let go of, not left open unseen.
      if (closing || finished) return void copy.close();
      // Sockets made as an HTTP server with Node's default socket options makes them (the
      // CLI's, Vite's and the bench's are): half-open allowed, Nagle off (an SSE event is not
      // held back).
      const extra = net.createServer({ allowHalfOpen: true, noDelay: true });
      extra.on('connection', (socket: net.Socket) => {
        if (held.full()) return void drop(server, socket);
        server.emit('connection', socket);
      });
      // An accept error (ENOBUFS, ENOMEM) is the queue's, which the server's own descriptor
      // meets too and reports as before: not once more per copy, and not to a server with no
      // listener left for it.
      extra.on('error', () => {});
      // Listening on a server's handle, as Node documents: the copy's descriptor, its backlog set
      // again (Node listened on it with its default 511 as it arrived).
      extra.listen(copy, backlog);
      // The copies must not hold the process open once the server lets it go.
      extra.unref();
      extras.push(extra);
      if (extras.length === copies) done();
    });
    child.send({ copies }, server);
  });
}

/**
 * The connections `server` holds, whichever descriptor took them, known at once (getConnections
 * answers a tick later): maxConnections caps them all, where Node caps the ones its own
 * descriptor took. One over the cap is dropped as Node drops it.
 */
function countConnections(server: http.Server): { full(): boolean } {
  const open = new Set<net.Socket>();
  const full = () => Boolean(server.maxConnections) && open.size >= server.maxConnections;
  server.on('connection', (socket: net.Socket) => {
    // On the server's own descriptor, Node let it in counting its own connections alone.
    if (full()) return void drop(server, socket);
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return { full };
}

function drop(server: net.Server, socket: net.Socket): void {
  const { localAddress, localPort, localFamily, remoteAddress, remotePort, remoteFamily } = socket;
  server.emit('drop', { localAddress, localPort, localFamily, remoteAddress, remotePort, remoteFamily });
  socket.destroy();
}
