import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import { AgentCatalog } from './agents.ts';
import { legacyError, metadataError, newRequestId, problem, type Env } from './http.ts';
import { customMetadataRoutes } from './routes/custom-metadata.ts';
import { LEGACY_BASE, legacyAgentRoutes, PLATFORM_BASE, platformAgentRoutes } from './routes/agents.ts';
import { sandboxRoutes } from './routes/sandbox.ts';
import type { RunObserver } from './runs.ts';
import { RUN_POST_PATH, RunLog } from './run-log.ts';
import { seedIfEmpty } from './seed.ts';
import { Store, type StoreOptions } from './store.ts';
import { DurableRuns } from './durable/executor.ts';
import { DurableRunStore } from './durable/store.ts';

export interface ServiceOptions extends StoreOptions {
  /** Origins allowed to call the API from a browser; none by default. */
  corsOrigins?: string[];
  /** Requests per minute per token before 429; 0 turns the limit off. */
  rateLimitPerMinute?: number;
  /** Idle time before a keep-alive comment on a stream. */
  keepAliveMs?: number;
  /** The scripted agents' file. */
  agentsFile?: string;
  /** Sees every run start and end (tests, diagnostics). */
  runObserver?: RunObserver;
  /** Durable runs' execution deadline per turn (default 30 min) and the grace after it before a read fails them (default 10 min). */
  durableTimeoutMs?: number;
  durableGraceMs?: number;
}

export interface Service {
  app: Hono<Env>;
  store: Store;
  catalog: AgentCatalog;
  close(): void;
}

/** Path prefixes the service answers; everything else belongs to the console. */
export const SERVICE_PREFIXES = ['/rest/', '/api/', '/sandbox/'] as const;

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;

const EXPOSED_HEADERS = ['X-Request-Id', 'Retry-After', 'Deprecation', 'Sunset', 'Link', 'WWW-Authenticate'];

function familyOf(path: string): 'metadata' | 'legacy' | 'platform' {
  if (path.startsWith('/rest/api/v1/')) return 'legacy';
  if (path.startsWith('/api/')) return 'platform';
  return 'metadata';
}

function familyError(c: Context<Env>, status: 404 | 500, detail: string): Response {
  switch (familyOf(new URL(c.req.url).pathname)) {
    case 'legacy':
      return legacyError(c, status, detail);
    case 'platform':
      return problem(c, status === 404 ? 'resource_not_found' : 'internal_error', detail);
    default:
      return metadataError(c, status, status === 404 ? 'not found' : 'internal error', detail);
  }
}

export function createApp(store: Store, catalog: AgentCatalog, options: ServiceOptions = {}): Hono<Env> {
  const app = new Hono<Env>();
  const runLog = new RunLog();
  const runOptions = {
    rateLimitPerMinute: options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
    keepAliveMs: options.keepAliveMs ?? 15_000,
    observer: runLog.observer(options.runObserver),
    durable: new DurableRuns(new DurableRunStore(store.database), {
      timeoutMs: options.durableTimeoutMs,
      graceMs: options.durableGraceMs,
    }),
  };
  // Durable runs work in the background: they stop before the database closes.
  store.onClose(() => runOptions.durable.stop());

  app.use(async (c, next) => {
    const id = newRequestId();
    c.set('requestId', id);
    c.header('X-Request-Id', id);
    await next();
    // Every run POST that arrived, refused ones included: the exactly-once checks count these.
    if (c.req.method === 'POST' && RUN_POST_PATH.test(c.req.path)) {
      runLog.post({ requestId: id, path: c.req.path, status: c.res.status, at: new Date().toISOString() });
    }
  });
  if (options.corsOrigins?.length) {
    const policy = cors({
      origin: options.corsOrigins,
      allowHeaders: ['Authorization', 'Content-Type', 'Accept'],
      allowMethods: ['GET', 'POST', 'PUT', 'DELETE'],
      exposeHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });
    app.use('/rest/*', policy);
    app.use('/api/*', policy);
  }

  app.route('/rest/api/index', customMetadataRoutes(store, runOptions));
  app.route(LEGACY_BASE, legacyAgentRoutes(store, catalog, runOptions));
  app.route(PLATFORM_BASE, platformAgentRoutes(store, catalog, runOptions));
  app.route(
    '/sandbox',
    sandboxRoutes(store, () => ({ agents: catalog.agents.length, groups: store.countGroups() }), runLog),
  );

  app.notFound((c) => familyError(c, 404, `No endpoint ${c.req.method} ${new URL(c.req.url).pathname}.`));
  app.onError((err, c) => {
    // The message only: a request's headers (and so its token) never reach the log.
    console.error(`[reference-service] ${c.get('requestId')} ${c.req.method} ${new URL(c.req.url).pathname}: ${err.message}`);
    return familyError(c, 500, `Internal error; request id ${c.get('requestId')}.`);
  });
  return app;
}

export function createService(options: ServiceOptions = {}): Service {
  const store = new Store(options);
  seedIfEmpty(store);
  const catalog = new AgentCatalog(options.agentsFile);
  const app = createApp(store, catalog, options);
  return { app, store, catalog, close: () => store.close() };
}
