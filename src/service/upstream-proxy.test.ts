/**
 * The console server's `--upstream` proxy against a hostile upstream of our own: one that
 * breaks answers off, sends HTML, CORS, cookies and redirects. Real sockets on both sides:
 * client → proxy (node:http with the middleware, as Vite mounts it) → upstream (node:http).
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { upstreamProxy } from './upstream-proxy.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The upstream's behaviours, by path. */
const ROUTES: Record<string, Handler> = {
  '/api/agents/a/runs': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('id: 1\nevent: message\ndata: {"n":1}\n\n');
    res.write('id: 2\nevent: message\ndata: {"n":2}\n\n');
    res.end();
  },
  '/api/agents/broken/runs': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('id: 1\nevent: message\ndata: {"n":1}\n\n');
    // Lets the first event reach the client before the connection breaks.
    setTimeout(() => res.socket?.destroy(), 50);
  },
  '/rest/api/v1/agents/runs/wait': (_req, res) => {
    const body = JSON.stringify({ messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text: 'x'.repeat(2000) }] }] });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    res.write(body.slice(0, 500));
    setTimeout(() => res.socket?.destroy(), 50);
  },
  '/rest/api/index/json': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end('{"metadataKeys":[]}');
  },
  '/rest/hostile-headers': (_req, res) => {
    res.writeHead(200, {
      'content-type': 'application/json',
      'access-control-allow-origin': '*',
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': 'authorization',
      'set-cookie': 'session=stolen; Path=/',
      location: 'https://evil.example/',
      refresh: '0; url=https://evil.example/',
      'content-security-policy': "default-src *",
      'www-authenticate': 'Basic realm="upstream"',
      server: 'hostile/1.0',
      'x-powered-by': 'hostile',
      'cache-control': 'no-store',
      'retry-after': '7',
      deprecation: '@1787616000',
      sunset: 'Thu, 15 Apr 2027 00:00:00 GMT',
      link: '</api/agents/a/runs>; rel="successor-version"',
      'x-request-id': 'req_upstream',
      'x-ratelimit-remaining': '3',
      'ratelimit-policy': '600;w=60',
    });
    res.end('{}');
  },
  '/rest/redirect': (_req, res) => {
    res.writeHead(302, { location: 'https://evil.example/login', 'content-type': 'application/json' });
    res.end('{}');
  },
  '/rest/empty': (_req, res) => {
    res.writeHead(200);
    res.end();
  },
  '/rest/untyped': (_req, res) => {
    res.writeHead(200);
    res.end('<script>alert(1)</script>');
  },
};

const CONTENT_TYPES: [string, boolean][] = [
  ['text/html; charset=utf-8', false],
  ['application/javascript', false],
  ['image/svg+xml', false],
  ['application/xml', false],
  ['application/octet-stream', false],
  ['application/json', true],
  ['application/problem+json', true],
  ['text/event-stream', true],
  ['text/plain; charset=utf-8', true],
];

let upstream: Server;
let proxy: Server;
let upstreamHost: string;
let proxyPort: number;
const seen: string[] = [];

function listenOn(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    seen.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    const typed = url.pathname === '/rest/typed' ? url.searchParams.get('type') : null;
    if (typed !== null) {
      res.writeHead(200, { 'content-type': typed });
      return void res.end(typed.startsWith('text/html') ? '<html><script>alert(1)</script></html>' : 'body');
    }
    const handler = ROUTES[url.pathname];
    if (handler) return handler(req, res);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  });
  upstreamHost = `127.0.0.1:${await listenOn(upstream)}`;
  const middleware = upstreamProxy([`http://${upstreamHost}`]);
  proxy = createServer((req, res) =>
    middleware(req, res, () => {
      res.writeHead(404);
      res.end();
    }),
  );
  proxyPort = await listenOn(proxy);
});

afterAll(async () => {
  for (const s of [proxy, upstream]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

beforeEach(() => {
  seen.length = 0;
});

interface Outcome {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
  /** How the answer ended: complete, or cut off with a network error. */
  ended: 'complete' | 'error';
}

/** One request with the path exactly as given: no URL parser resolves or re-encodes it. */
function send(path: string, method = 'GET'): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: proxyPort, path, method, agent: false }, (res) => {
      let body = '';
      let settled = false;
      const done = (ended: Outcome['ended']) => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ended });
      };
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => done(res.complete ? 'complete' : 'error'));
      res.on('error', () => done('error'));
      res.on('aborted', () => done('error'));
    });
    req.on('error', reject);
    req.end();
  });
}

const via = (path: string) => `/upstream/${upstreamHost}${path}`;

describe('an upstream that breaks mid-answer breaks the client connection too', () => {
  it('a complete stream ends normally (the baseline)', async () => {
    const a = await send(via('/api/agents/a/runs'), 'POST');
    expect(a).toMatchObject({ status: 200, ended: 'complete' });
    expect(a.body).toContain('id: 2');
  });

  it('a stream cut off after one event: the client gets that event, then a network error, not a clean end', async () => {
    const a = await send(via('/api/agents/broken/runs'), 'POST');
    expect(a.status).toBe(200);
    expect(a.body).toContain('id: 1');
    expect(a.ended).toBe('error');
  });

  it('a JSON answer cut off before its Content-Length: a network error, not a truncated 200', async () => {
    const a = await send(via('/rest/api/v1/agents/runs/wait'), 'POST');
    expect(a.ended).toBe('error');
    expect(a.body.length).toBeLessThan(2000);
  });

  it('fetch, as the console reads it, rejects the broken stream', async () => {
    const r = await fetch(`http://127.0.0.1:${proxyPort}${via('/api/agents/broken/runs')}`, { method: 'POST' });
    expect(r.status).toBe(200);
    await expect(r.text()).rejects.toThrow();
  });
});

describe('the path the upstream sees is the path that was checked', () => {
  it.each([
    ['encoded dot segments', '/rest/%2E%2E/%2E%2E/anything'],
    ['lower-case encoded dot segments', '/rest/api/%2e%2e/%2e%2e/sandbox/info'],
    ['a mixed encoded dot segment', '/api/.%2e/x'],
    ['a plain dot-dot segment', '/rest/api/index/custom-metadata/schema/sales/../hr'],
    ['a single dot segment', '/rest/./api/x'],
    ['an encoded slash', '/rest/api%2f..%2fx'],
    ['an upper-case encoded slash', '/rest/a%2Fb'],
    ['an encoded backslash', '/rest/a%5cb'],
    ['a backslash', '/rest/a\\..\\x'],
  ])('refuses %s with 400 and a JSON explanation, and forwards nothing', async (_what, path) => {
    const a = await send(via(path));
    expect(a.status).toBe(400);
    expect(a.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(a.body) as { error: string; message: string };
    expect(body.error).toBe('path not allowed');
    expect(body.message).toMatch(/dot segment|slash|backslash/);
    expect(seen).toEqual([]);
  });

  it.each(['/anything', '/sandbox/info', '//evil.example/rest/x', '/restx/y'])('refuses a non-API path %s with 404', async (path) => {
    const a = await send(via(path));
    expect(a.status).toBe(404);
    expect(JSON.parse(a.body)).toMatchObject({ error: 'not forwarded' });
    expect(seen).toEqual([]);
  });

  it('forwards an API path and its query unchanged', async () => {
    const a = await send(via('/rest/api/index/custom-metadata/schema/sales?x=%2F..'));
    expect(a.status).toBe(200);
    expect(seen).toEqual(['/rest/api/index/custom-metadata/schema/sales?x=%2F..']);
  });
});

describe('response headers pass by allowlist', () => {
  it("never passes the upstream's CORS, cookies, Location, Refresh, CSP or Basic challenge; passes the API's own headers", async () => {
    const a = await send(via('/rest/hostile-headers'));
    expect(a.status).toBe(200);
    for (const name of [
      'access-control-allow-origin',
      'access-control-allow-credentials',
      'access-control-expose-headers',
      'set-cookie',
      'location',
      'refresh',
      'content-security-policy',
      'www-authenticate',
      'server',
      'x-powered-by',
    ]) {
      expect(a.headers[name], name).toBeUndefined();
    }
    expect(a.headers).toMatchObject({
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'retry-after': '7',
      deprecation: '@1787616000',
      sunset: 'Thu, 15 Apr 2027 00:00:00 GMT',
      link: '</api/agents/a/runs>; rel="successor-version"',
      'x-request-id': 'req_upstream',
      'x-ratelimit-remaining': '3',
      'ratelimit-policy': '600;w=60',
      'x-content-type-options': 'nosniff',
    });
  });

  it('a redirect is not passed on: 502 with an explanation, no Location', async () => {
    const a = await send(via('/rest/redirect'));
    expect(a.status).toBe(502);
    expect(a.headers.location).toBeUndefined();
    expect(JSON.parse(a.body)).toMatchObject({ error: 'bad gateway', message: expect.stringMatching(/redirect/) });
  });
});

describe('content types pass by allowlist', () => {
  it.each(CONTENT_TYPES)('%s: passed on = %s', async (type, passed) => {
    const a = await send(via(`/rest/typed?type=${encodeURIComponent(type)}`));
    if (passed) {
      expect(a.status).toBe(200);
      expect(a.headers['content-type']).toBe(type);
      expect(a.body).toBe('body');
    } else {
      expect(a.status).toBe(502);
      expect(a.headers['content-type']).toMatch(/^application\/json/);
      const body = JSON.parse(a.body) as { error: string; message: string };
      expect(body.message).toContain(type.split(';')[0]);
      expect(a.body).not.toContain('<script>');
    }
  });

  it('an empty answer without a content type passes; a non-empty one is refused', async () => {
    const empty = await send(via('/rest/empty'));
    expect(empty).toMatchObject({ status: 200, body: '', ended: 'complete' });
    const untyped = await send(via('/rest/untyped'));
    expect(untyped.status).toBe(502);
    expect(untyped.body).not.toContain('<script>');
  });

  it('a JSON answer passes whole, with nosniff', async () => {
    const a = await send(via('/rest/api/index/json'));
    expect(a).toMatchObject({ status: 200, body: '{"metadataKeys":[]}', ended: 'complete' });
    expect(a.headers['x-content-type-options']).toBe('nosniff');
  });
});
