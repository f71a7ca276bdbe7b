/**
 * The console's server as `npm start` runs it (Vite's preview server with vite.config.ts:
 * the reference service plugin and the page security headers), on a real socket, against
 * what arrives before any page or route decides: malformed requests, foreign and
 * upper-case Host names. Every refusal is in the family of the path asked for and carries
 * the page security headers. The built console is stood in for by a one-line page, so no
 * build is needed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTIONS_ENV, UPSTREAMS_ENV } from './options.ts';
import { contentSecurityPolicy } from './security-headers.ts';
import { expectFamilyError, expectProblem, TOKENS, type Answer, type Family } from './test-http.ts';

const ROOT = resolve(import.meta.dirname, '../..');
let server: PreviewServer;
let port = 0;
let dist = '';

beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), 'console-dist-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Console</title><p>console</p>');
  process.env[OPTIONS_ENV] = JSON.stringify({ memory: true, rateLimitPerMinute: 0 });
  process.env[UPSTREAMS_ENV] = JSON.stringify(['http://127.0.0.1:9']);
  const { preview } = await import('vite');
  server = await preview({
    root: ROOT,
    configFile: resolve(ROOT, 'vite.config.ts'),
    logLevel: 'silent',
    build: { outDir: dist },
    preview: { port: 0, strictPort: false, host: '127.0.0.1', open: false, allowedHosts: [] },
  });
  const address = server.httpServer.address();
  port = typeof address === 'object' && address ? address.port : 0;
}, 60_000);

afterAll(async () => {
  await server?.close();
  rmSync(dist, { recursive: true, force: true });
  delete process.env[OPTIONS_ENV];
  delete process.env[UPSTREAMS_ENV];
});

/** Sends `text` as is and reads the answer until the server closes the connection. */
function exchange(text: string): Promise<Answer & { raw: string }> {
  return new Promise((done, fail) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', fail);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const split = raw.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = (split < 0 ? raw : raw.slice(0, split)).split('\r\n');
      const headers = new Headers();
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      const text = split < 0 ? '' : raw.slice(split + 4);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      done({ raw, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0), headers, contentType: headers.get('content-type') ?? '', text, json });
    });
    socket.write(text);
  });
}

function get(path: string, host: string, token?: string, method = 'GET') {
  const auth = token ? `Authorization: Bearer ${token}\r\n` : '';
  const body = method === 'POST' ? '{}' : '';
  const length = method === 'POST' ? `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` : '';
  return exchange(`${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n${auth}${length}Connection: close\r\n\r\n${body}`);
}

/** The page security headers of security-headers.ts, as `npm start` serves its pages. */
function expectSecurityHeaders(a: Answer): void {
  expect(a.headers.get('x-content-type-options')).toBe('nosniff');
  expect(a.headers.get('content-security-policy')).toBe(contentSecurityPolicy());
  expect(a.headers.get('x-frame-options')).toBe('DENY');
  expect(a.headers.get('referrer-policy')).toBe('no-referrer');
}

describe('npm start: what arrives before any page or route', () => {
  it.each([
    ['a malformed request line', 'GARBAGE\r\n\r\n'],
    ['an unknown HTTP version', 'GET / HTTP/9.9\r\nHost: localhost\r\n\r\n'],
    ['a header without a colon', 'GET / HTTP/1.1\r\nHost: localhost\r\nbroken header\r\n\r\n'],
  ])('%s → 400 with an {error, message} body and the security headers', async (_what, text) => {
    const a = await exchange(text);
    expectFamilyError('metadata', a, 400);
    expectSecurityHeaders(a);
  });

  it.each([
    ['a page', '/', 'metadata'],
    ['a page deep link', '/runs/echo-assistant', 'metadata'],
    ['a custom-metadata path', '/rest/api/index/custom-metadata/schema/sales', 'metadata'],
    ['a client API path', '/rest/api/v1/agents/echo-assistant', 'legacy'],
    ['a platform API path', '/api/agents/echo-assistant', 'platform'],
    ['a platform path through the proxy', '/upstream/127.0.0.1:9/api/agents/echo-assistant', 'platform'],
    ['the sandbox', '/sandbox/info', 'metadata'],
  ] as const)('a foreign Host on %s (%s) → 403 in the %s format with the security headers', async (_what, path, family: Family) => {
    for (const host of ['evil.example', `evil.example:${port}`, '10.0.0.5', 'localhost.evil.example']) {
      const a = await get(path, host, TOKENS.everything);
      expectFamilyError(family, a, 403);
      expect(a.text).toMatch(/allowed-host/);
      expectSecurityHeaders(a);
      if (family === 'platform') expectProblem(a, 403, 'host_not_allowed');
    }
  });

  it.each([
    ['a page', '/', 'text/html'],
    ['the sandbox', '/sandbox/info', 'application/json'],
    ['a schema', '/rest/api/index/custom-metadata/schema/sales', 'application/json'],
  ])('Host names ignore case: LOCALHOST is answered on %s', async (_what, path, type) => {
    for (const host of ['LOCALHOST', `LocalHost:${port}`, 'localhost']) {
      const a = await get(path, host, TOKENS.sales);
      expect({ host, status: a.status }).toEqual({ host, status: 200 });
      expect(a.contentType).toContain(type);
      expectSecurityHeaders(a);
    }
  });

  it.each([
    ['a CONNECT tunnel', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 'metadata'],
    ['a WebSocket upgrade of a page', 'GET / HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n', 'metadata'],
    ['a WebSocket upgrade of a platform path', 'GET /api/agents/search HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n', 'platform'],
    ['an upgrade through the proxy', 'GET /upstream/127.0.0.1:9/rest/api/v1/agents/x HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n', 'legacy'],
  ] as const)('%s → 400 in the %s format with the security headers, and the connection closed', async (_what, text, family: Family) => {
    const a = await exchange(text);
    expectFamilyError(family, a, 400);
    expectSecurityHeaders(a);
    expect(a.headers.get('connection')).toBe('close');
  });

  it('an API body that stops arriving → 408 in its family format within seconds, with the security headers', async () => {
    const started = performance.now();
    const a = await exchange(
      `POST /api/agents/search HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"na`,
    );
    expectProblem(a, 408, 'request_timeout');
    expectSecurityHeaders(a);
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 30_000);

  it('a refusal of the service itself (a dot segment) is in the family format with the security headers', async () => {
    const a = await get('/api/%2e%2e/sandbox/info', 'localhost', TOKENS.agents);
    expectProblem(a, 400);
    expectSecurityHeaders(a);
    const legacy = await get('/rest/api/v1/%2e%2e/x', 'localhost', TOKENS.agents, 'POST');
    expectFamilyError('legacy', legacy, 400);
    expectSecurityHeaders(legacy);
  });
});

describe('npm start: the sandbox consent page', () => {
  it('carries a policy of its own (its stylesheet, its form, the console it returns to), not the console page’s', async () => {
    const origin = `http://127.0.0.1:${port}`;
    const asked = await fetch(`${origin}/rest/api/v1/tool-servers/srv_gcal_01/auth`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.agents}`, 'content-type': 'application/json' },
      body: JSON.stringify({ returnUrl: `${origin}/runs/calendar-helper` }),
    });
    expect(asked.status).toBe(200);
    const { authorizationUrl } = (await asked.json()) as { authorizationUrl: string };
    expect(authorizationUrl.startsWith(`${origin}/sandbox/oauth/consent?state=`)).toBe(true);
    const page = await fetch(authorizationUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(`default-src 'none'; style-src 'self'; form-action 'self' ${origin}; frame-ancestors 'none'; base-uri 'none'`);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('Allow access to Google Calendar?');
  });
});

describe('npm start: the consent page’s own origin is where the console’s server listens', () => {
  const authorize = (target: string, host: string, returnUrl: string) => {
    const body = JSON.stringify({ returnUrl });
    return exchange(
      `POST ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${TOKENS.agents}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
  const path = '/rest/api/v1/tool-servers/srv_gcal_01/auth';

  it('refuses a returnUrl on the origin an absolute-form target or a Host with another port names (400)', async () => {
    // The console's server does not take an absolute-form target for the service's paths at all.
    const absolute = await authorize(`http://evil.example${path}`, `127.0.0.1:${port}`, 'http://evil.example/phish');
    expect(absolute.status).not.toBe(200);
    expect(absolute.text).not.toContain('authorizationUrl');
    const otherPort = await authorize(path, '127.0.0.1:9999', 'http://127.0.0.1:9999/runs');
    expect(otherPort.status).toBe(400);
    expect(otherPort.json).toBe(
      `returnUrl is on http://127.0.0.1:9999, which is not an allowed return URL: this service returns only to http://127.0.0.1:${port}, http://localhost:${port}. ` +
        'Start it with --allowed-return-origin <origin> to allow another console.',
    );
    expect((await authorize(path, 'localhost:9999', 'http://localhost:9999/runs')).status).toBe(400);
  });

  it('takes its own origin, with the port it listens on, and names its consent page there whatever the request named', async () => {
    const asked = await authorize(path, '127.0.0.1:9999', `http://localhost:${port}/runs`);
    expect(asked.status).toBe(200);
    expect(new URL((asked.json as { authorizationUrl: string }).authorizationUrl).origin).toBe(`http://127.0.0.1:${port}`);
  });
});

