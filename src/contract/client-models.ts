/**
 * The official client's models of durable runs (client-models/durable-runs.schema.json,
 * written from @gleanwork/api-client) as one more spec for the spec lens: the operations the
 * vendored OpenAPI cut does not describe yet, with the answers the client reads for each
 * status, so a durable run's answers are checked as the cut's answers are.
 */
import { isObject, type Json, type JsonObject, type NamedSpec, type SpecDoc } from './openapi.ts';

/** The name the lens gives this source (and its build-time validators). */
export const CLIENT_MODELS = 'client-models';

const problem = { $ref: '#/components/responses/Problem' };
const run = { description: 'The run.', content: { 'application/json': { schema: { $ref: '#/components/schemas/PlatformAgentRunResponse' } } } };
const answers = (ok: string, errors: number[]): JsonObject => ({ [ok]: run, ...Object.fromEntries(errors.map((s) => [String(s), problem])) });

/**
 * What each call of the client reads (its src/funcs/agents*.ts: `M.json` for the run,
 * `M.jsonErr` with PlatformProblemDetailError for the errors). createRun's answers are the
 * public spec's except 201, the durable run the cut does not list.
 */
const PATHS: SpecDoc['paths'] = {
  '/agents/{agent_id}/runs': { post: { operationId: 'createRun', responses: { '201': run } } },
  '/agents/{agent_id}/runs/{run_id}': { get: { operationId: 'getRun', responses: answers('200', [400, 401, 403, 404, 408, 429, 500, 503]) } },
  '/agents/{agent_id}/responses': { post: { operationId: 'respondToRun', responses: answers('200', [400, 401, 403, 404, 408, 409, 413, 429, 500, 503]) } },
  '/agents/{agent_id}/cancellations': { post: { operationId: 'cancelRun', responses: answers('200', [400, 401, 403, 404, 408, 409, 413, 429, 500, 503]) } },
};

/** `#/definitions/X` (the models file) → `#/components/schemas/X` (where a spec keeps its schemas). */
function moveRefs(node: Json): Json {
  if (Array.isArray(node)) return node.map(moveRefs);
  if (!isObject(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.replace(/^#\/definitions\//, '#/components/schemas/') : moveRefs(v)]),
  );
}

/** The models file as a spec of the platform API (`/api`), its definitions as component schemas. */
export function clientModelsSpec(models: JsonObject): SpecDoc {
  const definitions = isObject(models.definitions) ? (moveRefs(models.definitions) as Record<string, JsonObject>) : {};
  return {
    openapi: '3.0.3',
    info: { title: typeof models.title === 'string' ? models.title : 'Models of the official client' },
    'x-base-path': '/api',
    paths: PATHS,
    components: {
      schemas: definitions,
      responses: { Problem: { description: 'A problem.', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/PlatformProblemDetail' } } } } },
    },
  };
}

/** "@gleanwork/api-client 0.20.15", as the models file's title names the client it was written from. */
export function clientOf(doc: SpecDoc): string {
  return /@gleanwork\/api-client [\w.-]+/.exec(doc.info?.title ?? '')?.[0] ?? '@gleanwork/api-client';
}

/** The models file (client-models/durable-runs.schema.json, parsed) as the lens's last spec. */
export const clientModelsNamedSpec = (models: JsonObject): NamedSpec => ({ name: CLIENT_MODELS, file: 'client-models/durable-runs.schema.json', doc: clientModelsSpec(models) });
