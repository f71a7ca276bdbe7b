/**
 * The official client's models (client-models/*.schema.json, written from
 * @gleanwork/api-client) as more specs for the spec lens: the operations the vendored OpenAPI
 * cut does not describe yet, with the answers the client reads for each status, so their
 * answers are checked as the cut's answers are. Durable runs live under the platform API
 * (`/api`); the tool-server operations under the Client API (`/rest/api/v1`).
 */
import { isObject, type Json, type JsonObject, type NamedSpec, type SpecDoc } from './openapi.ts';

/** The name the lens gives this source (and its build-time validators). */
export const CLIENT_MODELS = 'client-models';

/** The tool-server models' source: a spec of its own, for its operations live under another base path. */
export const CLIENT_TOOL_MODELS = 'client-models-tools';

/** Whether a spec of the lens is one written from the official client's models, not the vendor's public cut. */
export const isClientModels = (name: string) => name === CLIENT_MODELS || name === CLIENT_TOOL_MODELS;

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

const json = (schema: string, description: string): JsonObject => ({ description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } });
/** The client's tool calls fail on any error status without reading a body (`M.fail`): documented, without a schema. */
const noBody = { description: 'An error; the official client reads no body of it.' };
const toolErrors = { '4XX': noBody, '5XX': noBody };

/** What the client's tool-server calls read (its src/funcs/clientTools*ToolServer*.ts). */
const TOOL_PATHS: SpecDoc['paths'] = {
  '/tool-servers/{serverId}/auth': {
    get: { operationId: 'retrieveToolServerAuthStatus', responses: { '200': json('ToolServerAuthStatusResponse', 'The calling user’s status.'), ...toolErrors } },
    post: { operationId: 'authorizeToolServer', responses: { '200': json('AuthorizeToolServerResponse', 'Where to send the user to consent.'), ...toolErrors } },
  },
  '/tool-servers/{serverId}/tools': {
    get: { operationId: 'getToolServerTools', responses: { '200': json('ToolDefinitionsResponse', 'The named tools’ definitions.'), ...toolErrors } },
  },
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
  return {
    ...modelsSpec(models, '/api', PATHS),
    components: {
      schemas: definitionsOf(models),
      responses: { Problem: { description: 'A problem.', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/PlatformProblemDetail' } } } } },
    },
  };
}

/** The tool-server models file as a spec of the Client API (`/rest/api/v1`). */
export function toolServerModelsSpec(models: JsonObject): SpecDoc {
  return { ...modelsSpec(models, '/rest/api/v1', TOOL_PATHS), components: { schemas: definitionsOf(models) } };
}

function definitionsOf(models: JsonObject): Record<string, JsonObject> {
  return isObject(models.definitions) ? (moveRefs(models.definitions) as Record<string, JsonObject>) : {};
}

function modelsSpec(models: JsonObject, base: string, paths: SpecDoc['paths']): SpecDoc {
  return { openapi: '3.0.3', info: { title: typeof models.title === 'string' ? models.title : 'Models of the official client' }, 'x-base-path': base, paths };
}

/** "@gleanwork/api-client 0.20.15", as the models file's title names the client it was written from. */
export function clientOf(doc: SpecDoc): string {
  return /@gleanwork\/api-client [\w.-]+/.exec(doc.info?.title ?? '')?.[0] ?? '@gleanwork/api-client';
}

/** The models file (client-models/durable-runs.schema.json, parsed) as one of the lens's last specs. */
export const clientModelsNamedSpec = (models: JsonObject): NamedSpec => ({ name: CLIENT_MODELS, file: 'client-models/durable-runs.schema.json', doc: clientModelsSpec(models) });

/** client-models/tool-servers.schema.json, parsed, as the lens's last spec. */
export const toolServerModelsNamedSpec = (models: JsonObject): NamedSpec => ({
  name: CLIENT_TOOL_MODELS,
  file: 'client-models/tool-servers.schema.json',
  doc: toolServerModelsSpec(models),
});
