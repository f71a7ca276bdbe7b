import type { Context, Hono } from 'hono';
import { APPROVAL_DECISIONS, RUN_PATHS, type ApprovalResponse } from '../../contract/durable-runs.ts';
import type { ProblemFieldError } from '../../contract/problem.ts';
import { routePattern } from '../../contract/run-paths.ts';
import { clientRunIdProblem, SANDBOX_CLIENT_RUN_ID_HEADER } from '../../contract/sandbox-client-run.ts';
import type { AgentCatalog } from '../agents.ts';
import { isPlainObject, problem, problemListMembers, readJson, unknownKeys, type Env } from '../http.ts';
import { clip, listText, omittedText, pointerToken, ProblemList } from '../problem-list.ts';
import type { RunRequest } from '../runs.ts';
import { DURABLE_LIMIT_RETRY_AFTER_S, type DurableRuns, type Outcome } from './executor.ts';

/**
 * Why a DURABLE run body is refused before anything else is checked (docs/api.md, durable runs): durable
 * runs answer at once, so they cannot stream, and they always start a fresh session.
 */
export function durableBodyProblem(c: Context<Env>, body: Record<string, unknown>): Response | undefined {
  if (body.stream === true) {
    return problem(c, 'invalid_request', 'execution_mode DURABLE answers at once with the run; it cannot stream. Send stream false or leave it out, and read progress with GET.', {
      errors: [{ pointer: '/stream', detail: 'Must be false or absent with execution_mode DURABLE.' }],
    });
  }
  if (isPlainObject(body.metadata) && 'chat_session_id' in body.metadata) {
    return problem(c, 'invalid_request', 'execution_mode DURABLE starts a fresh run and does not accept metadata.chat_session_id.', {
      errors: [{ pointer: '/metadata/chat_session_id', detail: 'Not accepted with execution_mode DURABLE.' }],
    });
  }
  return undefined;
}

/** `{ run, request_id }` around a run already serialized, as c.json of that object would write it. */
function runAnswer(c: Context<Env>, run: string, status: 200 | 201 = 200): Response {
  return c.body(`{"run":${run},"request_id":${JSON.stringify(c.get('requestId'))}}`, status, { 'content-type': 'application/json' });
}

/**
 * POST runs with execution_mode DURABLE, once the body has passed every check: 201 with the
 * persisted run, or 429 when the token already has as many runs not yet over as it may.
 */
export function createDurableRun(c: Context<Env>, durable: DurableRuns, run: RunRequest): Response {
  const clientRunId = c.req.header(SANDBOX_CLIENT_RUN_ID_HEADER);
  const refused = clientRunId === undefined ? undefined : clientRunIdProblem(clientRunId);
  if (refused) return problem(c, 'invalid_request', `${refused} No run was started.`);
  const created = durable.create(c.get('tokenKey'), run, clientRunId);
  if (created.ok) return runAnswer(c, created.run, 201);
  c.header('Retry-After', String(DURABLE_LIMIT_RETRY_AFTER_S));
  return problem(
    c,
    'rate_limit_exceeded',
    `This token already has ${created.limit} durable runs not yet over (queued, running, cancelling or waiting for approval), ` +
      'the most one token may have at once; cancel one, or retry when one has ended.',
  );
}

type Body<T> = { ok: true; value: T } | { ok: false; response: Response };

function invalid(c: Context<Env>, detail: string, errors: ProblemFieldError[] | ProblemList<ProblemFieldError>): Body<never> {
  if (Array.isArray(errors)) return { ok: false, response: problem(c, 'invalid_request', detail, { errors }) };
  return { ok: false, response: problem(c, 'invalid_request', [detail, omittedText(errors.omitted)].filter(Boolean).join(' '), problemListMembers(errors)) };
}

function unknownFields(extra: readonly string[]): ProblemList<ProblemFieldError> {
  const list = new ProblemList<ProblemFieldError>();
  for (const k of extra) {
    if (list.full) list.countOnly('invalid_parameter');
    else list.add({ pointer: `/${pointerToken(k)}`, detail: 'Unknown field.', code: 'invalid_parameter' });
  }
  return list;
}

async function objectBody(c: Context<Env>, allowed: string[]): Promise<Body<Record<string, unknown>>> {
  const body = await readJson(c);
  if (!body.ok) return { ok: false, response: problem(c, 'invalid_request', body.message) };
  if (!isPlainObject(body.value)) return invalid(c, `The body must be a JSON object with ${allowed.join(' and ')}.`, [{ pointer: '', detail: 'Must be an object.' }]);
  const extra = unknownKeys(body.value, allowed);
  if (extra.length) return invalid(c, `Unknown field(s): ${listText(extra)}. Allowed: ${allowed.join(', ')}.`, unknownFields(extra));
  const runId = body.value.run_id;
  if (typeof runId !== 'string' || runId === '') {
    return {
      ok: false,
      response: problem(c, runId === undefined ? 'missing_required_field' : 'invalid_request', 'run_id is required: the id of the run, a non-empty string.', {
        errors: [{ pointer: '/run_id', detail: 'A non-empty string is required.', code: runId === undefined ? 'missing_required_field' : 'invalid_parameter' }],
      }),
    };
  }
  return { ok: true, value: body.value };
}

function responsesOf(c: Context<Env>, value: unknown): Body<ApprovalResponse[]> {
  if (!Array.isArray(value) || value.length === 0) {
    return invalid(c, 'responses must be a non-empty list of { interaction_id, decision }.', [{ pointer: '/responses', detail: 'A non-empty array is required.' }]);
  }
  const errors = new ProblemList<ProblemFieldError>();
  // Past the listed problems each is only counted, and no pointer is built for it (nor a
  // function per item: under tsx each one costs a defineProperty).
  const note = (at: string, detail: string, code?: string) => (errors.full ? errors.countOnly(code) : errors.add({ pointer: at, detail, ...(code && { code }) }));
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    const at = errors.full ? '' : `/responses/${i}`;
    if (!isPlainObject(item)) {
      note(at, 'Must be an object { interaction_id, decision }.');
      continue;
    }
    for (const k of unknownKeys(item, ['interaction_id', 'decision'])) note(errors.full ? '' : `${at}/${pointerToken(k)}`, 'Unknown field.', 'invalid_parameter');
    if (typeof item.interaction_id !== 'string' || item.interaction_id === '') note(`${at}/interaction_id`, 'A non-empty string is required.');
    if (!(APPROVAL_DECISIONS as readonly unknown[]).includes(item.decision)) note(`${at}/decision`, 'Must be APPROVE or REJECT.');
  }
  if (!errors.empty) return invalid(c, 'The responses are not valid.', errors);
  return { ok: true, value: value as ApprovalResponse[] };
}

/** GET a run, cancellations and responses, on the platform router (after its auth, scope and rate checks). */
export function registerDurableRoutes(app: Hono<Env>, mountedAt: string, catalog: AgentCatalog, durable: DurableRuns): void {
  const notFound = (c: Context<Env>, agentId: string, runId: string) =>
    // One answer for an unknown run, another token's run and another agent's run: none may be told apart.
    problem(c, 'resource_not_found', `No run "${clip(runId)}" of agent "${clip(agentId)}" for this token.`);
  const answer = (c: Context<Env>, outcome: Outcome) =>
    outcome.ok ? runAnswer(c, outcome.run) : problem(c, 'conflict', outcome.detail, { reason: outcome.reason });

  app.get(routePattern(RUN_PATHS.platformRun, mountedAt), (c) => {
    const agentId = c.req.param('agent_id')!;
    const runId = c.req.param('run_id')!;
    if (!catalog.get(agentId)) return notFound(c, agentId, runId);
    const record = durable.find(c.get('tokenKey'), agentId, runId);
    return record ? runAnswer(c, durable.snapshot(record)) : notFound(c, agentId, runId);
  });

  app.post(routePattern(RUN_PATHS.platformCancellations, mountedAt), async (c) => {
    const agentId = c.req.param('agent_id')!;
    const body = await objectBody(c, ['run_id']);
    if (!body.ok) return body.response;
    const runId = body.value.run_id as string;
    const record = catalog.get(agentId) && durable.find(c.get('tokenKey'), agentId, runId);
    return record ? answer(c, durable.cancel(record)) : notFound(c, agentId, runId);
  });

  app.post(routePattern(RUN_PATHS.platformResponses, mountedAt), async (c) => {
    const agentId = c.req.param('agent_id')!;
    const body = await objectBody(c, ['run_id', 'responses']);
    if (!body.ok) return body.response;
    const responses = responsesOf(c, body.value.responses);
    if (!responses.ok) return responses.response;
    const runId = body.value.run_id as string;
    const record = catalog.get(agentId) && durable.find(c.get('tokenKey'), agentId, runId);
    return record ? answer(c, durable.respond(record, responses.value)) : notFound(c, agentId, runId);
  });
}
