/**
 * The console server's `--upstream` proxy against a hostile upstream of our own: one that
 * breaks answers off, sends HTML, CORS, cookies and redirects. Real sockets on both sides:
 * client → proxy (node:http with the middleware, as Vite mounts it) → upstream (node:http).
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { familyOf } from './families.ts';
import { expectFamilyError, expectProblem, type Answer } from './test-http.ts';
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
  '/rest/status-999': (_req, res) => {
    res.writeHead(999, { 'content-type': 'application/json' });
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

/** Answers that never come, ended when the tests are over. */
const held: ServerResponse[] = [];

/** A 25 MB event stream, written as fast as the proxy takes it. */
const BIG_EVENTS = 25 * 1024;
const BIG_EVENT = `id: 1\nevent: message\ndata: ${'x'.repeat(1000)}\n\n`;
ROUTES['/api/agents/big/runs'] = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let n = 0;
  const pump = () => {
    while (n < BIG_EVENTS) {
      n++;
      if (!res.write(BIG_EVENT)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
};
ROUTES['/api/agents/silent/runs'] = (_req, res) => void held.push(res);
ROUTES['/rest/api/index/silent'] = (_req, res) => void held.push(res);
/** A head without a content type, then nothing. */
ROUTES['/rest/api/index/untyped-silent'] = (_req, res) => {
  res.writeHead(200);
  res.flushHeaders();
  held.push(res);
};
ROUTES['/rest/api/v1/agents/runs/wait'] = ROUTES['/rest/api/v1/agents/runs/wait']!;
ROUTES['/api/agents/stalls/runs'] = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write('id: 1\nevent: message\ndata: {"n":1}\n\n');
  held.push(res);
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
  for (const res of held) res.destroy();
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

/** An outcome as the family checks of test-http read it. */
function answer(o: Outcome): Answer {
  const headers = new Headers();
  for (const [k, v] of Object.entries(o.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  let json: unknown;
  try {
    json = JSON.parse(o.body);
  } catch {
    json = undefined;
  }
  return { status: o.status, headers, contentType: headers.get('content-type') ?? '', text: o.body, json };
}

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
  ])('refuses %s with 400 in the family format of the path, and forwards nothing', async (_what, path) => {
    const a = await send(via(path));
    expectFamilyError(familyOf(path), answer(a), 400);
    expect(a.body).toMatch(/dot segment|slash|backslash/);
    if (familyOf(path) === 'metadata') expect(JSON.parse(a.body)).toMatchObject({ error: 'path not allowed' });
    expect(seen).toEqual([]);
  });

  it.each([
    ['metadata', '/rest/api/index/%2e%2e/x'],
    ['legacy', '/rest/api/v1/%2e%2e/x'],
    ['platform', '/api/%2e%2e/x'],
  ] as const)('a %s path is refused in that family\'s format: %s', async (family, path) => {
    expectFamilyError(family, answer(await send(via(path), 'POST')), 400);
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

  it('a status HTTP does not define (600 and over) is not passed on: 502 naming it', async () => {
    const a = await send(via('/rest/status-999'));
    expect(a.status).toBe(502);
    expect(JSON.parse(a.body)).toMatchObject({ error: 'bad gateway', message: expect.stringMatching(/999/) });
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

describe('streaming through the proxy', () => {
  let quick: Server;
  let quickPort: number;
  let watched: Server;
  let watchedPort: number;
  const responses: ServerResponse[] = [];
  beforeAll(async () => {
    // An upstream that sends nothing for a second is given up on.
    const impatient = upstreamProxy([`http://${upstreamHost}`], { timeoutMs: 1_000 });
    quick = createServer((req, res) => impatient(req, res, () => res.writeHead(404).end()));
    quickPort = await listenOn(quick);
    // The default timeout, and every response kept to count its listeners.
    const patient = upstreamProxy([`http://${upstreamHost}`]);
    watched = createServer((req, res) => {
      responses.push(res);
      patient(req, res, () => res.writeHead(404).end());
    });
    watchedPort = await listenOn(watched);
  });
  afterAll(async () => {
    for (const s of [quick, watched]) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  it('a 25 MB stream to a slow reader: every byte arrives, back-pressure holds, and no listener piles up on the response', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    let most = 0;
    const sampler = setInterval(() => {
      for (const r of responses) most = Math.max(most, r.listenerCount('close'), r.listenerCount('drain'));
    }, 2);
    try {
      const received = await new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: watchedPort, path: via('/api/agents/big/runs'), method: 'POST', agent: false }, (res) => {
          if (res.statusCode !== 200) reject(new Error(`answered ${res.statusCode}`));
          let bytes = 0;
          res.on('data', (c: Buffer) => {
            bytes += c.length;
            // A reader that takes its time with each chunk: the proxy waits for it again and again.
            res.pause();
            setImmediate(() => res.resume());
          });
          res.on('end', () => resolve(bytes));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
      expect(received).toBe(BIG_EVENTS * BIG_EVENT.length);
    } finally {
      clearInterval(sampler);
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    expect(most).toBeLessThanOrEqual(10);
  }, 60_000);

  it.each([
    ['platform', '/api/agents/silent/runs'],
    ['metadata', '/rest/api/index/silent'],
  ] as const)('an upstream that sends no answer: 502 in the %s family\'s format once the timeout passes', async (family, path) => {
    const started = Date.now();
    const a = await new Promise<Outcome>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: quickPort, path: via(path), method: 'POST', agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ended: 'complete' }));
      });
      req.on('error', reject);
      req.end('{}');
    });
    expectFamilyError(family, answer(a), 502);
    expect(a.body).toMatch(/sent no answer within 1000 ms/);
    if (family === 'platform') expectProblem(answer(a), 502, 'bad_gateway');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('an upstream that sends a head without a content type and then nothing: 502 once the timeout passes, not a wait without end', async () => {
    const started = Date.now();
    const a = await new Promise<Outcome>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: quickPort, path: via('/rest/api/index/untyped-silent'), agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ended: 'complete' }));
      });
      req.on('error', reject);
      req.setTimeout(5_000, () => req.destroy(new Error('no answer in 5 s')));
      req.end();
    });
    expectFamilyError('metadata', answer(a), 502);
    expect(a.body).toMatch(/no content type, then sent nothing within 1000 ms/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('an upstream that goes silent mid-stream: the client gets what came, then a broken connection', async () => {
    const a = await new Promise<Outcome>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: quickPort, path: via('/api/agents/stalls/runs'), method: 'POST', agent: false }, (res) => {
        let body = '';
        let settled = false;
        const done = (ended: Outcome['ended']) => {
          if (!settled) resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ended });
          settled = true;
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
    expect(a.status).toBe(200);
    expect(a.body).toContain('id: 1');
    expect(a.ended).toBe('error');
  });
});
