/**
 * The bare service on a real socket, against what arrives before any route decides:
 * foreign Host names (DNS rebinding), paths with dot segments or encoded slashes, requests
 * Node's own parser refuses, and slow clients. Requests are written byte for byte, so no
 * client library resolves or re-encodes a path on the way.
 */
import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService, type Service, type ServiceOptions } from './app.ts';
import { hardenServer, listen, type ServerTimeouts } from './node.ts';
import { UsageError } from './flags.ts';
import { serviceOptionsOf } from './options.ts';
import { expectFamilyError, expectMetadataError, expectProblem, TOKENS, type Answer, type Family } from './test-http.ts';

interface Running {
  service: Service;
  port: number;
  close(): Promise<void>;
}

async function run(options: ServiceOptions = {}, timeouts: ServerTimeouts = {}): Promise<Running> {
  const service = createService({ memory: true, rateLimitPerMinute: 0, ...options });
  const server = await listen(service, 0, '127.0.0.1', timeouts);
  return {
    service,
    port: Number(new URL(server.url).port),
    close: async () => {
      await server.close();
      service.close();
    },
  };
}

/** Sends `text` as is and reads the answer until the server closes the connection. */
function rawExchange(port: number, text: string | Buffer, { waitForClose = true } = {}): Promise<Answer & { raw: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const split = raw.indexOf('\r\n\r\n');
      const head = split < 0 ? raw : raw.slice(0, split);
      const body = split < 0 ? '' : raw.slice(split + 4);
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = new Headers();
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      resolve({
        raw,
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0),
        headers,
        contentType: headers.get('content-type') ?? '',
        text: body,
        json,
      });
    });
    socket.write(text);
    if (!waitForClose) socket.end();
  });
}

/** A complete request with `Connection: close`; the path and Host exactly as given. */
function send(port: number, method: string, path: string, options: { host?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const body = options.body === undefined ? '' : JSON.stringify(options.body);
  const lines = [
    `${method} ${path} HTTP/1.1`,
    `Host: ${options.host ?? `127.0.0.1:${port}`}`,
    'Connection: close',
    ...(options.token ? [`Authorization: Bearer ${options.token}`] : []),
    ...(body ? ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`] : []),
    ...Object.entries(options.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
  ];
  return rawExchange(port, `${lines.join('\r\n')}\r\n\r\n${body}`);
}

const PROBES: { family: Family; method: string; path: string; token: string; body?: unknown }[] = [
  { family: 'metadata', method: 'GET', path: '/rest/api/index/custom-metadata/schema/sales', token: TOKENS.sales },
  { family: 'legacy', method: 'POST', path: '/rest/api/v1/agents/search', token: TOKENS.agents, body: {} },
  { family: 'platform', method: 'POST', path: '/api/agents/search', token: TOKENS.agents, body: {} },
  { family: 'metadata', method: 'GET', path: '/sandbox/info', token: TOKENS.sales },
];

describe('Host names', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await run();
  });
  afterAll(() => svc.close());

  it.each(PROBES)('$family $path: a foreign Host (DNS rebinding) → 403 in the family format, nothing answered', async (p) => {
    for (const host of ['evil.example', `evil.example:${svc.port}`, 'localhost.evil.example', '127.0.0.1.evil.example', '10.0.0.5']) {
      const a = await send(svc.port, p.method, p.path, { host, token: p.token, body: p.body });
      expectFamilyError(p.family, a, 403);
      expect(a.text).toMatch(/allowed-host/);
      expect(a.text).not.toMatch(/metadataKeys|"agents"|"service"/);
      if (p.family === 'platform') expectProblem(a, 403, 'host_not_allowed');
    }
  });

  it.each(PROBES)('$family $path: loopback names are answered', async (p) => {
    for (const host of ['localhost', `localhost:${svc.port}`, `127.0.0.1:${svc.port}`, `[::1]:${svc.port}`, 'LOCALHOST']) {
      const a = await send(svc.port, p.method, p.path, { host, token: p.token, body: p.body });
      expect({ host, status: a.status }).toEqual({ host, status: 200 });
    }
  });

  it('API answers carry X-Content-Type-Options: nosniff, refusals too', async () => {
    expect((await send(svc.port, 'GET', PROBES[0]!.path, { token: TOKENS.sales })).headers.get('x-content-type-options')).toBe('nosniff');
    expect((await send(svc.port, 'GET', PROBES[0]!.path, { host: 'evil.example', token: TOKENS.sales })).headers.get('x-content-type-options')).toBe('nosniff');
  });

  describe('with --allowed-host', () => {
    let named: Running;
    beforeAll(async () => {
      named = await run(serviceOptionsOf({ 'allowed-host': ['console.example,Demo.Example'], memory: true }));
    });
    afterAll(() => named.close());

    it.each(PROBES)('$family $path: a name given is answered, with or without a port; others still 403', async (p) => {
      for (const host of ['console.example', `console.example:${named.port}`, 'demo.example', 'localhost']) {
        const a = await send(named.port, p.method, p.path, { host, token: p.token, body: p.body });
        expect({ host, status: a.status }).toEqual({ host, status: 200 });
      }
      expectFamilyError(p.family, await send(named.port, p.method, p.path, { host: 'evil.example', token: p.token, body: p.body }), 403);
    });
  });

  it.each([
    [['console.example'], ['console.example']],
    [['a.example,b.example', ' c.example '], ['a.example', 'b.example', 'c.example']],
    [['[::1]', 'MyBox'], ['[::1]', 'mybox']],
  ])('--allowed-host %j gives %j', (values, hosts) => {
    expect(serviceOptionsOf({ 'allowed-host': values }).allowedHosts).toEqual(hosts);
  });

  it.each(['http://console.example', 'console.example:8080', 'console.example/path', '*.example', 'a b'])('--allowed-host %s is a usage error', (value) => {
    expect(() => serviceOptionsOf({ 'allowed-host': [value] })).toThrow(UsageError);
  });
});

describe('paths are refused, not resolved', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await run();
  });
  afterAll(() => svc.close());

  it.each([
    ['encoded dot segments into the sandbox', 'metadata', 'GET', '/rest/api/%2e%2e/%2e%2e/sandbox/info', TOKENS.sales],
    ['upper-case encoded dot segments', 'metadata', 'GET', '/rest/api/%2E%2E/%2E%2E/sandbox/info', TOKENS.sales],
    ['a dot-dot segment into another group', 'metadata', 'GET', '/rest/api/index/custom-metadata/schema/sales/../hr', TOKENS.sales],
    ['a dot-dot segment with the right scope too', 'metadata', 'GET', '/rest/api/index/custom-metadata/schema/sales/../hr', TOKENS.global],
    ['a single dot segment', 'metadata', 'GET', '/rest/api/index/./custom-metadata/schema/sales', TOKENS.sales],
    ['an encoded slash in a group', 'metadata', 'GET', '/rest/api/index/custom-metadata/schema/sa%2Fles', TOKENS.global],
    ['an encoded slash and dots in a group', 'metadata', 'PUT', '/rest/api/index/custom-metadata/schema/sales%2F..%2Fhr', TOKENS.global],
    ['a backslash', 'metadata', 'GET', '/rest/api/index/custom-metadata/schema/sales\\..\\hr', TOKENS.global],
    ['an encoded backslash', 'metadata', 'GET', '/rest/api/index/custom-metadata/schema/sales%5Chr', TOKENS.global],
    ['dot segments in a document id', 'metadata', 'PUT', '/rest/api/index/document/..%2F../custom-metadata/sales', TOKENS.sales],
    ['a dot-dot document id', 'metadata', 'PUT', '/rest/api/index/document/%2e%2e/custom-metadata/sales', TOKENS.sales],
    ['dot segments in a legacy path', 'legacy', 'POST', '/rest/api/v1/agents/runs/%2e%2e/search', TOKENS.agents],
    ['dot segments in a platform path', 'platform', 'POST', '/api/agents/x/%2e%2e/%2e%2e/agents/search', TOKENS.agents],
    ['an encoded slash in an agent id', 'platform', 'GET', '/api/agents/echo-assistant%2Fschemas', TOKENS.agents],
    // Refused in the family of the path as written, not of what it would resolve to.
    ['dot segments out of the platform API', 'platform', 'GET', '/api/%2e%2e/x', TOKENS.agents],
    ['dot segments out of the platform API into the sandbox', 'platform', 'GET', '/api/%2e%2e/sandbox/info', TOKENS.agents],
    ['dot segments out of the client API', 'legacy', 'GET', '/rest/api/v1/%2e%2e/x', TOKENS.agents],
    ['a plain dot-dot out of the client API', 'legacy', 'POST', '/rest/api/v1/../index/custom-metadata/schema/sales', TOKENS.agents],
  ] as const)('%s → 400 in the family format; nothing changes', async (_what, family, method, path, token) => {
    const before = JSON.stringify([svc.service.store.countGroups(), svc.service.store.getDocValues('../..', 'sales')]);
    const body = method === 'GET' ? undefined : method === 'PUT' && path.includes('/document/')
      ? { customMetadata: [{ name: 'status', value: 'x' }] }
      : method === 'PUT' ? { metadataKeys: [{ name: 'status', propertyType: 'TEXT' }] } : {};
    const a = await send(svc.port, method, path, { token, body });
    expectFamilyError(family, a, 400);
    expect(a.text).toMatch(/dot segment|slash|backslash/);
    expect(JSON.stringify([svc.service.store.countGroups(), svc.service.store.getDocValues('../..', 'sales')])).toBe(before);
  });

  it('a document id with encoded slashes (a URL-shaped id) is data, not path: stored under the decoded id', async () => {
    const a = await send(svc.port, 'PUT', '/rest/api/index/document/https:%2F%2Fwiki.example%2Fpage%2F1/custom-metadata/sales', {
      token: TOKENS.sales,
      body: { customMetadata: [{ name: 'status', value: 'open' }] },
    });
    expect(a.status).toBe(200);
    expect(svc.service.store.getDocValues('https://wiki.example/page/1', 'sales')).toEqual([{ name: 'status', value: 'open' }]);
  });

  it('a query string is not a path: dots and encoded slashes there are fine', async () => {
    const a = await send(svc.port, 'GET', '/rest/api/index/custom-metadata/schema/sales?next=%2F..%2Fhr', { token: TOKENS.sales });
    expect(a.status).toBe(200);
  });
});

describe("what Node's parser refuses gets a JSON body", () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await run({}, { headersTimeoutMs: 400, requestTimeoutMs: 800, checkIntervalMs: 100 });
  });
  afterAll(() => svc.close());

  it.each([
    ['a malformed request line', 'GARBAGE\r\n\r\n'],
    ['a space in the path', 'GET /rest/api/index/custom metadata HTTP/1.1\r\nHost: localhost\r\n\r\n'],
    ['an unknown HTTP version', 'GET /sandbox/info HTTP/9.9\r\nHost: localhost\r\n\r\n'],
    ['a header without a colon', 'GET /sandbox/info HTTP/1.1\r\nHost: localhost\r\nbroken header\r\n\r\n'],
    ['conflicting Content-Length and Transfer-Encoding', 'POST /api/agents/search HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}'],
    ['a bad chunk size', 'POST /api/agents/search HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
  ])('%s → 400 with an {error, message} body', async (_what, text) => {
    const a = await rawExchange(svc.port, text);
    expectMetadataError(a, 400);
    expect(a.headers.get('connection')).toBe('close');
  });

  it('a request head over 16 kB → 431 with an {error, message} body', async () => {
    const a = await rawExchange(svc.port, `GET /sandbox/info HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectMetadataError(a, 431);
  });

  it('a client that never finishes its request head → 408 with an {error, message} body, and the socket closed', async () => {
    const a = await rawExchange(svc.port, 'GET /sandbox/info HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    expectMetadataError(a, 408);
  });

  it('a client that never finishes its body → 408 with an {error, message} body, and the service still answers others', async () => {
    const a = await rawExchange(
      svc.port,
      `POST /api/agents/search HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
    );
    expectMetadataError(a, 408);
    expect((await send(svc.port, 'GET', '/sandbox/info')).status).toBe(200);
  });
});

it('a request the parser refuses behind an answer already under way is not answered inside it: the connection is closed', async () => {
  const held: ServerResponse[] = [];
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('first part\n');
    held.push(res);
  });
  hardenServer(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: (server.address() as AddressInfo).port });
      let seen = '';
      socket.on('data', (c: Buffer) => {
        seen += c.toString('latin1');
        // The answer's head and first part are in: a request the parser refuses follows.
        if (seen.includes('first part') && !socket.writableEnded) socket.end('GARBAGE\r\n\r\n');
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(seen));
      socket.write('GET /a HTTP/1.1\r\nHost: localhost\r\n\r\n');
    });
    expect(raw.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200']);
    expect(raw).not.toMatch(/bad request/i);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

describe('a body that stops arriving is bounded by the body-idle timeout, not the 60 s request timeout', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await run({}, { bodyIdleTimeoutMs: 400, checkIntervalMs: 50 });
  });
  afterAll(() => svc.close());

  const partial = (method: string, path: string, token: string, sent: string, announced = 100) =>
    `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${announced}\r\n\r\n${sent}`;

  it.each([
    ['metadata', 'PUT', '/rest/api/index/custom-metadata/schema/sales', TOKENS.global],
    ['legacy', 'POST', '/rest/api/v1/agents/runs/wait', TOKENS.agents],
    ['platform', 'POST', '/api/agents/echo-assistant/runs', TOKENS.agents],
    ['platform', 'POST', '/api/agents/search', ''],
  ] as const)('%s %s %s: 408 in the family format once nothing came for the idle time, then the connection closes', async (family, method, path, token) => {
    const started = performance.now();
    const a = await rawExchange(svc.port, partial(method, path, token, '{"a":'));
    const ms = performance.now() - started;
    expectFamilyError(family, a, 408);
    expect(a.text).toMatch(/stopped arriving/);
    expect(a.headers.get('connection')).toBe('close');
    if (family === 'platform') expectProblem(a, 408, 'request_timeout');
    // The idle time (0.4 s) with the check's interval, far from the 60 s request timeout.
    expect(ms).toBeGreaterThanOrEqual(390);
    expect(ms).toBeLessThan(5_000);
    expect((await send(svc.port, 'GET', '/sandbox/info')).status).toBe(200);
  });

  it('a chunked body that stops arriving gets the same 408', async () => {
    const a = await rawExchange(
      svc.port,
      `POST /api/agents/search HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{"\r\n`,
    );
    expectProblem(a, 408, 'request_timeout');
  });

  it('a body that keeps coming, slower than the idle time in total but never silent that long, is answered as usual', async () => {
    // A service of its own with an idle time of 2 s: a byte every 150 ms stays far from it even
    // when a loaded machine delays this test's timers, and 40 bytes take 6 s, three idle times.
    const patient = await run({}, { bodyIdleTimeoutMs: 2_000, checkIntervalMs: 50 });
    try {
      const body = JSON.stringify({ name: 'echo' }).padEnd(40, ' ');
      const socket = connect({ host: '127.0.0.1', port: patient.port });
      let raw = '';
      socket.on('data', (c: Buffer) => (raw += c.toString()));
      const closed = new Promise((r) => socket.on('close', r));
      socket.write(`POST /api/agents/search HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
      const started = performance.now();
      for (const ch of body) {
        socket.write(ch);
        await new Promise((r) => setTimeout(r, 150));
      }
      const took = performance.now() - started;
      await closed;
      expect(took).toBeGreaterThan(2_000);
      expect(raw).toMatch(/^HTTP\/1\.1 200 /);
      expect(raw).toContain('echo-assistant');
    } finally {
      await patient.close();
    }
  }, 30_000);

  it('with the default timeouts a silent body is answered 408 within a few seconds', async () => {
    const defaults = await run();
    try {
      const started = performance.now();
      const a = await rawExchange(defaults.port, partial('PUT', '/rest/api/index/custom-metadata/schema/sales', TOKENS.global, '{'));
      expectMetadataError(a, 408);
      expect(a.text).toMatch(/nothing more of it came for 5 s/);
      expect(performance.now() - started).toBeLessThan(15_000);
    } finally {
      await defaults.close();
    }
  }, 30_000);
});

describe('CONNECT and Upgrade requests get the JSON 400, not a closed socket', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await run();
  });
  afterAll(() => svc.close());

  it.each([
    ['a CONNECT tunnel', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 'metadata', /CONNECT is not supported/],
    ['a CONNECT to this very service', 'CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 'metadata', /CONNECT is not supported/],
    ['a WebSocket upgrade of a platform path', `GET /api/agents/search HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer ${TOKENS.agents}\r\n\r\n`, 'platform', /Upgrade: websocket/],
    ['an h2c upgrade of a client API path', 'POST /rest/api/v1/agents/search HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\nContent-Length: 2\r\n\r\n{}', 'legacy', /Upgrade: h2c/],
    ['an upgrade of a custom-metadata path', 'GET /rest/api/index/custom-metadata/schema/sales HTTP/1.1\r\nHost: localhost\r\nConnection: upgrade\r\nUpgrade: foo\r\n\r\n', 'metadata', /does not switch protocols/],
  ] as const)('%s → 400 in the family format, and the connection closed', async (_what, text, family, says) => {
    const a = await rawExchange(svc.port, text);
    expectFamilyError(family, a, 400);
    expect(a.text).toMatch(says);
    expect(a.headers.get('connection')).toBe('close');
    expect(a.headers.get('x-content-type-options')).toBe('nosniff');
    expect(a.headers.get('x-request-id')).toMatch(/^req_/);
    expect((await send(svc.port, 'GET', '/sandbox/info')).status).toBe(200);
  });

  it('an Upgrade header without Connection: upgrade is no upgrade: the request is answered as usual', async () => {
    const a = await send(svc.port, 'GET', '/rest/api/index/custom-metadata/schema/sales', { token: TOKENS.sales, headers: { Upgrade: 'websocket' } });
    expect(a.status).toBe(200);
  });
});

describe('a request answered before its body was read keeps its promise about the connection', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await run();
  });
  afterAll(() => svc.close());

  /**
   * Sends `first` on a kept-alive socket, waits for its answer, then asks GET /sandbox/info
   * on the same socket: the answers that came, with their Connection headers, and whether
   * the server closed the socket.
   */
  async function twoOnOneSocket(first: string | Buffer): Promise<{ statuses: string[]; connection: string[]; closedEarly: boolean }> {
    const socket = connect({ host: '127.0.0.1', port: svc.port });
    let raw = '';
    let closed = false;
    socket.on('data', (c: Buffer) => (raw += c.toString('latin1')));
    socket.on('close', () => (closed = true));
    socket.on('error', () => {});
    socket.write(first);
    const until = async (ok: () => boolean, ms: number) => {
      for (const end = Date.now() + ms; !ok() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10));
    };
    await until(() => /HTTP\/1\.1 \d{3}[\s\S]*\r\n\r\n/.test(raw), 3_000);
    // node-server gives an unread body half a second before it closes the socket.
    await new Promise((r) => setTimeout(r, 700));
    const closedEarly = closed;
    if (!closed) socket.write('GET /sandbox/info HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    await until(() => closed, 3_000);
    socket.destroy();
    return {
      statuses: [...raw.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]!),
      connection: [...raw.matchAll(/\r\nconnection: ([^\r]*)/gi)].map((m) => m[1]!.toLowerCase()),
      closedEarly,
    };
  }

  const body = JSON.stringify({ metadataKeys: [{ name: 'status', propertyType: 'TEXT' }], pad: 'x'.repeat(300_000) });
  const head = (method: string, path: string, extra = '') =>
    `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nConnection: keep-alive\r\n${extra}`;
  const sized = (h: string) => `${h}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const chunked = (h: string) => `${h}Transfer-Encoding: chunked\r\n\r\n${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;

  it.each([
    ['a PUT without a token (401)', 'PUT', '/rest/api/index/custom-metadata/schema/sales', ''],
    ['a PUT to a bad group name (400)', 'PUT', '/rest/api/index/custom-metadata/schema/no-such-group!', `Authorization: Bearer ${TOKENS.global}\r\n`],
    ['a platform POST without a token (401)', 'POST', '/api/agents/search', ''],
    ['a legacy run POST with a foreign Host (403)', 'POST', '/rest/api/v1/agents/runs/stream', 'X-Ignored: 1\r\n'],
  ])('%s with a 300 kB body: the body is dropped and the connection answers the next request', async (what, method, path, extra) => {
    let text = sized(head(method, path, extra));
    if (what.includes('foreign Host')) text = text.replace('Host: localhost', 'Host: evil.example');
    const r = await twoOnOneSocket(text);
    expect(r.closedEarly).toBe(false);
    expect(r.statuses).toHaveLength(2);
    expect(r.statuses[1]).toBe('200');
    expect(r.connection[0]).toBe('keep-alive');
  });

  it('a chunked body refused unread (a foreign Host): the answer says Connection: close, and the socket is closed', async () => {
    const r = await twoOnOneSocket(chunked(head('POST', '/api/agents/search')).replace('Host: localhost', 'Host: evil.example'));
    expect(r.statuses).toEqual(['403']);
    expect(r.connection).toEqual(['close']);
    expect(r.closedEarly).toBe(true);
  });

  it('a body over the 1 MB limit: 413 with Connection: close', async () => {
    const big = 'x'.repeat(1_100_000);
    const r = await twoOnOneSocket(`${head('PUT', '/rest/api/index/custom-metadata/schema/sales', `Authorization: Bearer ${TOKENS.global}\r\n`)}Content-Length: ${big.length}\r\n\r\n${big}`);
    expect(r.statuses).toEqual(['413']);
    expect(r.connection).toEqual(['close']);
  });
});

describe('an Expect the server does not meet (anything but 100-continue)', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await run();
  });
  afterAll(() => svc.close());

  // Node answers such a request itself, before any route, with an empty 417 (no content type,
  // no body): the console then has nothing to show but the status.
  it.each(PROBES.map((p) => [p.family, p.path, p] as const))('%s %s → 417 in its family format, saying why', async (_family, _path, p) => {
    const a = await send(svc.port, p.method, p.path, { token: p.token, body: p.body ?? {}, headers: { Expect: 'fish' } });
    expectFamilyError(p.family, a, 417);
    expect(a.text).toMatch(/Expect/);
  });

  it('on the run streams started ahead of the routes too', async () => {
    const body = { messages: [{ role: 'USER', content: [{ type: 'text', text: 'hi' }] }], stream: true };
    const a = await send(svc.port, 'POST', '/api/agents/echo-assistant/runs', { token: TOKENS.agents, body, headers: { Expect: 'fish' } });
    expectFamilyError('platform', a, 417);
  });
});

describe('Expect: 100-continue', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await run();
  });
  afterAll(() => svc.close());

  /** Writes `head` alone (no body), then `body` once `sendBodyWhen` holds of what came back; returns what came and whether the server closed. */
  async function exchange(head: string, sendBodyWhen?: (raw: string) => boolean, body = ''): Promise<{ raw: string; closed: boolean }> {
    const socket = connect({ host: '127.0.0.1', port: svc.port });
    let raw = '';
    let closed = false;
    let bodySent = false;
    socket.on('data', (c: Buffer) => {
      raw += c.toString('latin1');
      if (!bodySent && sendBodyWhen?.(raw)) {
        bodySent = true;
        socket.write(body);
      }
    });
    socket.on('close', () => (closed = true));
    socket.on('error', () => {});
    socket.write(head);
    for (const end = Date.now() + 5_000; !closed && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10));
    socket.destroy();
    return { raw, closed };
  }

  const announced = 2_000_000;
  it.each([
    ['metadata', 'PUT', '/rest/api/index/custom-metadata/schema/sales', TOKENS.global, 'application/json', /"error":"request too large"/],
    ['legacy', 'POST', '/rest/api/v1/agents/runs/stream', TOKENS.agents, 'application/json', /^"The body is over/],
    ['platform', 'POST', '/api/agents/echo-assistant/runs', TOKENS.agents, 'application/problem+json', /"code":"request_too_large"/],
  ] as const)('%s %s %s announcing 2,000,000 bytes: 413 at once in its family format, no 100 Continue, and the connection closed', async (_family, method, path, token, type, shape) => {
    const head =
      `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${announced}\r\nExpect: 100-continue\r\n\r\n`;
    const { raw, closed } = await exchange(head);
    expect(raw).not.toMatch(/100 Continue/);
    expect(raw).toMatch(/^HTTP\/1\.1 413 /);
    expect(raw).toMatch(new RegExp(`\\r\\ncontent-type: ${type.replace('+', '\\+')}`, 'i'));
    expect(raw).toMatch(/\r\nconnection: close\r\n/i);
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
    expect(body).toMatch(shape);
    expect(closed).toBe(true);
  });

  it('a request refused from its head alone (no token: 401) is answered without 100 Continue, its body never asked for, and the connection closed', async () => {
    const head =
      `PUT /rest/api/index/custom-metadata/schema/sales HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
      `Content-Length: 100\r\nExpect: 100-continue\r\n\r\n`;
    const { raw, closed } = await exchange(head, (r) => r.includes('100 Continue'), ' '.repeat(100));
    expect(raw).not.toMatch(/100 Continue/);
    expect(raw).toMatch(/^HTTP\/1\.1 401 /);
    expect(closed).toBe(true);
  });

  it('a body within the limit gets its 100 Continue, and the request is answered once the body came', async () => {
    const body = JSON.stringify({ agent_id: 'echo-assistant', messages: [{ role: 'USER', content: [{ type: 'text', text: 'hello after continue' }] }] });
    const head =
      `POST /rest/api/v1/agents/runs/wait HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;
    const { raw } = await exchange(head, (r) => r.includes('\r\n\r\n'), body);
    expect(raw).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect(raw).toMatch(/hello after continue/);
  });

  it('a run stream with a small body gets its 100 Continue and then its stream (the fast path reads the body)', async () => {
    const body = JSON.stringify({ agent_id: 'echo-assistant', messages: [{ role: 'USER', content: [{ type: 'text', text: 'streamed after continue' }] }] });
    const head =
      `POST /rest/api/v1/agents/runs/stream HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;
    const { raw } = await exchange(head, (r) => r.includes('\r\n\r\n'), body);
    expect(raw).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect(raw).toMatch(/text\/event-stream/);
    expect(raw).toMatch(/streamed/);
  });
});
