/**
 * Headers for every page of the console (`npm start`, `npm run dev`, and what README asks
 * of a static deployment of dist/). The page holds bearer tokens, so: no inline script, no
 * code compiled from strings, no framing, no referrer, no sniffing. No `'unsafe-` keyword.
 */

export interface PagePolicyOptions {
  /** Vite's dev server: HMR over WebSocket and a nonce for the scripts and styles Vite injects inline. */
  dev?: { nonce: string };
}

export function contentSecurityPolicy(options: PagePolicyOptions = {}): string {
  const nonce = options.dev ? ` 'nonce-${options.dev.nonce}'` : '';
  return [
    "default-src 'self'",
    // No 'unsafe-eval': nothing in the page compiles code. The spec lens's validators are
    // compiled when the console is built (spec-validators.ts), and the run form checks an
    // agent's input schema with a validator that walks it (lib/schema-check.ts).
    `script-src 'self'${nonce}`,
    `style-src 'self'${nonce}`,
    "img-src 'self' data:",
    "font-src 'self'",
    // "Directly from the browser" mode calls whatever instance URL the user types (http or
    // https, any host), so connect-src cannot list origins; scripts, frames and forms stay locked.
    `connect-src 'self' https: http:${options.dev ? ' ws: wss:' : ''}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function pageSecurityHeaders(options: PagePolicyOptions = {}): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(options),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    // For browsers that predate frame-ancestors.
    'X-Frame-Options': 'DENY',
  };
}
