/**
 * The console server's proxy against upstreams that answer badly or not at all (an attack's
 * proofs): an answer head that never ends, a refused connection. Real sockets throughout.
 */
import { createServer as createHttpServer, request, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upstreamProxy, whyFetchFailed } from './upstream-proxy.ts';

const SCHEMA_PATH = '/rest/api/index/custom-metadata/schema/sales';

describe('a hostile upstream through the proxy', () => {
  let upstream: NetServer;
  let proxy: HttpServer;
  let proxyPort: number;
  let upstreamHost: string;
  beforeAll(async () => {
    const body = '{"metadataKeys":[]}';
    const ok = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
    upstream = createNetServer((s) => {
      s.on('error', () => {});
      let seen = '';
      s.on('data', (c: Buffer) => {
        seen += c.toString('latin1');
        if (!seen.includes('\r\n\r\n')) return;
        const path = seen.split(' ')[1] ?? '';
        if (path.endsWith('/endless-head')) {
          s.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n');
          for (let i = 0; i < 2_000; i++) s.write(`X-Filler-${i}: ${'a'.repeat(40)}\r\n`);
        } else if (path.endsWith('/not-http')) s.end('SSH-2.0-OpenSSH_9.6\r\n\r\n');
        else s.end(ok);
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamHost = `127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const middleware = upstreamProxy([`http://${upstreamHost}`], { timeoutMs: 5_000 });
    proxy = createHttpServer((req, res) => middleware(req, res, () => res.writeHead(404).end()));
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyPort = (proxy.address() as AddressInfo).port;
  });
  afterAll(async () => {
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
    await new Promise((r) => upstream.close(r));
  });

  const get = (path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: proxyPort, path: `/upstream/${upstreamHost}${path}`, headers: { host: 'localhost' } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('an answer head that never ends gets a 502 that says the head was too large, not "fetch failed"', async () => {
    const answer = await get('/rest/api/index/custom-metadata/schema/endless-head');
    expect(answer.status).toBe(502);
    expect(answer.body).not.toMatch(/fetch failed/);
    expect(answer.body).toMatch(/head|header/i);
  });

  it('an answer that is not HTTP gets a 502 that says so, with the parser\u2019s reason', async () => {
    const answer = await get('/rest/api/index/custom-metadata/schema/not-http');
    expect(answer.status).toBe(502);
    // The reason as Node 20's and Node 24's parsers word it ("Expected HTTP/" and "Expected HTTP/, RTSP/ or ICE/").
    expect(answer.body).toMatch(/cannot read as HTTP: Response does not match the HTTP\/1\.1 protocol \(Expected HTTP\//);
  });
});

describe('an upstream that is not there', () => {
  it('a refused connection gets a 502 that says so, with its code, not "fetch failed"', async () => {
    const gone = createNetServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const host = `127.0.0.1:${(gone.address() as AddressInfo).port}`;
    await new Promise((r) => gone.close(r));
    const middleware = upstreamProxy([`http://${host}`], { timeoutMs: 5_000 });
    const proxy = createHttpServer((req, res) => middleware(req, res, () => res.writeHead(404).end()));
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port: (proxy.address() as AddressInfo).port, path: `/upstream/${host}${SCHEMA_PATH}`, headers: { host: 'localhost' } },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(answer.status).toBe(502);
      expect(answer.body).toMatch(/refused the connection \(ECONNREFUSED\)/);
      expect(answer.body).not.toMatch(/fetch failed/);
    } finally {
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }
  });
});

it('a failure to reach the upstream (no route, a connect timeout) is worded as no answer, not as an answer it could not read', () => {
  const failed = (code: string, message: string) => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(message), { code }) });
  expect(whyFetchFailed(failed('EHOSTUNREACH', 'connect EHOSTUNREACH 10.9.9.9:443'))).toBe('did not answer: connect EHOSTUNREACH 10.9.9.9:443 (EHOSTUNREACH).');
  expect(whyFetchFailed(failed('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error'))).toBe('did not answer: Connect Timeout Error (UND_ERR_CONNECT_TIMEOUT).');
  expect(whyFetchFailed(failed('HPE_INVALID_CONSTANT', 'Expected HTTP/'))).toBe('sent an answer this proxy cannot read as HTTP: Expected HTTP/ (HPE_INVALID_CONSTANT).');
});

it("a parser error without a code (Node 24's fetch) is still worded as an answer it could not read", () => {
  const cause = Object.assign(new Error('Response does not match the HTTP/1.1 protocol (Expected HTTP/, RTSP/ or ICE/)'), { name: 'HTTPParserError', code: undefined });
  expect(whyFetchFailed(Object.assign(new TypeError('fetch failed'), { cause }))).toBe(
    'sent an answer this proxy cannot read as HTTP: Response does not match the HTTP/1.1 protocol (Expected HTTP/, RTSP/ or ICE/).',
  );
});
