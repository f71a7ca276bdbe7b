import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, expect, test, vi } from 'vitest';
import { createService } from './app.ts';
import { acceptMany } from './multi-accept.ts';
import { ACCEPT_COPIES, listen } from './node.ts';

const HOST = '127.0.0.1';
const BURST = 40;
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function listening(handler: http.RequestListener = (_req, res) => res.end('ok')): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen({ port: 0, host: HOST, backlog: 512 }, resolve));
  cleanup.push(() => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())));
  return { server, port: (server.address() as AddressInfo).port };
}

/** Counts turns of the event loop (a setImmediate chain) and notes the turn of each 'connection'. */
function turnsOfConnections(server: net.Server) {
  let turn = 0;
  let running = true;
  const tick = () => {
    turn++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const turns: number[] = [];
  const onConnection = () => turns.push(turn);
  server.on('connection', onConnection);
  cleanup.push(() => {
    running = false;
    server.off('connection', onConnection);
  });
  return turns;
}

/** Per turn, how many connections it took, in order. */
const perTurn = (turns: number[]) => [...turns.reduce((m, t) => m.set(t, (m.get(t) ?? 0) + 1), new Map<number, number>()).values()];

/**
 * `BURST` connections queued in the kernel while this process's loop is held: a child connects
 * them all (the kernel completes each handshake) and exits, and this process runs nothing
 * meanwhile (execFileSync). They are then accepted as the loop turns.
 */
function queueBurst(port: number): void {
  const script = `const net = require('net'); let n = 0; for (let i = 0; i < ${BURST}; i++) net.connect(${port}, '${HOST}', () => { if (++n === ${BURST}) process.exit(0); });`;
  execFileSync(process.execPath, ['-e', script], { env: { PATH: process.env.PATH }, timeout: 30_000 });
}

/** Waits up to 10 s for `ok`; says whether it came. */
const until = async (ok: () => boolean) => {
  const end = Date.now() + 10_000;
  while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
  return ok();
};

const accepted = async (turns: number[], count: number) => {
  const end = Date.now() + 10_000;
  while (turns.length < count && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
  return turns.length;
};

test('a burst of queued connections is taken in up to copies + 1 a turn of the loop, where Node alone takes one', async () => {
  // The premise: without copies, libuv accepts one connection a turn (Node 20's 1.46 and Node 24's 1.52 alike).
  const alone = await listening();
  const aloneTurns = turnsOfConnections(alone.server);
  queueBurst(alone.port);
  expect(await accepted(aloneTurns, BURST)).toBe(BURST);
  expect(Math.max(...perTurn(aloneTurns))).toBe(1);

  const copied = await listening();
  expect(await acceptMany(copied.server, { copies: 7, backlog: 512 })).toBe(7);
  const copiedTurns = turnsOfConnections(copied.server);
  queueBurst(copied.port);
  expect(await accepted(copiedTurns, BURST)).toBe(BURST);
  const counts = perTurn(copiedTurns);
  // Eight descriptors of the one socket: eight accepts a turn at most, and the 40 in a few turns.
  expect(Math.max(...counts)).toBe(8);
  expect(counts.length).toBeLessThanOrEqual(BURST / 8 + 2);
});

test("connections taken on a copy are the HTTP server's own: answered, half-open allowed, Nagle off", async () => {
  const seen: { allowHalfOpen: boolean }[] = [];
  const { server, port } = await listening((req, res) => {
    seen.push({ allowHalfOpen: req.socket.allowHalfOpen });
    res.end(`answered ${req.url}`);
  });
  // The copies' servers make sockets as the HTTP server does: Nagle off is said where they are made.
  const createServer = net.createServer;
  const made: unknown[] = [];
  vi.spyOn(net, 'createServer').mockImplementation(((...args: Parameters<typeof net.createServer>) => (made.push(args[0]), createServer(...args))) as typeof net.createServer);
  expect(await acceptMany(server, { copies: 7, backlog: 512 })).toBe(7);
  expect(made).toEqual(Array(7).fill({ allowHalfOpen: true, noDelay: true }));
  const turns = turnsOfConnections(server);
  // A child sends BURST requests at once while this loop is held for a moment, so that they queue
  // and most are taken on the copies; it prints what it was answered.
  const script = `
    const http = require('http');
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const answers = [];
    for (let i = 0; i < ${BURST}; i++) http.get({ host: '${HOST}', port: ${port}, path: '/' + i, agent }, (res) => {
      let text = ''; res.setEncoding('utf8'); res.on('data', (c) => (text += c));
      res.on('end', () => { answers.push(res.statusCode + ' ' + text); if (answers.length === ${BURST}) { console.log(JSON.stringify(answers)); process.exit(0); } });
    }).on('error', (e) => { console.error(e.message); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', script], { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const until = Date.now() + 300;
  while (Date.now() < until);
  expect(await exited).toBe(0);
  const answers = JSON.parse(out) as string[];
  expect(answers.sort()).toEqual(Array.from({ length: BURST }, (_, i) => `200 answered /${i}`).sort());
  expect(Math.max(...perTurn(turns))).toBeGreaterThan(1);
  expect(seen).toEqual(Array(BURST).fill({ allowHalfOpen: true }));
});

/** The inode of the socket listening on `port` (/proc/net/tcp), and how many of this process's descriptors are it. */
function descriptorsOf(port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const line = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .find((f) => f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A');
  if (!line) return 0;
  const link = `socket:[${line[9]}]`;
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === link;
    } catch {
      return false;
    }
  }).length;
}

test.runIf(process.platform === 'linux')("the CLI's listen holds ACCEPT_COPIES + 1 descriptors of its socket, and close() lets go of every one", async () => {
  const { url, close } = await listen(createService({ memory: true }), 0, HOST, {}, { acceptCopies: ACCEPT_COPIES });
  const port = Number(new URL(url).port);
  expect(descriptorsOf(port)).toBe(ACCEPT_COPIES + 1);
  expect((await fetch(`${url}/sandbox/info`)).status).toBe(200);
  await close();
  expect(descriptorsOf(port)).toBe(0);
  // Nothing listens any more: a connection is refused, not left queued on a forgotten copy.
  await expect(
    new Promise((resolve, reject) => net.connect(port, HOST).on('connect', resolve).on('error', (e: NodeJS.ErrnoException) => reject(new Error(e.code)))),
  ).rejects.toThrow('ECONNREFUSED');
});

test('a copier that cannot start leaves the server as it was: no copies, every request answered', async () => {
  const { server, port } = await listening();
  const execPath = process.execPath;
  process.execPath = '/nonexistent/node';
  try {
    expect(await acceptMany(server, { copies: 7, backlog: 512 })).toBe(0);
  } finally {
    process.execPath = execPath;
  }
  expect(await (await fetch(`http://${HOST}:${port}/x`)).text()).toBe('ok');
});

test('closing the server while the copies are on their way closes the late ones too', async () => {
  const { server, port } = await listening();
  const copies = acceptMany(server, { copies: 31, backlog: 512 });
  // Closed once the first copy is in, the others still on their way.
  while (descriptorsOf(port) < 2) await new Promise((r) => setImmediate(r));
  await new Promise<void>((resolve) => server.close(() => resolve()));
  expect(await copies).toBeLessThan(31);
  expect(descriptorsOf(port)).toBe(0);
});

/**
 * BURST connections that queue while this loop is held, each sending a GET (its index as the
 * path) and then staying open until the test ends: a child connects them and touches a file once
 * all are connected, and this process spins (no turn of its loop) until then.
 */
function heldBurst(port: number): void {
  const flag = join(tmpdir(), `multi-accept-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const script = `const net = require('net'); let n = 0;
    for (let i = 0; i < ${BURST}; i++) { const s = net.connect(${port}, '${HOST}', () => { s.write('GET /' + i + ' HTTP/1.1\\r\\nHost: ${HOST}\\r\\n\\r\\n');
      if (++n === ${BURST}) require('fs').writeFileSync(${JSON.stringify(flag)}, ''); }); s.on('error', () => {}); }
    setInterval(() => {}, 1e6);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'inherit', env: { PATH: process.env.PATH } });
  cleanup.push(() => child.kill('SIGKILL'));
  const end = Date.now() + 20_000;
  while (!existsSync(flag) && Date.now() < end);
  if (existsSync(flag)) unlinkSync(flag);
}

/** The sockets taken on the copies (the servers acceptMany makes from now on listen on them). */
function takenOnCopies(): Set<net.Socket> {
  const taken = new Set<net.Socket>();
  const createServer = net.createServer;
  vi.spyOn(net, 'createServer').mockImplementation(((...args: Parameters<typeof net.createServer>) =>
    createServer(...args).on('connection', (s: net.Socket) => taken.add(s))) as typeof net.createServer);
  return taken;
}

test("connections taken on a copy count as the server's: getConnections(), and close() waits for them to end", async () => {
  const held: http.ServerResponse[] = [];
  const { server, port } = await listening((_req, res) => void held.push(res));
  const onCopies = takenOnCopies();
  expect(await acceptMany(server, { copies: 7, backlog: 512 })).toBe(7);
  heldBurst(port);
  expect(await until(() => held.length === BURST)).toBe(true);
  expect(await new Promise<number>((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n))))).toBe(BURST);
  // Node's graceful close: 'close' once the last connection has ended, not before, and the last
  // is one a copy took (Node counts the ones its own descriptor took).
  const last = held.find((r) => onCopies.has(r.socket as net.Socket));
  expect(last).toBeDefined();
  let called = false;
  let emitted = false;
  server.once('close', () => (emitted = true));
  server.close(() => (called = true));
  for (const r of held) if (r !== last) r.writeHead(200, { connection: 'close' }).end('done');
  await new Promise((r) => setTimeout(r, 300));
  expect({ called, emitted }).toEqual({ called: false, emitted: false });
  last!.writeHead(200, { connection: 'close' }).end('done');
  expect(await until(() => called && emitted)).toBe(true);
});

test('maxConnections caps the connections the server holds, whichever descriptor took them', async () => {
  const held: http.ServerResponse[] = [];
  const drops: unknown[] = [];
  const { server, port } = await listening((_req, res) => void held.push(res));
  server.maxConnections = 10;
  server.on('drop', (d) => drops.push(d));
  expect(await acceptMany(server, { copies: 7, backlog: 512 })).toBe(7);
  heldBurst(port);
  expect(await until(() => drops.length === BURST - 10)).toBe(true);
  expect(held).toHaveLength(10);
});

test('a copier that cannot be spawned at all (Node throws: E2BIG) leaves the server as it was', async () => {
  const { server, port } = await listening();
  // Over Linux's 128 kB for one environment string: execve fails, and spawn() throws.
  vi.stubEnv('MULTI_ACCEPT_TEST_BIG', 'x'.repeat(200_000));
  expect(await acceptMany(server, { copies: 7, backlog: 512 })).toBe(0);
  const { url, close } = await listen(createService({ memory: true }), 0, HOST, {}, { acceptCopies: ACCEPT_COPIES });
  vi.unstubAllEnvs();
  expect((await fetch(`${url}/sandbox/info`)).status).toBe(200);
  await close();
  expect(await (await fetch(`http://${HOST}:${port}/x`)).text()).toBe('ok');
  await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
});

test('an accept error met on the copies is not thrown at a server with no listener for it', async () => {
  const copies: net.Server[] = [];
  const createServer = net.createServer;
  vi.spyOn(net, 'createServer').mockImplementation(((...args: Parameters<typeof net.createServer>) => {
    const copy = createServer(...args);
    copies.push(copy);
    return copy;
  }) as typeof net.createServer);
  const { server, port } = await listening();
  expect(await acceptMany(server, { copies: 3, backlog: 512 })).toBe(3);
  expect(server.listenerCount('error')).toBe(0);
  // What net.Server does when libuv reports a failed accept (lib/net.js, onconnection).
  for (const copy of copies) copy.emit('error', Object.assign(new Error('accept ENOBUFS'), { code: 'ENOBUFS', syscall: 'accept' }));
  expect(await (await fetch(`http://${HOST}:${port}/x`)).text()).toBe('ok');
});
