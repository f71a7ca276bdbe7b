/**
 * `npm run dev` serves its pages with the same security headers as `npm start` (whose pages
 * e2e/csp.spec.ts loads in Chromium). The dev server injects inline scripts of its own (React
 * Refresh's preamble): each must carry the nonce the policy names, or the page would not run.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ViteDevServer } from 'vite';
import { OPTIONS_ENV } from './options.ts';

const ROOT = resolve(import.meta.dirname, '../..');
let server: ViteDevServer;
let base = '';

beforeAll(async () => {
  // The config's service plugin reads its options from here: a throw-away database.
  process.env[OPTIONS_ENV] = JSON.stringify({ memory: true });
  const { createServer } = await import('vite');
  server = await createServer({
    root: ROOT,
    configFile: resolve(ROOT, 'vite.config.ts'),
    logLevel: 'silent',
    // Port 0: any free port, so this never collides with a running `npm run dev`.
    server: { port: 0, strictPort: false, hmr: false, watch: null },
  });
  await server.listen();
  const address = server.httpServer!.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}, 60_000);

afterAll(async () => {
  await server?.close();
  delete process.env[OPTIONS_ENV];
});

function directives(csp: string): Map<string, string[]> {
  return new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));
}

describe('npm run dev', () => {
  it.each(['/', '/connection', '/runs/echo-assistant', '/schemas/sales'])('%s carries the page headers, and every inline script the policy allows by nonce', async (path) => {
    const res = await fetch(base + path);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const policy = res.headers.get('content-security-policy') ?? '';
    // Neither 'unsafe-inline' nor 'unsafe-eval', in any directive: the nonce covers Vite's own scripts.
    expect(policy).not.toMatch(/'unsafe-/);
    const csp = directives(policy);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    const scriptSrc = csp.get('script-src') ?? [];
    expect(scriptSrc).not.toContain("'unsafe-inline'");
    const nonce = scriptSrc.find((v) => v.startsWith("'nonce-"))?.slice(7, -1);
    expect(nonce).toMatch(/^[A-Za-z0-9+/=]{16,}$/);
    expect(csp.get('connect-src')).toEqual(expect.arrayContaining(["'self'", 'https:', 'http:', 'ws:']));

    const html = await res.text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const attrs of scripts) expect(attrs).toContain(`nonce="${nonce}"`);
    // No inline event handlers, which no nonce can allow.
    expect(html).not.toMatch(/\son[a-z]+=/i);
  });

  it('API answers through the dev server carry nosniff', async () => {
    const res = await fetch(`${base}/sandbox/info`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
