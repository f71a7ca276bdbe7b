/**
 * The reference service is safe to run on a developer machine: loopback only, no CORS
 * unless asked for, token minting only from its own origin, and a per-token rate limit
 * that answers 429 with Retry-After in each family's format. All over real HTTP.
 */
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createService, type Service, type ServiceOptions } from './app.ts';
import { listen } from './node.ts';
import {
  expectFamilyError,
  expectLegacyError,
  expectMetadataError,
  expectProblem,
  rawCall,
  TOKENS,
  type Family,
} from './test-http.ts';

interface Running {
  service: Service;
  url: string;
  port: string;
  close(): Promise<void>;
}

async function run(options: ServiceOptions = {}): Promise<Running> {
  const service = createService({ memory: true, rateLimitPerMinute: 0, ...options });
  const server = await listen(service, 0);
  return {
    service,
    url: server.url,
    port: new URL(server.url).port,
    close: async () => {
      await server.close();
      service.close();
    },
  };
}

/** One simple authorized request per family. */
const PROBES: { family: Family; method: string; path: string; token: string; body?: unknown }[] = [
  { family: 'metadata', method: 'GET', path: '/rest/api/index/custom-metadata/schema/sales', token: TOKENS.sales },
  { family: 'legacy', method: 'POST', path: '/rest/api/v1/agents/search', token: TOKENS.agents, body: {} },
  { family: 'platform', method: 'POST', path: '/api/agents/search', token: TOKENS.agents, body: {} },
];

const CONSOLE = 'http://localhost:3000';
const EXPOSED = ['X-Request-Id', 'Deprecation', 'Sunset', 'Link', 'Retry-After'];

function preflight(url: string, path: string, origin: string) {
  return rawCall(url, 'OPTIONS', path, {
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type',
    },
  });
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

const OTHER_ADDRESS = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe('binding', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await run();
  });
  afterAll(() => svc.close());

  it('listens on 127.0.0.1 by default', async () => {
    expect(svc.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await canConnect('127.0.0.1', Number(svc.port))).toBe(true);
  });

  it.skipIf(!OTHER_ADDRESS)('is not reachable on the machine\'s network address', async () => {
    expect(await canConnect(OTHER_ADDRESS!, Number(svc.port))).toBe(false);
  });
});

describe('CORS', () => {
  describe('without corsOrigins', () => {
    let svc: Running;
    beforeAll(async () => {
      svc = await run();
    });
    afterAll(() => svc.close());

    it.each(PROBES)('$family: an answer to a browser origin carries no Access-Control-Allow-Origin', async (p) => {
      const a = await rawCall(svc.url, p.method, p.path, { token: p.token, body: p.body, headers: { origin: CONSOLE } });
      expect(a.status).toBe(200);
      expect(a.headers.get('access-control-allow-origin')).toBeNull();
    });

    it.each(PROBES)('$family: a preflight is not allowed', async (p) => {
      const a = await preflight(svc.url, p.path, CONSOLE);
      expect(a.headers.get('access-control-allow-origin')).toBeNull();
      expect(a.headers.get('access-control-allow-methods')).toBeNull();
      expect(a.status).not.toBe(500);
    });
  });

  describe('with corsOrigins: [http://localhost:3000]', () => {
    let svc: Running;
    beforeAll(async () => {
      svc = await run({ corsOrigins: [CONSOLE] });
    });
    afterAll(() => svc.close());

    it.each(PROBES)('$family: a preflight from that origin is allowed and exposes the headers the console reads', async (p) => {
      const a = await preflight(svc.url, p.path, CONSOLE);
      expect(a.status).toBe(204);
      expect(a.headers.get('access-control-allow-origin')).toBe(CONSOLE);
      expect(a.headers.get('access-control-allow-methods')).toMatch(/\bPOST\b/);
      expect(a.headers.get('access-control-allow-headers')?.toLowerCase()).toMatch(/\bauthorization\b/);
      const exposed = (a.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
      for (const h of EXPOSED) expect(exposed).toContain(h.toLowerCase());
      expect(a.headers.get('access-control-allow-credentials')).toBeNull();
    });

    it.each(PROBES)('$family: an answer to that origin carries its ACAO and exposed headers', async (p) => {
      const a = await rawCall(svc.url, p.method, p.path, { token: p.token, body: p.body, headers: { origin: CONSOLE } });
      expect(a.status).toBe(200);
      expect(a.headers.get('access-control-allow-origin')).toBe(CONSOLE);
      expect(a.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('x-request-id');
    });

    it.each(PROBES)('$family: another origin gets no ACAO, on preflights or answers', async (p) => {
      for (const origin of ['http://evil.example', 'http://localhost:3001', 'null', `${CONSOLE}.evil.example`]) {
        const pre = await preflight(svc.url, p.path, origin);
        expect(pre.headers.get('access-control-allow-origin')).toBeNull();
        const a = await rawCall(svc.url, p.method, p.path, { token: p.token, body: p.body, headers: { origin } });
        expect(a.headers.get('access-control-allow-origin')).toBeNull();
      }
    });

    it('the sandbox routes get no CORS, even for the allowed origin', async () => {
      const pre = await rawCall(svc.url, 'OPTIONS', '/sandbox/tokens', {
        headers: { origin: CONSOLE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(pre.headers.get('access-control-allow-origin')).toBeNull();
      const a = await rawCall(svc.url, 'POST', '/sandbox/tokens', { body: { scopes: ['agents.run'] }, headers: { origin: CONSOLE } });
      expect(a.headers.get('access-control-allow-origin')).toBeNull();
      expectMetadataError(a, 403);
    });
  });
});

describe('sandbox token minting', () => {
  let svc: Running;
  beforeAll(async () => {
    svc = await run();
  });
  afterAll(() => svc.close());

  const mint = (options: { body?: unknown; contentType?: string; headers?: Record<string, string> }) =>
    rawCall(svc.url, 'POST', '/sandbox/tokens', { body: options.body ?? { scopes: ['custommetadata:sales'] }, ...options });

  it.each([
    ['a page of another origin', { origin: 'http://evil.example' }],
    ['a page of another port on this host', { origin: 'http://127.0.0.1:1' }],
    ['localhost, when the service is addressed as 127.0.0.1', { origin: 'http://localhost' }],
    ['an opaque origin (sandboxed iframe, file:)', { origin: 'null' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }],
    ['a Host that is not loopback (DNS rebinding)', { host: 'evil.example:1234' }],
    ['a Host that only starts with localhost', { host: 'localhost.evil.example' }],
    ['a Host that only starts with 127.0.0.1', { host: '127.0.0.1.evil.example' }],
  ])('refuses %s → 403, no token', async (_what, headers) => {
    const a = await mint({ headers });
    expectMetadataError(a, 403);
    expect(a.text).not.toMatch(/sbx_/);
  });

  it('refuses a text/plain body (what a cross-origin form or no-cors fetch can send) → 415', async () => {
    const a = await mint({ body: JSON.stringify({ scopes: ['agents.run'] }), contentType: 'text/plain' });
    expectMetadataError(a, 415);
    expect(a.text).not.toMatch(/sbx_/);
  });

  it.each([
    ['an unknown scope', { scopes: ['admin'] }],
    ['a scope with a space in the group', { scopes: ['custommetadata:sa les'] }],
    ['a prototype key as a group scope', { scopes: ['custommetadata:__proto__'] }],
    ['an underscore in a group scope', { scopes: ['agents.run', 'custommetadata:sales_eu'] }],
    ['no scopes', { scopes: [] }],
    ['scopes as a string', { scopes: 'agents.run' }],
    ['a non-string scope', { scopes: [1] }],
    ['21 scopes', { scopes: Array.from({ length: 21 }, (_, i) => `custommetadata:g${i}`) }],
    ['an unknown field', { scopes: ['agents.run'], admin: true }],
    ['a label over 100 characters', { scopes: ['agents.run'], label: 'x'.repeat(101) }],
  ])('refuses %s → 400', async (_what, body) => {
    const a = await mint({ body });
    expectMetadataError(a, 400);
    expect(a.text).not.toMatch(/sbx_/);
  });

  it.each([
    ['no Origin header (a program on this machine)', {}],
    ['an Origin equal to the service origin', { origin: 'SELF' }],
    ['Sec-Fetch-Site: same-origin with that Origin', { origin: 'SELF', 'sec-fetch-site': 'same-origin' }],
    // Host names ignore case: a browser's Origin is always lower-case, whatever the Host says.
    ['a Host in capitals and that Origin in lower case', { host: 'HOST_UPPER', origin: 'SELF_LOWER' }],
  ])('mints for %s → 201, and the token works with exactly its scopes', async (_what, headers) => {
    const own = new URL(svc.url);
    const named = { SELF: svc.url, HOST_UPPER: `LOCALHOST:${own.port}`, SELF_LOWER: `http://localhost:${own.port}` } as Record<string, string>;
    const resolved = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, named[v] ?? v]));
    const a = await mint({ body: { scopes: ['custommetadata:Sales', 'agents.run'] }, headers: resolved });
    expect(a.status).toBe(201);
    const { token } = a.json as { token: string };
    expect(token).toMatch(/^\S{20,}$/);
    const schema = await rawCall(svc.url, 'GET', '/rest/api/index/custom-metadata/schema/sales', { token });
    expect(schema.status).toBe(200);
    const other = await rawCall(svc.url, 'GET', '/rest/api/index/custom-metadata/schema/hr', { token });
    expectMetadataError(other, 401);
    const agents = await rawCall(svc.url, 'POST', '/api/agents/search', { token, body: {} });
    expect(agents.status).toBe(200);
  });
});

describe('rate limit', () => {
  let svc: Running;
  beforeEach(async () => {
    svc = await run({ rateLimitPerMinute: 3 });
  });
  afterEach(() => svc.close());

  it.each(PROBES)('$family: the 4th request within a minute → 429 with Retry-After, in the family format', async (p) => {
    const token = p.family === 'metadata' ? TOKENS.global : TOKENS.everything;
    for (let i = 0; i < 3; i++) {
      expect((await rawCall(svc.url, p.method, p.path, { token, body: p.body })).status).toBe(200);
    }
    const a = await rawCall(svc.url, p.method, p.path, { token, body: p.body });
    expectFamilyError(p.family, a, 429);
    const retryAfter = Number(a.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    if (p.family === 'platform') expectProblem(a, 429, 'rate_limit_exceeded');
    if (p.family === 'legacy') expect(expectLegacyError(a, 429)).toMatch(/retry/i);
  });

  it('the limit is per token: another token is still served', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await rawCall(svc.url, 'GET', '/rest/api/index/custom-metadata/schema/hr', { token: TOKENS.global })).status).toBe(200);
    }
    const limited = await rawCall(svc.url, 'GET', '/rest/api/index/custom-metadata/schema/hr', { token: TOKENS.global });
    expectMetadataError(limited, 429);
    const other = await rawCall(svc.url, 'GET', '/rest/api/index/custom-metadata/schema/hr', { token: TOKENS.hr });
    expect(other.status).toBe(200);
  });
});
