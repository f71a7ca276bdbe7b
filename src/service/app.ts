import { Hono, type Context } from 'hono';
import { SANDBOX_FAULT_HEADER } from '../contract/sandbox-fault.ts';
import { cors } from 'hono/cors';
import { AgentCatalog } from './agents.ts';
import { familyOf } from './families.ts';
import { withFault } from './faults.ts';
import { legacyError, metadataError, newRequestId, nodeResponseOf, problem, type Env } from './http.ts';
import { customMetadataRoutes } from './routes/custom-metadata.ts';
import { LEGACY_BASE, legacyAgentRoutes, PLATFORM_BASE, platformAgentRoutes } from './routes/agents.ts';
import { sandboxRoutes } from './routes/sandbox.ts';
import { consentRoutes } from './routes/consent.ts';
import { ToolAuthorizations } from './tool-auth.ts';
import { OwnOrigins } from './own-origins.ts';
import { RunSlots, type RunObserver, type RunOptions } from './runs.ts';
import { RateLimiter } from './auth.ts';
import { preparedSchemaReads, type PreparedRead } from './prepared-reads.ts';
import { preparedRunStreams, type PreparedRun } from './prepared-runs.ts';
import { replayRoutes, type ReplayOptions } from './replay.ts';
import { isAllowedHost, unsafePathProblem } from './request-guard.ts';
import { loggedMessages, RUN_POST_PATH, RunLog } from './run-log.ts';
import { DEMO_TOKENS, seedIfEmpty } from './seed.ts';
import { Store, type StoreOptions } from './store.ts';
import { DurableRuns } from './durable/executor.ts';
import { DurableRunStore } from './durable/store.ts';
import type { Clock } from './durable/clock.ts';

export interface ServiceOptions extends StoreOptions {
  /** Origins allowed to call the API from a browser; none by default. */
  corsOrigins?: string[];
  /** Requests per minute per token before 429; 0 turns the limit off. */
  rateLimitPerMinute?: number;
  /** Runs (stream or wait, both families) one token may have going at once before 429; 0 turns the cap off. */
  maxRunsPerToken?: number;
  /** Idle time before a keep-alive comment on a stream. */
  keepAliveMs?: number;
  /** The scripted agents' file. */
  agentsFile?: string;
  /** Sees every run start and end (tests, diagnostics). */
  runObserver?: RunObserver;
  /** Host names answered besides loopback ones (`--allowed-host`), e.g. when bound to 0.0.0.0. */
  allowedHosts?: string[];
  /** Durable runs' execution deadline per turn (default 30 min) and the grace after it before a read fails them (default 10 min). */
  durableTimeoutMs?: number;
  durableGraceMs?: number;
  /** Durable runs not yet over one token may have (`--max-durable-runs`); the run cap's value by default, 0 for none. */
  maxDurableRunsPerToken?: number;
  /** How long a durable run is kept after it ended (`--durable-retention`); a day by default. */
  durableRetentionMs?: number;
  /** The bound on a durable run's output text, in UTF-8 bytes; 1 MiB by default. */
  durableMaxOutputBytes?: number;
  /** Time for durable runs; tests drive it (not a command-line option). */
  clock?: Clock;
  /**
   * Origins besides the service's own that a tool-server authorization may return to
   * (`--allowed-return-origin`): a console on another origin, e.g. one that reaches this
   * service through its `--upstream` proxy.
   */
  allowedReturnOrigins?: string[];
  /** `--replay DIR`: the API answers from these recordings instead of the routes (replay.ts). */
  replay?: ReplayOptions;
}

export interface Service {
  app: Hono<Env>;
  store: Store;
  catalog: AgentCatalog;
  durable: DurableRuns;
  /** The schema read from a prepared answer, ahead of the app (prepared-reads.ts); without it, the app answers it. */
  preparedRead?: PreparedRead;
  /** Run streams started ahead of the app (prepared-runs.ts); without it, the app starts them. */
  preparedRun?: PreparedRun;
  /** The run cap's slots, shared by every way in. */
  runSlots: RunSlots;
  /** Its own origins: whatever serves it (node.ts `listen`, the console's server) says where it listens. */
  ownOrigins: OwnOrigins;
  close(): void;
}

/**
 * What the app shares with the ways in ahead of it (prepared-reads.ts, prepared-runs.ts): each
 * family's rate limit, the run cap's slots and the run log, so that a request counts once
 * whichever way it goes.
 */
export interface AppShared {
  metadataLimiter: RateLimiter;
  legacyLimiter: RateLimiter;
  platformLimiter: RateLimiter;
  runSlots: RunSlots;
  runLog: RunLog;
  /** The service's own origins, known once its server listens (own-origins.ts). */
  ownOrigins: OwnOrigins;
}

export function appShared(options: ServiceOptions = {}): AppShared {
  const perMinute = options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  return {
    metadataLimiter: new RateLimiter(perMinute),
    legacyLimiter: new RateLimiter(perMinute),
    platformLimiter: new RateLimiter(perMinute),
    runSlots: new RunSlots(options.maxRunsPerToken ?? DEFAULT_MAX_RUNS_PER_TOKEN),
    runLog: new RunLog(),
    ownOrigins: new OwnOrigins(options.allowedHosts ?? []),
  };
}

/** Path prefixes the service answers; everything else belongs to the console. */
export const SERVICE_PREFIXES = ['/rest/', '/api/', '/sandbox/'] as const;

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;

/** A reference choice: enough for a console with a few tabs and a script, not for one token to take the service. */
export const DEFAULT_MAX_RUNS_PER_TOKEN = 20;

const EXPOSED_HEADERS = ['X-Request-Id', 'Retry-After', 'Deprecation', 'Sunset', 'Link', 'WWW-Authenticate', 'ETag'];

const FAMILY_ERRORS = {
  400: { problem: 'invalid_request', metadata: 'invalid path' },
  403: { problem: 'host_not_allowed', metadata: 'host not allowed' },
  404: { problem: 'resource_not_found', metadata: 'not found' },
  500: { problem: 'internal_error', metadata: 'internal error' },
} as const;

function familyError(c: Context<Env>, status: keyof typeof FAMILY_ERRORS, detail: string): Response {
  const names = FAMILY_ERRORS[status];
  // The path as it arrived: `/api/%2e%2e/x` is refused as the platform path it names.
  switch (familyOf(rawPathOf(c))) {
    case 'legacy':
      return legacyError(c, status, detail);
    case 'platform':
      // host_not_allowed is this service's own code, not one of the vendor's.
      return problem(c, names.problem, detail, status === 403 ? { status, title: 'Host Not Allowed' } : {});
    default:
      return metadataError(c, status, names.metadata, detail);
  }
}

/** The path as it arrived on the socket; `c.req.url` has already had its dot segments resolved. */
function rawPathOf(c: Context<Env>): string {
  const incoming = (c.env as { incoming?: { url?: string } } | undefined)?.incoming;
  if (incoming?.url !== undefined) return incoming.url;
  const raw = c.req.raw.url;
  return raw.slice(raw.indexOf('/', raw.indexOf('//') + 2));
}

/** Durable runs on `store`'s database, configured from the service options; they stop before the database closes. */
export function createDurableRuns(store: Store, options: ServiceOptions = {}): DurableRuns {
  const durable = new DurableRuns(new DurableRunStore(store.database), {
    timeoutMs: options.durableTimeoutMs,
    graceMs: options.durableGraceMs,
    // A pool of its own, of the same size as the run cap unless told otherwise: durable runs
    // last minutes or wait days for a decision, and must not starve the token's streams.
    maxRunsPerToken: options.maxDurableRunsPerToken ?? options.maxRunsPerToken ?? DEFAULT_MAX_RUNS_PER_TOKEN,
    retentionMs: options.durableRetentionMs,
    maxOutputBytes: options.durableMaxOutputBytes,
    clock: options.clock,
  });
  store.onClose(() => durable.stop());
  return durable;
}

/** What every run stream of the service takes, whichever way it came in. */
function runStreamOptions(options: ServiceOptions, shared: AppShared): RunOptions {
  return { keepAliveMs: options.keepAliveMs ?? 15_000, observer: shared.runLog.observer(options.runObserver) };
}

export function createApp(
  store: Store,
  catalog: AgentCatalog,
  options: ServiceOptions = {},
  durable = createDurableRuns(store, options),
  shared: AppShared = appShared(options),
): Hono<Env> {
  const app = new Hono<Env>();
  const runLog = shared.runLog;
  const toolAuth = new ToolAuthorizations(store.database);
  const runOptions = {
    toolAuth,
    allowedReturnOrigins: options.allowedReturnOrigins ?? [],
    ownOrigins: shared.ownOrigins,
    rateLimitPerMinute: options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
    ...runStreamOptions(options, shared),
    runSlots: shared.runSlots,
    durable,
  };

  const allowedHosts = options.allowedHosts ?? [];
  app.use(async (c, next) => {
    const id = newRequestId();
    c.set('requestId', id);
    c.header('X-Request-Id', id);
    // API answers are data: never to be sniffed into HTML or a script.
    c.header('X-Content-Type-Options', 'nosniff');
    // A request made in process has no Host header; its URL says the host.
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!isAllowedHost(host, allowedHosts)) {
      return familyError(
        c,
        403,
        `This service answers only on loopback names (localhost, 127.0.0.1, [::1]) or those given with --allowed-host; not "${host}".`,
      );
    }
    const unsafe = unsafePathProblem(rawPathOf(c));
    if (unsafe) return familyError(c, 400, unsafe);
    await next();
    // Every run POST that arrived, refused ones included: the exactly-once checks count these.
    if (c.req.method === 'POST' && RUN_POST_PATH.test(c.req.path)) {
      // An answer written on the socket itself (a stream, a replay that breaks off) returns a
      // marker whose status is not the one sent: the socket's head says what was.
      const outgoing = nodeResponseOf(c);
      const status = outgoing?.headersSent ? outgoing.statusCode : c.res.status;
      runLog.post({ requestId: id, path: c.req.path, status, at: new Date().toISOString(), ...loggedMessages(c.get('runMessages')) });
    }
  });
  if (options.corsOrigins?.length) {
    const policy = cors({
      origin: options.corsOrigins,
      // A client of another origin may ask for faults and revalidate schemas too.
      allowHeaders: ['Authorization', 'Content-Type', 'Accept', 'If-None-Match', SANDBOX_FAULT_HEADER],
      allowMethods: ['GET', 'POST', 'PUT', 'DELETE'],
      exposeHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });
    app.use('/rest/*', policy);
    app.use('/api/*', policy);
  }
  // After CORS: a fault's answer, a refusal included, is readable by the page that asked for it.
  // Most requests ask for no fault: they go on without one more async layer.
  app.use((c, next) => (c.req.header(SANDBOX_FAULT_HEADER) === undefined ? next() : withFault(c, rawPathOf(c), next)));

  if (options.replay) {
    const replay = replayRoutes(store, options.replay, runOptions);
    app.route('/rest', replay);
    app.route('/api', replay);
  } else {
    app.route('/rest/api/index', customMetadataRoutes(store, { ...runOptions, limiter: shared.metadataLimiter }));
    app.route(LEGACY_BASE, legacyAgentRoutes(store, catalog, { ...runOptions, limiter: shared.legacyLimiter }));
    app.route(PLATFORM_BASE, platformAgentRoutes(store, catalog, { ...runOptions, limiter: shared.platformLimiter }));
  }
  // Before the sandbox's routes, whose same-origin rule it must not have: a console of any
  // allowed origin sends the browser here. Its handlers answer, so that rule is never reached.
  app.route('/sandbox/oauth', consentRoutes(store, catalog, toolAuth, { ownOrigins: shared.ownOrigins, allowedReturnOrigins: options.allowedReturnOrigins ?? [] }));
  app.route(
    '/sandbox',
    sandboxRoutes(
      store,
      // The demo tokens are public sandbox strings (README); the console offers them to a first-time user.
      () => ({
        agents: catalog.agents.length,
        groups: store.countGroups(),
        groupNames: store.groupNames(),
        demoTokens: DEMO_TOKENS,
        ...(options.replay && { replay: { dir: options.replay.set.dir, recordings: options.replay.set.recordings.length, speed: options.replay.speed } }),
      }),
      runLog,
      allowedHosts,
      durable,
    ),
  );

  app.notFound((c) => familyError(c, 404, `No endpoint ${c.req.method} ${new URL(c.req.url).pathname}.`));
  app.onError((err, c) => {
    // A client that left, or whose body stopped coming (answered 408 already), is no error of the service's.
    const incoming = (c.env as { incoming?: { destroyed?: boolean } } | undefined)?.incoming;
    if (!incoming?.destroyed) {
      // The message only: a request's headers (and so its token) never reach the log.
      console.error(`[reference-service] ${c.get('requestId')} ${c.req.method} ${new URL(c.req.url).pathname}: ${err.message}`);
    }
    return familyError(c, 500, `Internal error; request id ${c.get('requestId')}.`);
  });
  return app;
}

export function createService(options: ServiceOptions = {}): Service {
  const store = new Store(options);
  seedIfEmpty(store);
  return assembleService(store, new AgentCatalog(options.agentsFile), options);
}

/** The service on `store` and `catalog`: the app and the ways in ahead of it, sharing their limits. */
export function assembleService(store: Store, catalog: AgentCatalog, options: ServiceOptions = {}): Service {
  const durable = createDurableRuns(store, options);
  const shared = appShared(options);
  const app = createApp(store, catalog, options, durable, shared);
  // A replay answers schema reads from its recordings, never from the store.
  const preparedRead = options.replay ? undefined : preparedSchemaReads(store, shared.metadataLimiter, { allowedHosts: options.allowedHosts, corsOrigins: options.corsOrigins });
  // A replay answers runs from its recordings; CORS headers are the routes' to write.
  const preparedRun =
    options.replay || options.corsOrigins?.length
      ? undefined
      : preparedRunStreams({
          store,
          catalog,
          legacyLimiter: shared.legacyLimiter,
          platformLimiter: shared.platformLimiter,
          runSlots: shared.runSlots,
          runLog: shared.runLog,
          run: runStreamOptions(options, shared),
          allowedHosts: options.allowedHosts,
        });
  return { app, store, catalog, durable, preparedRead, preparedRun, runSlots: shared.runSlots, ownOrigins: shared.ownOrigins, close: () => store.close() };
}
