import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, pageSecurityHeaders } from './security-headers.ts';

const directives = (csp: string) => new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));

describe('the page policy', () => {
  it.each([
    ['npm start and a static deployment', contentSecurityPolicy()],
    ['npm run dev', contentSecurityPolicy({ dev: { nonce: 'bm9uY2Utb2YtdGhpcy1zdGFydA==' } })],
  ])('%s: no unsafe keyword in any directive, scripts from this origin only', (_, csp) => {
    expect(csp).not.toMatch(/'unsafe-/);
    const scriptSrc = directives(csp).get('script-src') ?? [];
    expect(scriptSrc[0]).toBe("'self'");
    expect(scriptSrc.slice(1).every((v) => v.startsWith("'nonce-"))).toBe(true);
    expect(directives(csp).get('default-src')).toEqual(["'self'"]);
    expect(directives(csp).get('object-src')).toEqual(["'none'"]);
    expect(directives(csp).get('base-uri')).toEqual(["'none'"]);
  });

  it('the dev server names its nonce for the scripts and styles it injects, and nothing else inline', () => {
    const csp = directives(contentSecurityPolicy({ dev: { nonce: 'abc123' } }));
    expect(csp.get('script-src')).toEqual(["'self'", "'nonce-abc123'"]);
    expect(csp.get('style-src')).toEqual(["'self'", "'nonce-abc123'"]);
    expect(directives(contentSecurityPolicy()).get('script-src')).toEqual(["'self'"]);
  });

  it('comes with the other page headers', () => {
    expect(pageSecurityHeaders()).toEqual({
      'Content-Security-Policy': contentSecurityPolicy(),
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
    });
  });
});
