import { Hono, type Context } from 'hono';
import { bodyLimit } from '../body-limit.ts';
import type { Message } from '../../contract/agents.ts';
import { scopesAllowAgents, AGENTS_SCOPE } from '../../contract/scopes.ts';
import { LEGACY_RUNS_DEPRECATED_AT, LEGACY_RUNS_SUNSET_AT } from '../../contract/agents.ts';
import { legacyRunPath, platformRunsPath, routePattern, RUN_PATHS } from '../../contract/run-paths.ts';
import { EXECUTION_MODES } from '../../contract/durable-runs.ts';
import { publicAgent, type AgentCatalog, type AgentDefinition } from '../agents.ts';
import { authenticate, rateLimit, type RateLimiter } from '../auth.ts';
import { etagOf, noneMatchHits } from '../etag.ts';
import { closeAfterTooLarge, isPlainObject, legacyError, MAX_BODY_BYTES, problem, problemListMembers, readJson, unknownKeys, type Env } from '../http.ts';
import { clip, listText, omittedText, pointerToken, ProblemList, type FieldProblem } from '../problem-list.ts';
import { RUN_LIMIT_RETRY_AFTER_S, runCapText, streamRun, waitRun, type RunOptions, type RunRequest, type RunSlots } from '../runs.ts';
import { admitFault } from '../faults.ts';
import type { Store } from '../store.ts';
import type { DurableRuns } from '../durable/executor.ts';
import { createDurableRun, durableBodyProblem, registerDurableRoutes } from '../durable/routes.ts';
import type { ToolAuthorizations } from '../tool-auth.ts';
import type { OwnOrigins } from '../own-origins.ts';
import { registerToolServerRoutes, unauthorizedServers } from './tool-servers.ts';

export interface AgentRoutesOptions extends RunOptions {
  rateLimitPerMinute: number;
  /** The family's rate limit, when shared with a way in ahead of the routes (prepared-runs.ts); else one of its own. */
  limiter?: RateLimiter;
  /** Runs each token may have going at once, shared by both families. */
  runSlots: RunSlots;
  /** Durable runs (docs/api.md, durable runs) on the platform API; without it, DURABLE is refused. */
  durable?: DurableRuns;
  /** Which tokens authorized which tool servers (docs/api.md, agent tools). */
  toolAuth: ToolAuthorizations;
  /** Origins besides the service's own a tool-server consent may return to (`--allowed-return-origin`). */
  allowedReturnOrigins?: readonly string[];
  /** The service's own origins, from what it listens on. */
  ownOrigins: OwnOrigins;
}

/** The family-specific ways to refuse, so both routers share one flow. */
interface Family {
  error(c: Context<Env>, status: number, code: string, detail: string, problems?: ProblemList<FieldProblem>): Response;
  /** The 422 naming the tool servers of `agent` the token has not authorized (`missing`, a non-empty list). */
  unauthorizedTools(c: Context<Env>, agent: AgentDefinition, missing: readonly UnauthorizedTool[]): Response;
}

type UnauthorizedTool = NonNullable<AgentDefinition['behaviour']['unauthorizedTools']>[number];

const EMPTY_HINT = 'Every form field must be present, optional ones included; send "" for an optional field with no value.';

/**
 * The client API answers errors as one string, so field problems are folded into it: the
 * listed ones (each detail names its pointer), then how many more there were.
 */
function legacyProblemText(detail: string, problems?: ProblemList<FieldProblem>): string {
  if (!problems || problems.empty) return detail;
  const isMissingField = (p: FieldProblem) => p.code === 'missing_required_field' && p.pointer.startsWith('/input/');
  const missing = problems.listed.filter(isMissingField);
  const parts = [detail];
  if (missing.length) parts.push(`Missing form field(s): ${missing.map((p) => clip(p.pointer.slice('/input/'.length))).join(', ')}. ${EMPTY_HINT}`);
  for (const p of problems.listed) if (!isMissingField(p)) parts.push(clip(p.detail, 500));
  if (problems.incomplete) parts.push(problems.incomplete);
  parts.push(omittedText(problems.omitted));
  return parts.filter(Boolean).join(' ');
}

const legacy: Family = {
  error: (c, status, _code, detail, problems) => legacyError(c, status, legacyProblemText(detail, problems)),
  unauthorizedTools: (c, agent, missing) =>
    c.json(
      {
        message: `Agent ${agent.agent_id} uses tools you have not authorized. Authorize each tool server, then run again.`,
        authenticationSuggestions: missing.map((t, i) => ({
          ...t,
          toolType: 'MCP',
          requestType: 'AUTHENTICATION_SUGGESTION',
          requestId: `${c.get('requestId')}_${i}`,
        })),
      },
      422,
    ),
};

const platform: Family = {
  error: (c, _status, code, detail, problems) => {
    if (!problems || problems.empty) return problem(c, code, detail);
    const members = problemListMembers(problems);
    return problem(c, code, [detail, problems.incomplete, omittedText(problems.omitted)].filter(Boolean).join(' '), members);
  },
  unauthorizedTools: (c, agent, missing) =>
    problem(c, 'tools_unauthorized', `Agent ${agent.agent_id} uses tools you have not authorized.`, {
      authentication_suggestions: missing.map((t) => ({
        ...(t.toolName !== undefined && { tool_name: t.toolName }),
        server_id: t.serverId,
      })),
    }),
};

/** Keys of a body that its endpoint does not take, as problems pointing at each. */
function unknownFieldProblems(extra: readonly string[]): ProblemList<FieldProblem> {
  const problems = new ProblemList<FieldProblem>();
  for (const k of extra) {
    if (problems.full) problems.countOnly('invalid_parameter');
    else problems.add({ pointer: `/${pointerToken(k)}`, detail: 'Unknown field.', code: 'invalid_parameter' });
  }
  return problems;
}

function guard(store: Store, family: Family, rateLimitPerMinute: number | RateLimiter, slots: RunSlots) {
  const app = new Hono<Env>();
  app.use(
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => {
        closeAfterTooLarge(c);
        return family.error(c as Context<Env>, 413, 'request_too_large', `The body is over ${MAX_BODY_BYTES} bytes.`);
      },
    }),
  );
  app.use(
    authenticate(store, (c, why) => {
      c.header('WWW-Authenticate', 'Bearer');
      return family.error(c, 401, 'authentication_required', why);
    }),
  );
  app.use(async (c, next) => {
    if (!scopesAllowAgents(c.get('token').scopes)) {
      return family.error(c, 403, 'insufficient_permissions', `This token lacks the ${AGENTS_SCOPE} scope that the agent endpoints need.`);
    }
    await next();
  });
  app.use(rateLimit(rateLimitPerMinute, (c, s) => family.error(c, 429, 'rate_limit_exceeded', `Too many requests; retry after ${s} s.`)));
  app.use(admitFault(slots, (c) => refuseRunCap(c, family, slots)));
  return app;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; response: Response };

async function parseBody(c: Context<Env>, family: Family, allowed: readonly string[], required: boolean): Promise<Parsed<Record<string, unknown>>> {
  const body = await readJson(c);
  if (!body.ok) {
    // invalid_request for a wrong media type too: the platform's published code list has no
    // 415 code, so that family answers 400 (the client API keeps the 415 status).
    return { ok: false, response: family.error(c, body.status, 'invalid_request', body.message) };
  }
  if (body.value === undefined && !required) return { ok: true, value: {} };
  if (!isPlainObject(body.value)) {
    return { ok: false, response: family.error(c, 400, 'invalid_request', 'The body must be a JSON object.') };
  }
  if (allowed.includes('messages') && body.value.messages !== undefined) c.set('runMessages', body.value.messages);
  const extra = unknownKeys(body.value, allowed);
  if (extra.length) {
    return {
      ok: false,
      // The client API's string names them already; the platform's problem points at each.
      response: family.error(c, 400, 'invalid_request', `Unknown field(s): ${listText(extra)}. Allowed: ${allowed.join(', ')}.`, family === platform ? unknownFieldProblems(extra) : undefined),
    };
  }
  return { ok: true, value: body.value };
}

/** Shared checks of a run body; answers the family's 400, or its 422 while the token has not authorized the agent's tool servers. */
function prepareRun(c: Context<Env>, family: Family, catalog: AgentCatalog, toolAuth: ToolAuthorizations, agent: AgentDefinition, body: Record<string, unknown>): Parsed<RunRequest> {
  const { input, messages, metadata } = body;
  const problems = catalog.checkRun(agent, input, messages);
  if (metadata !== undefined && !isPlainObject(metadata)) {
    problems.add({ pointer: '/metadata', code: 'invalid_parameter', detail: 'metadata must be an object.' });
  }
  if (!problems.empty) {
    const missing = problems.hasCode('missing_required_field');
    return {
      ok: false,
      response: family.error(c, 400, missing ? 'missing_required_field' : 'invalid_request', 'The run request is invalid.', problems),
    };
  }
  const needed = agent.behaviour.unauthorizedTools ?? [];
  if (needed.length) {
    const missing = unauthorizedServers(catalog, toolAuth, c.get('tokenKey'), needed.map((t) => t.serverId));
    if (missing.length) return { ok: false, response: family.unauthorizedTools(c, agent, needed.filter((t) => missing.includes(t.serverId))) };
  }
  return {
    ok: true,
    value: {
      agent,
      input: input as Record<string, unknown> | undefined,
      messages: messages as Message[] | undefined,
      metadata: metadata as Record<string, unknown> | undefined,
    },
  };
}

/** The family's 429 for a token whose run slots are all taken. */
function refuseRunCap(c: Context<Env>, family: Family, slots: RunSlots): Response {
  c.header('Retry-After', String(RUN_LIMIT_RETRY_AFTER_S));
  return family.error(c, 429, 'rate_limit_exceeded', runCapText(slots.perToken));
}

/**
 * Starts a run in one of the token's slots, or answers the family's 429 when it has none free.
 * A request held by a fault took its slot when it was admitted: the run is in that one, which
 * the fault gives back once the answer has ended (faults.ts).
 */
function startRun(c: Context<Env>, family: Family, slots: RunSlots, start: (release: () => void) => Response | Promise<Response>) {
  const release = c.get('faultHold') ? () => {} : slots.take(c.get('tokenKey'));
  if (!release) return refuseRunCap(c, family, slots);
  return start(release);
}

/**
 * An agent whose durable script pauses for tool approvals cannot run request-bound: nothing
 * could wait for the approval. Its stream and wait runs are refused, saying what would work.
 */
function needsDurableRun(agent: AgentDefinition): boolean {
  return agent.behaviour.durable?.steps.some((s) => s.approval !== undefined) === true;
}

const durableRequiredText = (id: string) =>
  `Agent ${id} pauses for tool approvals, which only a durable run can wait for: run it with POST ${platformRunsPath(id)} and "execution_mode": "DURABLE".`;

/**
 * An agent's schemas answer, made once: the JSON object without its closing brace (the
 * platform API adds its request id there), and a strong ETag of the schemas.
 */
function preparedSchemas(catalog: AgentCatalog): (id: string, withTools?: boolean) => { head: string; etag: string } | undefined {
  const made = new Map<string, { head: string; etag: string }>();
  return (id, withTools = false) => {
    const agent = catalog.get(id);
    if (!agent) return undefined;
    const key = `${withTools ? 'tools' : 'plain'}:${agent.agent_id}`;
    let prepared = made.get(key);
    if (!prepared) {
      const json = JSON.stringify({
        agent_id: agent.agent_id,
        name: agent.name,
        input_schema: agent.input_schema,
        output_schema: agent.output_schema ?? {},
        // Asked for: the agent's tools, an empty list for one without any.
        ...(withTools && { tools: agent.tools ?? [] }),
      });
      prepared = { head: json.slice(0, -1), etag: etagOf(json) };
      made.set(key, prepared);
    }
    return prepared;
  };
}

/** Where app.ts mounts the two agent routers. */
export const LEGACY_BASE = '/rest/api/v1';
export const PLATFORM_BASE = '/api';

/** The client API's run endpoints' Deprecation and Sunset headers, and the Link to a known agent's successor (prepared-runs.ts writes them too). */
export const DEPRECATION = `@${Math.floor(LEGACY_RUNS_DEPRECATED_AT.getTime() / 1000)}`;
export const SUNSET = LEGACY_RUNS_SUNSET_AT.toUTCString();
export const successorLink = (agentId: string) => `<${platformRunsPath(agentId)}>; rel="successor-version"`;

/** Client API, `/rest/api/v1`: beta, with deprecated run endpoints. */
export function legacyAgentRoutes(store: Store, catalog: AgentCatalog, options: AgentRoutesOptions) {
  const app = guard(store, legacy, options.limiter ?? options.rateLimitPerMinute, options.runSlots);
  const unknownAgent = (c: Context<Env>, id: string) => legacy.error(c, 404, 'resource_not_found', `Unknown agent: ${clip(id)}`);

  app.post('/agents/search', async (c) => {
    const body = await parseBody(c, legacy, ['name'], false);
    if (!body.ok) return body.response;
    const name = body.value.name;
    if (name !== undefined && typeof name !== 'string') return legacy.error(c, 400, 'invalid_request', 'name must be a string.');
    return c.json({ agents: catalog.search(name) });
  });
  app.get('/agents/:agent_id', (c) => {
    const agent = catalog.get(c.req.param('agent_id'));
    return agent ? c.json(publicAgent(agent)) : unknownAgent(c, c.req.param('agent_id'));
  });
  const schemas = preparedSchemas(catalog);
  app.get('/agents/:agent_id/schemas', (c) => {
    const prepared = schemas(c.req.param('agent_id'));
    if (!prepared) return unknownAgent(c, c.req.param('agent_id'));
    c.header('ETag', prepared.etag);
    if (noneMatchHits(c.req.header('if-none-match'), prepared.etag)) return c.body(null, 304);
    return c.body(`${prepared.head}}`, 200, { 'content-type': 'application/json' });
  });

  for (const mode of ['stream', 'wait'] as const) {
    app.post(routePattern(legacyRunPath(mode), LEGACY_BASE), async (c) => {
      c.header('Deprecation', DEPRECATION);
      c.header('Sunset', SUNSET);
      const body = await parseBody(c, legacy, ['agent_id', 'input', 'messages', 'metadata'], true);
      if (!body.ok) return body.response;
      const id = body.value.agent_id;
      if (typeof id !== 'string' || !id) return legacy.error(c, 400, 'missing_required_field', 'agent_id is required.');
      const agent = catalog.get(id);
      if (!agent) return unknownAgent(c, id);
      // Only a known id goes into a header: an unknown one is the client's text, of any length.
      c.header('Link', successorLink(agent.agent_id));
      const run = prepareRun(c, legacy, catalog, options.toolAuth, agent, body.value);
      if (!run.ok) return run.response;
      if (needsDurableRun(agent)) return legacy.error(c, 409, 'durable_run_required', durableRequiredText(agent.agent_id));
      return startRun(c, legacy, options.runSlots, (release) =>
        mode === 'stream' ? streamRun(c, 'legacy', run.value, options, release) : waitRun(c, 'legacy', run.value, options, release),
      );
    });
  }
  registerToolServerRoutes(app, catalog, { auth: options.toolAuth, ownOrigins: options.ownOrigins, allowedReturnOrigins: options.allowedReturnOrigins ?? [] });
  return app;
}

/** Platform API, `/api`: the replacements. */
export function platformAgentRoutes(store: Store, catalog: AgentCatalog, options: AgentRoutesOptions) {
  const app = guard(store, platform, options.limiter ?? options.rateLimitPerMinute, options.runSlots);
  const unknownAgent = (c: Context<Env>, id: string) => problem(c, 'resource_not_found', `No agent with id "${clip(id)}".`);

  app.post('/agents/search', async (c) => {
    const body = await parseBody(c, platform, ['name'], false);
    if (!body.ok) return body.response;
    const name = body.value.name;
    if (name !== undefined && typeof name !== 'string') {
      return problem(c, 'invalid_parameter', 'name must be a string.', { errors: [{ pointer: '/name', detail: 'Must be a string.' }] });
    }
    return c.json({ agents: catalog.search(name), request_id: c.get('requestId') });
  });
  app.get('/agents/:agent_id', (c) => {
    const agent = catalog.get(c.req.param('agent_id'));
    return agent ? c.json({ agent: publicAgent(agent), request_id: c.get('requestId') }) : unknownAgent(c, c.req.param('agent_id'));
  });
  const schemas = preparedSchemas(catalog);
  app.get('/agents/:agent_id/schemas', (c) => {
    // A boolean query parameter, as the official client writes it (it always sends it, false by default).
    const includeTools = c.req.query('include_tools');
    if (includeTools !== undefined && includeTools !== 'true' && includeTools !== 'false') {
      return problem(c, 'invalid_parameter', `include_tools must be true or false, not "${clip(includeTools, 100)}".`, {
        errors: [{ pointer: '/include_tools', detail: 'Must be true or false.' }],
      });
    }
    const prepared = schemas(c.req.param('agent_id'), includeTools === 'true');
    if (!prepared) return unknownAgent(c, c.req.param('agent_id'));
    // Each answer names its own request id; the schemas in it are the same: a weak validator.
    const etag = `W/${prepared.etag}`;
    c.header('ETag', etag);
    if (noneMatchHits(c.req.header('if-none-match'), etag)) return c.body(null, 304);
    return c.body(`${prepared.head},"request_id":${JSON.stringify(c.get('requestId'))}}`, 200, { 'content-type': 'application/json' });
  });
  app.post(routePattern(RUN_PATHS.platformRuns, PLATFORM_BASE), async (c) => {
    // The pattern comes from the contract, so Hono cannot type the parameter; the route guarantees it.
    const id = c.req.param('agent_id')!;
    // The official client always sends execution_mode; REQUEST_BOUND is today's stream/wait.
    const body = await parseBody(c, platform, ['input', 'messages', 'metadata', 'stream', 'execution_mode'], true);
    if (!body.ok) return body.response;
    const { stream, execution_mode: mode } = body.value;
    if (stream !== undefined && typeof stream !== 'boolean') {
      return problem(c, 'invalid_parameter', 'stream must be true or false.', { errors: [{ pointer: '/stream', detail: 'Must be a boolean.' }] });
    }
    const modes: readonly string[] = options.durable ? EXECUTION_MODES : EXECUTION_MODES.filter((m) => m !== 'DURABLE');
    if (mode !== undefined && !modes.includes(mode as string)) {
      return problem(c, 'invalid_parameter', `execution_mode must be ${modes.join(' or ')}.`, {
        errors: [{ pointer: '/execution_mode', detail: `Must be ${modes.join(' or ')}.` }],
      });
    }
    const durableProblem = mode === 'DURABLE' ? durableBodyProblem(c, body.value) : undefined;
    if (durableProblem) return durableProblem;
    if (body.value.input === undefined && body.value.messages === undefined) {
      return problem(c, 'missing_required_field', 'A run needs messages (non-empty) or input.', {
        errors: [{ pointer: '/messages', detail: 'Send messages or input.' }],
      });
    }
    const agent = catalog.get(id);
    if (!agent) return unknownAgent(c, id);
    const run = prepareRun(c, platform, catalog, options.toolAuth, agent, body.value);
    if (!run.ok) return run.response;
    if (mode === 'DURABLE') return createDurableRun(c, options.durable!, run.value);
    if (needsDurableRun(agent)) {
      return problem(c, 'durable_run_required', durableRequiredText(agent.agent_id), {
        errors: [{ pointer: '/execution_mode', detail: 'Must be DURABLE for this agent.' }],
      });
    }
    return startRun(c, platform, options.runSlots, (release) =>
      stream ? streamRun(c, 'platform', run.value, options, release) : waitRun(c, 'platform', run.value, options, release),
    );
  });
  if (options.durable) registerDurableRoutes(app, PLATFORM_BASE, catalog, options.durable);
  return app;
}
