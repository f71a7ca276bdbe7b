/**
 * Review of the early 413 for `Expect: 100-continue` (hardenServer's 'checkContinue'): a
 * client that asks before it sends its body must get the answer it would have got without
 * asking, minus the upload. Each case sends the same head twice, with and without Expect
 * (with Expect, the body goes only once 100 Continue came), and compares the final answers.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService, type Service } from './app.ts';
import { hardenServer, listen } from './node.ts';
import { TOKENS } from './test-http.ts';
import { upstreamProxy } from './upstream-proxy.ts';

const ANNOUNCED = 2_000_000;

interface Final {
  /** The status of the last answer on the connection (after any 100 Continue). */
  status: number;
  sent100: boolean;
  body: string;
}

/**
 * Writes `head` (which announces ANNOUNCED bytes); with Expect, writes the body once 100
 * Continue came. Without Expect, the body is not sent: every case here is answered from the
 * head alone, as the server reads no body it refuses or ignores.
 */
async function exchange(port: number, head: string, withExpect: boolean): Promise<Final> {
  const socket = connect({ host: '127.0.0.1', port });
  let raw = '';
  let closed = false;
  let bodySent = false;
  socket.on('data', (c: Buffer) => {
    raw += c.toString('latin1');
    if (withExpect && !bodySent && raw.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
      bodySent = true;
      socket.write(Buffer.alloc(ANNOUNCED, 0x20));
    }
  });
  socket.on('close', () => (closed = true));
  socket.on('error', () => {});
  socket.write(head.replace('\r\n\r\n', `\r\nContent-Length: ${ANNOUNCED}\r\n${withExpect ? 'Expect: 100-continue\r\n' : ''}Connection: close\r\n\r\n`));
  for (const end = Date.now() + 8_000; !closed && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10));
  socket.destroy();
  const sent100 = raw.startsWith('HTTP/1.1 100 Continue\r\n\r\n');
  const last = sent100 ? raw.slice('HTTP/1.1 100 Continue\r\n\r\n'.length) : raw;
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(last)?.[1] ?? 0), sent100, body: last.slice(last.indexOf('\r\n\r\n') + 4) };
}

describe('the reference service: Expect: 100-continue changes no answer but the upload', () => {
  let service: Service;
  let server: { url: string; close(): Promise<void> };
  let port = 0;
  beforeAll(async () => {
    service = createService({ memory: true, rateLimitPerMinute: 0 });
    server = await listen(service, 0, '127.0.0.1');
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    await server.close();
    service.close();
  });

  it.each([
    ['a body over the limit (the change itself)', `POST /api/agents/echo-assistant/runs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\n\r\n`, 413],
    ['a foreign Host (DNS rebinding) is refused 403 before any body limit', `PUT /rest/api/index/custom-metadata/schema/sales HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bearer ${TOKENS.global}\r\nContent-Type: application/json\r\n\r\n`, 403],
    ['a path with an encoded dot segment is refused 400', `POST /api/agents/%2e%2e/runs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\n\r\n`, 400],
    ['an unknown API path is 404', `POST /rest/api/no-such-endpoint HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.global}\r\nContent-Type: application/json\r\n\r\n`, 404],
    ['a GET, whose body the service ignores (body-limit.ts), is answered', `GET /rest/api/index/custom-metadata/schema/sales HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.global}\r\n\r\n`, 200],
  ])('%s: the same status with Expect as without', async (_what, head, status) => {
    const without = await exchange(port, head, false);
    const withExpect = await exchange(port, head, true);
    expect(without.status).toBe(status);
    expect(withExpect.status).toBe(without.status);
  });

  it('an absolute-form target (PUT http://localhost/rest/...) over the limit is refused before its body too, no 100 Continue', async () => {
    const head = `PUT http://localhost/rest/api/index/custom-metadata/schema/sales HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.global}\r\nContent-Type: application/json\r\n\r\n`;
    const answer = await exchange(port, head, true);
    expect(answer.status).toBe(413);
    expect(answer.sent100).toBe(false);
  });

  it('a run POST refused 413 before its body came is in /sandbox/runs, as the same POST without Expect is ("every run POST that arrived, refused ones included")', async () => {
    const head = `POST /rest/api/v1/agents/runs/stream HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\n\r\n`;
    const log = async () => {
      const a = await fetch(`${server.url}/sandbox/runs`);
      return ((await a.json()) as { posts: { path: string; status: number }[] }).posts.filter((p) => p.path === '/rest/api/v1/agents/runs/stream').map((p) => p.status);
    };
    const before = (await log()).length;
    expect((await exchange(port, head, false)).status).toBe(413);
    expect((await log()).length).toBe(before + 1);
    expect((await exchange(port, head, true)).status).toBe(413);
    expect((await log()).slice(before)).toEqual([413, 413]);
  });
});

describe('the console server’s proxy (/upstream/<host>): Expect: 100-continue changes no answer but the upload', () => {
  let upstream: Server;
  let proxy: Server;
  let upstreamHost = '';
  let port = 0;
  const listenOn = (s: Server) => new Promise<number>((done) => s.listen(0, '127.0.0.1', () => done((s.address() as AddressInfo).port)));

  beforeAll(async () => {
    // A production instance whose own limit is not the reference service's: it takes the whole body and says how much came.
    upstream = createServer((req, res) => {
      let received = 0;
      req.on('data', (c: Buffer) => (received += c.length));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ received }));
      });
    });
    upstreamHost = `127.0.0.1:${await listenOn(upstream)}`;
    const middleware = upstreamProxy([`http://${upstreamHost}`]);
    proxy = createServer((req, res) => middleware(req, res, () => res.writeHead(404).end()));
    // As the console server (vite-plugin.ts) hardens Vite's server.
    hardenServer(proxy);
    port = await listenOn(proxy);
  });
  afterAll(async () => {
    proxy.closeAllConnections();
    upstream.closeAllConnections();
    await Promise.all([new Promise((r) => proxy.close(r)), new Promise((r) => upstream.close(r))]);
  });

  it('a body over 1 MB to an upstream it was started with is forwarded (the proxy has no body limit; the upstream decides)', async () => {
    const head = () => `POST /upstream/${upstreamHost}/rest/api/index/custom-metadata/schema/sales HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\n\r\n`;
    // Without Expect the body must be sent for the upstream to answer: send it the plain way.
    const plain = await new Promise<Final>((done) => {
      const socket = connect({ host: '127.0.0.1', port });
      let raw = '';
      socket.on('data', (c: Buffer) => (raw += c.toString('latin1')));
      socket.on('error', () => {});
      socket.on('close', () => done({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0), sent100: false, body: raw.slice(raw.indexOf('\r\n\r\n') + 4) }));
      socket.write(head().replace('\r\n\r\n', `\r\nContent-Length: ${ANNOUNCED}\r\nConnection: close\r\n\r\n`));
      socket.write(Buffer.alloc(ANNOUNCED, 0x20));
    });
    expect(plain.status).toBe(200);
    expect(plain.body).toContain(`"received":${ANNOUNCED}`);

    const asked = await exchange(port, head(), true);
    expect({ status: asked.status, sent100: asked.sent100 }).toEqual({ status: 200, sent100: true });
    expect(asked.body).toContain(`"received":${ANNOUNCED}`);
  });

  it.each([
    ['an upstream it was not started with: 403 upstream_not_allowed', '/upstream/other.example/api/agents/echo-assistant/runs', 403],
    ['a path that is not an API path: 404 not forwarded', `/upstream/{up}/static/upload`, 404],
  ])('%s, with Expect as without', async (_what, path, status) => {
    const head = `POST ${path.replace('{up}', upstreamHost)} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\r\n`;
    const without = await exchange(port, head, false);
    const withExpect = await exchange(port, head, true);
    expect(without.status).toBe(status);
    expect(withExpect.status).toBe(without.status);
  });
});
