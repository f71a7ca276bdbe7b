import { Hono, type Context } from 'hono';
import { bodyLimit } from '../body-limit.ts';
import { isKnownScopeShape } from '../../contract/scopes.ts';
import { closeAfterTooLarge, isPlainObject, metadataError, readJson, unknownKeys, type Env } from '../http.ts';
import { isAllowedHost } from '../request-guard.ts';
import { listText } from '../problem-list.ts';
import type { RunLog } from '../run-log.ts';
import { newTokenString, type Store } from '../store.ts';


/**
 * Only the console's own page, or a program on this machine, may use the sandbox routes:
 * the Host must be a loopback name (no DNS rebinding), a browser's Origin must be this
 * very origin, and the body must be JSON, which a cross-origin form or no-cors fetch
 * cannot send without a preflight this service never answers.
 */
function sameOriginOnly(c: Context<Env>, allowedHosts: readonly string[]): Response | undefined {
  const host = c.req.header('host') ?? '';
  if (!isAllowedHost(host, allowedHosts)) {
    return metadataError(c, 403, 'forbidden', 'The sandbox routes answer only on a loopback address (localhost, 127.0.0.1) or a name given with --allowed-host.');
  }
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return metadataError(c, 403, 'forbidden', 'The sandbox routes cannot be used from another site.');
  }
  const origin = c.req.header('origin');
  if (origin !== undefined) {
    const own = new URL(c.req.url);
    // Host names ignore case; a browser serializes its Origin in lower case.
    const ownOrigin = `${own.protocol}//${host}`.toLowerCase();
    if (origin.toLowerCase() !== ownOrigin) {
      return metadataError(c, 403, 'forbidden', `The sandbox routes cannot be used from ${origin}.`);
    }
  }
  return undefined;
}

export function sandboxRoutes(store: Store, info: () => Record<string, unknown>, runLog: RunLog, allowedHosts: readonly string[] = []) {
  const app = new Hono<Env>();
  app.use(
    bodyLimit({
      maxSize: 16 * 1024,
      onError: (c) => {
        closeAfterTooLarge(c);
        return metadataError(c, 413, 'request too large', 'The body is over 16 kB.');
      },
    }),
  );
  app.use(async (c, next) => sameOriginOnly(c, allowedHosts) ?? (await next()));

  app.get('/info', (c) => c.json({ service: 'reference', ...info() }));

  /** The runs this service started and every run POST it received, newest last: what arrived, not what a client thinks it sent. */
  app.get('/runs', (c) => c.json({ runs: runLog.list(), posts: runLog.listPosts() }));

  app.post('/tokens', async (c) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') return metadataError(c, 415, 'unsupported media type', 'Send the body as application/json.');
    const body = await readJson(c);
    if (!body.ok) return metadataError(c, body.status, 'invalid body', body.message);
    const v = body.value;
    if (!isPlainObject(v)) return metadataError(c, 400, 'invalid body', 'The body must be { "scopes": [ ... ], "label"?: string }.');
    const extra = unknownKeys(v, ['scopes', 'label']);
    if (extra.length) return metadataError(c, 400, 'invalid body', `Unknown field(s): ${listText(extra)}.`);
    const scopes = v.scopes;
    if (!Array.isArray(scopes) || scopes.length === 0 || scopes.length > 20 || !scopes.every((s) => typeof s === 'string')) {
      return metadataError(c, 400, 'invalid scopes', 'scopes must be a list of 1 to 20 scope strings.');
    }
    const bad = scopes.filter((s) => !isKnownScopeShape(s));
    if (bad.length) {
      return metadataError(
        c,
        400,
        'invalid scopes',
        `Unknown scope(s): ${listText(bad)}. Use custommetadata:global_scope, custommetadata:<group> or agents.run.`,
      );
    }
    if (v.label !== undefined && (typeof v.label !== 'string' || v.label.length > 100)) {
      return metadataError(c, 400, 'invalid label', 'label must be a string of at most 100 characters.');
    }
    const token = newTokenString();
    const label = (v.label as string | undefined) ?? `Sandbox token (${scopes.join(', ')})`;
    store.addToken(token, { label, scopes: scopes.map((s: string) => s.trim()) });
    return c.json({ token, label, scopes }, 201);
  });
  return app;
}
