/**
 * More than one accepted connection per turn of the event loop, as nginx's `multi_accept`.
 *
 * libuv (1.46, in Node 20) takes one connection from a listening socket each time epoll says
 * it is ready: one per turn of the loop. While a thousand run streams are being written a turn
 * lasts 1 to 3 ms, and in `npm run bench:load` clients' connections waited up to 660 ms in the
 * kernel's accept queue (300 queued at once, seen with `ss -ltn`), their requests unread: most
 * of the slow first event's p99, with the service's own loop a third idle over the phase.
 *
 * Node 20 can neither open a second listening socket on the port (`reusePort` came in Node
 * 22.12) nor duplicate a descriptor, but a handle sent over an IPC channel arrives as a new
 * descriptor of the same socket. A short-lived child process sends ours back `copies` times;
 * each copy is listened on by a net.Server that hands its connections to the HTTP server as
 * the HTTP server's own (`'connection'`, as Node documents for injected sockets). epoll reports
 * every copy, so a turn accepts up to `copies + 1` connections; when fewer are queued, the
 * other copies' accept() gets EAGAIN inside libuv and no JavaScript runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

/** The child: sends each handle it is given back as many times as asked, until the parent lets go of it. */
const COPIER = "process.on('message', (m, h) => { if (h) for (let i = 0; i < m.copies; i++) process.send('copy', h); });";

/** What net.Server's accept reads from the server to make each socket (Node's lib/net.js, `onconnection`). */
const SOCKET_SETTINGS = ['allowHalfOpen', 'pauseOnConnect', 'noDelay', 'keepAlive', 'keepAliveInitialDelay', 'highWaterMark'] as const;

export interface AcceptManyOptions {
  /** Copies of the listening socket besides the server's own: up to this many more connections a turn. */
  copies: number;
  /** The server's listen backlog: listening on a copy sets the socket's backlog again. */
  backlog: number;
  /** The child has this long to send the copies back; the server then goes on with those it got. */
  timeoutMs?: number;
}

interface Native {
  close(): void;
}

/** What net.Server keeps of its connections (Node's lib/net.js): counted where `close` waits for them. */
interface Counting {
  _connections: number;
}

/**
 * Gives a listening TCP server `copies` more descriptors to accept on. Resolves with how many it
 * got: 0 where it cannot (Windows, a pipe, a child that fails or cannot be spawned), and the
 * server accepts as before. Closing the server closes the copies at once: no connection is
 * accepted after `close()`.
 */
export function acceptMany(server: net.Server, { copies, backlog, timeoutMs = 10_000 }: AcceptManyOptions): Promise<number> {
  const handle = (server as unknown as { _handle?: Native | null })._handle;
  const address = server.address();
  if (copies < 1 || process.platform === 'win32' || !handle || typeof address !== 'object' || address === null) return Promise.resolve(0);

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
  let closed = false;
  const close = server.close;
  server.close = function (this: net.Server, callback?: (err?: Error) => void) {
    closed = true;
    for (const extra of extras) extra.close();
    child.kill();
    return close.call(this, callback);
  } as typeof server.close;

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
    child.on('message', (_message: unknown, copy?: Native) => {
      if (!copy) return;
      // A copy that comes too late (the server closed, the wait over) is let go of, not left open unseen.
      if (closed || finished) return void copy.close();
      const extra = net.createServer();
      // A socket accepted on a copy is made as the server would make it: half-open allowed for
      // HTTP, Nagle off (an SSE event is not held back), the same keep-alive and buffer sizes.
      for (const key of SOCKET_SETTINGS) (extra as unknown as Record<string, unknown>)[key] = (server as unknown as Record<string, unknown>)[key];
      extra.on('connection', (socket: net.Socket) => {
        // Counted as the server's own, not the copy's: getConnections(), maxConnections, and
        // close() and 'close', which wait for the server's connections to end.
        const own = server as unknown as Counting;
        if (server.maxConnections && own._connections >= server.maxConnections) {
          const { localAddress, localPort, localFamily, remoteAddress, remotePort, remoteFamily } = socket;
          server.emit('drop', { localAddress, localPort, localFamily, remoteAddress, remotePort, remoteFamily });
          return void socket.destroy();
        }
        (extra as unknown as Counting)._connections--;
        own._connections++;
        (socket as unknown as { _server: net.Server })._server = server;
        server.emit('connection', socket);
      });
      // An accept error (ENOBUFS, ENOMEM) is the queue's, which the server's own descriptor
      // meets too and reports as before: not once more per copy, and not to a server with no
      // listener left for it.
      extra.on('error', () => {});
      extra.listen(copy, backlog);
      // The copies must not hold the process open once the server lets it go.
      extra.unref();
      extras.push(extra);
      if (extras.length === copies) done();
    });
    child.send({ copies }, handle as unknown as net.Server);
  });
}
