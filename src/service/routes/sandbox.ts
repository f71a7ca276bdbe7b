import { Hono, type Context } from 'hono';
import { bodyLimit } from '../body-limit.ts';
import { isKnownScopeShape } from '../../contract/scopes.ts';
import { closeAfterTooLarge, isPlainObject, metadataError, readJson, unknownKeys, type Env } from '../http.ts';
import { isAllowedHost } from '../request-guard.ts';
import { listText } from '../problem-list.ts';
import type { RunLog } from '../run-log.ts';
import { hashToken, newTokenString, type Store } from '../store.ts';
import { bearerToken } from '../auth.ts';
import type { DurableRuns } from '../durable/executor.ts';
import { CLIENT_RUN_ID_PARAM, clientRunIdProblem, SANDBOX_CLIENT_RUN_ID_HEADER, type SandboxDurableRunsAnswer } from '../../contract/sandbox-client-run.ts';


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

export function sandboxRoutes(store: Store, info: () => Record<string, unknown>, runLog: RunLog, allowedHosts: readonly string[] = [], durable?: DurableRuns) {
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

  /**
   * The durable runs the caller's token started with `X-Sandbox-Client-Run-Id: <client_run_id>`,
   * newest first: how the console finds a run again whose 201 never reached it (a reload). Only
   * the token's own runs, so it tells nothing of another token's.
   */
  app.get('/durable-runs', (c) => {
    const token = bearerToken(c);
    const key = token === undefined ? undefined : hashToken(token);
    if (!key || !store.findTokenByHash(key)) return metadataError(c, 401, 'unauthorized', 'Send Authorization: Bearer <token> of the token that started the runs.');
    const clientRunId = c.req.query(CLIENT_RUN_ID_PARAM);
    if (clientRunId === undefined) return metadataError(c, 400, 'invalid query', `${CLIENT_RUN_ID_PARAM} is required: the ${SANDBOX_CLIENT_RUN_ID_HEADER} the runs were started with.`);
    const refused = clientRunIdProblem(clientRunId);
    if (refused) return metadataError(c, 400, 'invalid query', `${CLIENT_RUN_ID_PARAM}: ${refused}`);
    const rows = durable?.findByClient(key.toString('hex'), clientRunId) ?? [];
    return c.json({ runs: rows.map((r) => ({ run_id: r.run_id, agent_id: r.agent_id, state: r.state, created_at: r.created_at })) } satisfies SandboxDurableRunsAnswer);
  });

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
