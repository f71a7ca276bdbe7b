import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import platform from '../../contract/spec/platform.json';
import { loadLens, SpecLens, type LensAnswer, type LensResult, type SpecValidate } from './lens';
import { isObject, SPEC_AJV_OPTIONS, specBase, specDocumentSchema, toJsonSchema, validationTargets, type JsonObject, type NamedSpec, type SpecDoc } from '../../contract/openapi';
import { summarize } from './summary';

const lens = await loadLens();

const answer = (method: string, url: string, status: number, contentType: string, body: unknown): LensAnswer => ({
  method,
  url,
  status,
  contentType,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

/**
 * A lens over specs made up for one test. The page only ever uses validators compiled at
 * build time (src/service/spec-validators.ts); a made-up spec is compiled here, in Node,
 * with the same options and the same list of schemas.
 */
function lensOver(specs: NamedSpec[]): SpecLens {
  const ajv = new Ajv(SPEC_AJV_OPTIONS);
  addFormats(ajv);
  const validators: Record<string, Record<string, SpecValidate>> = {};
  for (const spec of specs) {
    ajv.addSchema(specDocumentSchema(spec));
    validators[spec.name] = Object.fromEntries(
      validationTargets(spec.doc).map(({ key, schema }) => {
        const converted = toJsonSchema(schema, specBase(spec.name));
        return [key, ajv.compile(isObject(converted) ? converted : {})];
      }),
    );
  }
  return new SpecLens(specs, validators);
}

const differences = (result: LensResult) => (result.kind === 'checked' ? result.differences.map((d) => `${d.severity} ${d.pointer} ${d.text}`) : result.reason);

/**
 * Answers of the reference service, copied from what it sent (`npm run service`, the demo
 * tokens): the service's contract tests already hold it to the spec, so each must match.
 */
const REAL: [string, LensAnswer][] = [
  ['schema GET', answer('GET', 'http://127.0.0.1:5173/rest/api/index/custom-metadata/schema/sales', 200, 'application/json', { metadataKeys: [{ name: 'status', propertyType: 'PICKLIST' }, { name: 'region', propertyType: 'PICKLIST' }, { name: 'tags', propertyType: 'MULTIPICKLIST' }, { name: 'dealNotes', propertyType: 'TEXT', skipIndexing: true }] })],
  ['schema 404', answer('GET', '/rest/api/index/custom-metadata/schema/nosuch', 404, 'application/json', { error: 'not found', message: 'Group "nosuch" has no schema.' })],
  ['schema 401', answer('GET', '/rest/api/index/custom-metadata/schema/sales', 401, 'application/json', { error: 'unauthorized', message: 'No bearer token: send Authorization: Bearer <token>.' })],
  ['schema PUT', answer('PUT', '/rest/api/index/custom-metadata/schema/newgroup', 200, 'application/json', {})],
  ['document values PUT', answer('PUT', '/rest/api/index/document/doc-1/custom-metadata/sales', 200, 'application/json', {})],
  ['platform agent', answer('GET', '/api/agents/echo-assistant', 200, 'application/json', { agent: { agent_id: 'echo-assistant', name: 'Echo Assistant', capabilities: { 'ap.io.messages': true, 'ap.io.streaming': true }, description: 'A messages agent: answers the last user message, word by word.' }, request_id: 'req_2a3135b9aa23fdf3' })],
  ['platform schemas', answer('GET', '/api/agents/echo-assistant/schemas', 200, 'application/json', { agent_id: 'echo-assistant', name: 'Echo Assistant', input_schema: { type: 'object', properties: {} }, output_schema: {}, request_id: 'req_ae9ad4e34fbe511b' })],
  ['platform search', answer('POST', '/api/agents/search', 200, 'application/json', { agents: [{ agent_id: 'echo-assistant', name: 'Echo Assistant', capabilities: { 'ap.io.messages': true, 'ap.io.streaming': true }, description: 'A messages agent.' }], request_id: 'req_c0ed6c894cafb855' })],
  ['platform wait', answer('POST', '/api/agents/echo-assistant/runs', 200, 'application/json', { run: { agent_id: 'echo-assistant', messages: [{ role: 'USER', content: [{ type: 'text', text: 'Hi' }] }], status: 'success' }, messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text: 'You asked: "Hi".' }] }], request_id: 'req_add159dda81e72fa' })],
  ['platform 422', answer('POST', '/api/agents/calendar-helper/runs', 422, 'application/problem+json', { type: 'https://developers.glean.com/errors/tools-unauthorized', title: 'Tools Unauthorized', status: 422, detail: 'Agent calendar-helper uses tools you have not authorized.', code: 'tools_unauthorized', request_id: 'req_69a610bbd85108a9', documentation_url: 'https://developers.glean.com/errors/tools-unauthorized', authentication_suggestions: [{ tool_name: 'Google Calendar', server_id: 'srv_gcal_01' }] })],
  ['platform 404', answer('POST', '/api/agents/no-such/runs', 404, 'application/problem+json', { type: 'https://developers.glean.com/errors/resource-not-found', title: 'Resource Not Found', status: 404, detail: 'No agent with id "no-such".', code: 'resource_not_found', request_id: 'req_9d8d722e4c62f553', documentation_url: 'https://developers.glean.com/errors/resource-not-found' })],
  ['client agent', answer('GET', '/rest/api/v1/agents/echo-assistant', 200, 'application/json', { agent_id: 'echo-assistant', name: 'Echo Assistant', capabilities: { 'ap.io.messages': true, 'ap.io.streaming': true }, description: 'A messages agent.' })],
  ['client wait', answer('POST', '/rest/api/v1/agents/runs/wait', 200, 'application/json', { run: { agent_id: 'echo-assistant', messages: [{ role: 'USER', content: [{ type: 'text', text: 'Hi' }] }], status: 'success' }, messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text: 'You asked: "Hi".' }] }] })],
  ['client 422', answer('POST', '/rest/api/v1/agents/runs/wait', 422, 'application/json', { message: 'Agent calendar-helper uses tools you have not authorized.', authenticationSuggestions: [{ toolName: 'Google Calendar', serverId: 'srv_gcal_01', toolType: 'MCP', requestType: 'AUTHENTICATION_SUGGESTION', requestId: 'req_35b0340ab0c55001_0' }] })],
];

describe('answers that match the public schema', () => {
  it.each(REAL)('%s', (_, a) => {
    const result = lens.checkAnswer(a);
    expect(differences(result)).toEqual([]);
    expect(summarize(result, 'this operation')).toEqual({ tone: 'match', label: 'matches the public schema' });
  });

  it('says what it checked against', () => {
    const result = lens.checkAnswer(REAL[0]![1]);
    expect(result.kind === 'checked' && result.against).toBe('GET /rest/api/index/custom-metadata/schema/{groupName} → 200 application/json, schema CustomMetadataSchema (indexing.json)');
  });
});

describe('validators compiled at build time', () => {
  // Every documented JSON body of every operation, as an answer the lens is asked to check:
  // each must find its validator among those the build compiled, none may fall back.
  const documented = lens.specs.flatMap(({ name, doc }) =>
    Object.entries(doc.paths).flatMap(([template, item]) =>
      Object.entries(item).flatMap(([method, operation]) =>
        Object.entries((operation.responses ?? {}) as JsonObject).flatMap(([status, response]) => {
          const resolved = isObject(response) && typeof response.$ref === 'string' ? (doc.components?.responses?.[response.$ref.split('/').at(-1)!] ?? {}) : response;
          const content = isObject(resolved) && isObject(resolved.content) ? resolved.content : {};
          return Object.keys(content)
            .filter((type) => type.includes('json'))
            .map((type) => [`${name} ${method.toUpperCase()} ${template} ${status} ${type}`, answer(method.toUpperCase(), `${doc['x-base-path']}${template.replace(/\{[^}]+\}/g, 'x')}`, /^\d+$/.test(status) ? Number(status) : status === 'default' ? 599 : Number(`${status[0]}99`), type, '{}')] as const);
        }),
      ),
    ),
  );

  it('covers many answers', () => expect(documented.length).toBeGreaterThan(30));

  it.each(documented)('%s', (_, a) => {
    const result = lens.checkAnswer(a);
    expect(result.kind).toBe('checked');
    expect(differences(result)).not.toContainEqual(expect.stringContaining('built without a validator'));
  });
});

describe('answers that do not', () => {
  const schemaUrl = '/rest/api/index/custom-metadata/schema/sales';

  it('names a promised property the answer omits, with its pointer', () => {
    const result = lens.checkAnswer(answer('POST', '/api/agents/no-such/runs', 404, 'application/problem+json', { type: 'https://x.example/e', title: 'Not Found', status: 404, detail: 'gone' }));
    expect(differences(result)).toEqual([
      'error /code The documentation promises “code”; the answer omits it.',
      'error /request_id The documentation promises “request_id”; the answer omits it.',
    ]);
    expect(summarize(result, 'this operation')).toEqual({ tone: 'differs', label: '2 differences' });
  });

  it('names a wrong type and a value outside the documented enum, deep in the answer', () => {
    const result = lens.checkAnswer(answer('GET', schemaUrl, 200, 'application/json', { metadataKeys: [{ name: 'a', propertyType: 'TEXT' }, { name: 7, propertyType: 'BOOLEAN', skipIndexing: 'yes' }] }));
    expect(differences(result)).toEqual([
      'error /metadataKeys/1/name The documentation says a string here; the answer has an integer (7).',
      'error /metadataKeys/1/propertyType The documentation allows only "TEXT", "DATE", "INT", "USERID", "PICKLIST", "TEXTLIST", "MULTIPICKLIST"; the answer has "BOOLEAN".',
      'error /metadataKeys/1/skipIndexing The documentation says a boolean here; the answer has a string ("yes").',
    ]);
  });

  it('reports fields the documentation does not describe as notes, counted apart, though the spec allows extra properties', () => {
    const result = lens.checkAnswer(answer('GET', schemaUrl, 200, 'application/json', { metadataKeys: [{ name: 'a', propertyType: 'TEXT', 'colour/shade': 'red' }], etag: 'w/1' }));
    expect(differences(result)).toEqual([
      'note /metadataKeys/0/colour~1shade “colour/shade” is not in the public schema: the documentation does not describe it.',
      'note /etag “etag” is not in the public schema: the documentation does not describe it.',
    ]);
    expect(summarize(result, 'this operation')).toEqual({ tone: 'match', label: 'matches the public schema · 2 undocumented fields' });
    expect(summarize(result, 'this operation', { inError: true })).toEqual({ tone: 'neutral', label: 'error body as documented · 2 undocumented fields' });
  });

  it('counts differences and undocumented fields together', () => {
    const result = lens.checkAnswer(answer('GET', schemaUrl, 200, 'application/json', { keys: [] }));
    expect(summarize(result, 'this operation')).toEqual({ tone: 'differs', label: '1 difference · 1 undocumented field' });
  });

  it('a field inside an open map (additionalProperties) is documented', () => {
    const result = lens.checkAnswer(answer('GET', '/api/agents/a', 200, 'application/json', { agent: { agent_id: 'a', name: 'A', capabilities: { 'ap.io.anything': true } }, request_id: 'r' }));
    expect(differences(result)).toEqual([]);
  });

  it('a type the documentation does not allow, where the top of the answer should be an object', () => {
    expect(differences(lens.checkAnswer(answer('GET', schemaUrl, 200, 'application/json', '["a"]')))).toEqual(['error  The documentation says an object here; the answer has an array.']);
  });

  it('a body that is not JSON, empty, or sent under another media type', () => {
    expect(differences(lens.checkAnswer(answer('GET', schemaUrl, 200, 'application/json', '{"metadataKeys": [')))).toEqual(['error  The documentation promises JSON; the answer is not valid JSON.']);
    expect(differences(lens.checkAnswer(answer('GET', schemaUrl, 200, 'application/json', '')))).toEqual(['error  The documentation promises a body; the answer is empty.']);
    expect(differences(lens.checkAnswer(answer('GET', schemaUrl, 502, 'text/html', '<h1>Bad gateway</h1>')))).toEqual(
      'indexing.json lists no 502 answer for GET /rest/api/index/custom-metadata/schema/{groupName}.',
    );
    expect(differences(lens.checkAnswer(answer('GET', schemaUrl, 500, 'text/html', '<h1>Oops</h1>')))).toEqual([
      'error  The documentation says the answer is application/json; it came as text/html. It is not JSON.',
    ]);
    const problemAsJson = { ...JSON.parse(REAL[10]![1].body), status: '404' } as JsonObject;
    expect(differences(lens.checkAnswer(answer('POST', '/api/agents/no-such/runs', 404, 'application/json', problemAsJson)))).toEqual([
      'error /status The documentation says an integer here; the answer has a string ("404").',
      'note  The documentation says the answer is application/problem+json; it came as application/json.',
    ]);
  });

  it('checks formats the spec names', () => {
    const bad = { ...JSON.parse(REAL[10]![1].body), documentation_url: 'not a url' } as JsonObject;
    expect(differences(lens.checkAnswer(answer('POST', '/api/agents/no-such/runs', 404, 'application/problem+json', bad)))).toEqual([
      'error /documentation_url The documentation says a uri; the answer has "not a url", which is not one.',
    ]);
  });
});

describe('answers the spec does not document', () => {
  it('says so for an unknown operation, an unlisted status, or a status listed without a body', () => {
    const none = (a: LensAnswer) => {
      const result = lens.checkAnswer(a);
      expect(summarize(result, 'this operation')).toEqual({ tone: 'none', label: 'No public schema for this operation' });
      return differences(result);
    };
    expect(none(answer('GET', '/api/durable-runs/r1', 200, 'application/json', {}))).toBe('The public spec documents no operation at /api/durable-runs/r1.');
    expect(none(answer('POST', '/rest/api/v1/agents/runs/wait', 401, 'application/json', '"Not allowed"'))).toBe('client_rest.json lists no 401 answer for POST /rest/api/v1/agents/runs/wait.');
    expect(none(answer('POST', '/rest/api/v1/agents/runs/wait', 403, 'application/json', '"Forbidden"'))).toBe(
      'client_rest.json lists 403 for POST /rest/api/v1/agents/runs/wait but publishes no JSON body for it.',
    );
  });
});

describe('streamed events', () => {
  const platformRun = { method: 'POST', url: 'http://127.0.0.1:5173/api/agents/flaky-reporter/runs', status: 200 };
  const legacyRun = { method: 'POST', url: '/rest/api/v1/agents/runs/stream', status: 200 };
  const message = '{"messages":[{"role":"GLEAN_AI","content":[{"type":"text","text":"Almost there"}]}]}';
  const failed = {
    error: { type: 'https://developers.glean.com/errors/spend-limit-exceeded', title: 'Spend Limit Exceeded', status: 403, detail: 'You’ve reached the monthly limit set by your admin.', code: 'spend_limit_exceeded', request_id: 'req_94854b02062fe037', documentation_url: 'https://developers.glean.com/errors/spend-limit-exceeded' },
  };

  it('says there is no public schema for an event the spec names but gives no data schema', () => {
    expect(differences(lens.checkEvent(platformRun, 'message', message))).toBe(
      'No public schema for event “message”: platform.json names the event for POST /api/agents/{agent_id}/runs but publishes no schema for its data.',
    );
    expect(differences(lens.checkEvent(legacyRun, 'message', message))).toBe(
      'No public schema for event “message”: client_rest.json names the event for POST /rest/api/v1/agents/runs/stream but publishes no schema for its data.',
    );
    expect(summarize(lens.checkEvent(platformRun, 'message', message), 'event message')).toEqual({ tone: 'none', label: 'No public schema for event message' });
  });

  it('does not invent the schema the spec names for run.failed but does not define', () => {
    expect(differences(lens.checkEvent(platformRun, 'run.failed', JSON.stringify(failed)))).toBe(
      'No public schema for event “run.failed”: platform.json names its data AgentRunFailedEventData but does not define that schema.',
    );
  });

  it('says when the documentation does not mention an event at all', () => {
    expect(differences(lens.checkEvent(platformRun, 'run.progress', '{}'))).toBe(
      'No public schema for event “run.progress”: platform.json does not mention this event for POST /api/agents/{agent_id}/runs.',
    );
    expect(differences(lens.checkEvent({ method: 'POST', url: '/rest/api/v1/agents/runs/wait' }, 'message', message))).toBe(
      'client_rest.json does not document POST /rest/api/v1/agents/runs/wait as an event stream.',
    );
  });

  describe('with a spec that defines the event’s data schema', () => {
    // A newer cut of the spec may define AgentRunFailedEventData; the lens then checks the
    // event's data against it. This copy adds it the way the example shows it.
    const doc = structuredClone(platform) as unknown as SpecDoc;
    doc.components!.schemas!.AgentRunFailedEventData = { type: 'object', required: ['error'], properties: { error: { $ref: '#/components/schemas/ProblemDetail' } } };
    const newer = lensOver([{ name: 'platform', doc }]);

    it('a real run.failed event matches', () => {
      const result = newer.checkEvent(platformRun, 'run.failed', JSON.stringify(failed));
      expect(differences(result)).toEqual([]);
      expect(result.kind === 'checked' && result.against).toBe('event “run.failed” of POST /api/agents/{agent_id}/runs, schema AgentRunFailedEventData (platform.json)');
    });

    it('a broken one is reported by pointer', () => {
      const { request_id: _, ...error } = failed.error;
      expect(differences(newer.checkEvent(platformRun, 'run.failed', JSON.stringify({ error: { ...error, status: 'forbidden' }, retry: true })))).toEqual([
        'error /error/request_id The documentation promises “request_id”; the answer omits it.',
        'error /error/status The documentation says an integer here; the answer has a string ("forbidden").',
        'note /retry “retry” is not in the public schema: the documentation does not describe it.',
      ]);
      expect(differences(newer.checkEvent(platformRun, 'run.failed', 'Spend limit'))).toEqual(['error  The documentation gives this event a JSON schema; its data is not valid JSON.']);
    });
  });
});

describe('OpenAPI 3.0 schemas Ajv cannot read as they are', () => {
  const doc: SpecDoc = {
    openapi: '3.0.0',
    'x-base-path': '/x',
    paths: { '/t': { get: { responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/T' } } } } } } } },
    components: {
      schemas: {
        T: {
          type: 'object',
          required: ['when', 'example'],
          properties: {
            when: { type: 'string', format: 'date-time', nullable: true, example: '2026-01-01T00:00:00Z' },
            level: { type: 'string', enum: ['LOW', 'HIGH'], nullable: true },
            owner: { $ref: '#/components/schemas/Owner', nullable: true },
            size: { type: 'number', minimum: 0, exclusiveMinimum: true },
            example: { type: 'string' },
            'x-note': { type: 'string' },
            id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
          },
          'x-internal': true,
        },
        Owner: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      },
    },
  };
  const small = lensOver([{ name: 'x', doc }]);
  const check = (body: unknown) => differences(small.checkAnswer(answer('GET', '/x/t', 200, 'application/json', body)));

  it('reads nullable as "or null", also beside a $ref and an enum', () => {
    expect(check({ when: null, level: null, owner: null, example: 'e' })).toEqual([]);
    expect(check({ when: '2026-01-01T00:00:00Z', level: 'LOW', owner: { id: 'o' }, example: 'e' })).toEqual([]);
    expect(check({ when: 'tomorrow', level: 'MID', owner: {}, example: 'e' })).toEqual([
      'error /when The documentation says a date-time; the answer has "tomorrow", which is not one.',
      'error /level The documentation allows only "LOW", "HIGH", null; the answer has "MID".',
      'error /owner/id The documentation promises “id”; the answer omits it.',
    ]);
  });

  it('says once that a value fits none of the documented alternatives, not once per alternative', () => {
    expect(check({ when: null, example: 'e', id: 7 })).toEqual([]);
    expect(check({ when: null, example: 'e', id: true })).toEqual(['error /id The answer fits none of the shapes the documentation allows here.']);
  });

  it('reads the boolean exclusiveMinimum of 3.0, and keeps properties named like OpenAPI keys', () => {
    expect(check({ when: null, size: 0, example: 'e', 'x-note': 'n' })).toEqual(['error /size The documentation says this must be > 0; the answer has 0.']);
    expect(check({ when: null, example: 1 })).toEqual(['error /example The documentation says a string here; the answer has an integer (1).']);
    expect(check({ when: null })).toEqual(['error /example The documentation promises “example”; the answer omits it.']);
  });
});

describe('codes the reference service adds to the public list', () => {
  // Copied from the reference service: a wait run of expense-filer, which pauses for approvals.
  const durableRequired = {
    type: 'https://developers.glean.com/errors/durable-run-required',
    title: 'Durable Run Required',
    status: 409,
    detail: 'Agent expense-filer pauses for tool approvals, which only a durable run can wait for: run it with POST /api/agents/expense-filer/runs and "execution_mode": "DURABLE".',
    code: 'durable_run_required',
    request_id: 'req_10021fe51250d9a5',
    documentation_url: 'https://developers.glean.com/errors/durable-run-required',
    errors: [{ pointer: '/execution_mode', detail: 'Must be DURABLE for this agent.' }],
  };

  it('marks durable_run_required as the reference service’s own code, not a difference from the public spec, and the badge says so', () => {
    const result = lens.checkAnswer(answer('POST', '/api/agents/expense-filer/runs', 409, 'application/problem+json', durableRequired));
    expect(differences(result)).toEqual([
      'note /code “durable_run_required” is the reference service’s own code, which the public spec does not list: a stream or wait run of an agent that pauses for tool approvals, which only a durable run can wait for.',
    ]);
    expect(summarize(result, 'this operation', { inError: true })).toEqual({ tone: 'neutral', label: 'error body as documented · 1 reference-service code' });
  });

  it('a code nobody lists is still a difference', () => {
    const result = lens.checkAnswer(answer('POST', '/api/agents/expense-filer/runs', 409, 'application/problem+json', { ...durableRequired, code: 'approval_needed' }));
    expect(summarize(result, 'this operation', { inError: true })).toEqual({ tone: 'differs', label: '1 difference' });
  });
});

describe('durable runs, checked against the official client’s models', () => {
  // Copied from the reference service: an expense-filer durable run created, read while it waits, refused a stale decision, cancelled.
  const run = {
    run_id: 'run_66177ec2a3196c558d442adb',
    agent_id: 'expense-filer',
    state: 'REQUIRES_INPUT',
    created_at: '2026-11-26T00:39:02.407Z',
    updated_at: '2026-11-26T00:39:03.019Z',
    pending_interactions: [
      {
        interaction_id: 'int_4bad9980af49c5fd7a32d607',
        type: 'TOOL_APPROVAL',
        tool_id: 'finance.submit_expense_report',
        display_name: 'Submit expense report',
        description: 'Files the expense report in the finance system on your behalf and notifies your manager.',
        arguments: { report_id: 'EXP-1042', amount: 412.6, currency: 'EUR', approver: 'manager@example.com', receipts: ['taxi.pdf', 'hotel.pdf', 'dinner.pdf'] },
        expires_at: '2026-11-27T00:39:03.019Z',
      },
    ],
    output: { messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text: 'Drafted expense report EXP-1042. Submitting it needs your approval.' }] }] },
  };
  const created = { run: { ...run, state: 'QUEUED', pending_interactions: [], output: { messages: [] }, expires_at: '2026-11-26T01:09:02.407Z' }, request_id: 'req_40b39c32e951c4fc' };
  const read = { run, request_id: 'req_21c92a7c11ddaff4' };
  const cancelled = { run: { ...run, state: 'CANCELLED', pending_interactions: [] }, request_id: 'req_6e6a5006194f8aa5' };
  const stale = {
    type: 'https://developers.glean.com/errors/conflict',
    title: 'Conflict',
    status: 409,
    detail: 'Interaction(s) nope are not pending on run run_66177ec2a3196c558d442adb.',
    code: 'conflict',
    request_id: 'req_2a3565966ba4cab4',
    documentation_url: 'https://developers.glean.com/errors/conflict',
    reason: 'not_pending',
  };
  const base = '/api/agents/expense-filer';

  it.each([
    ['the create answer', answer('POST', `${base}/runs`, 201, 'application/json', created), 'POST /api/agents/{agent_id}/runs → 201'],
    ['a read', answer('GET', `http://127.0.0.1:5173${base}/runs/${run.run_id}`, 200, 'application/json', read), 'GET /api/agents/{agent_id}/runs/{run_id} → 200'],
    ['the cancellation', answer('POST', `${base}/cancellations`, 200, 'application/json', cancelled), 'POST /api/agents/{agent_id}/cancellations → 200'],
    ['a decision', answer('POST', `${base}/responses`, 200, 'application/json', cancelled), 'POST /api/agents/{agent_id}/responses → 200'],
  ])('%s matches the client’s PlatformAgentRunResponse, and the badge says which models it was checked against', (_, a, operation) => {
    const result = lens.checkAnswer(a);
    expect(differences(result)).toEqual([]);
    expect(result.kind === 'checked' && result.against).toBe(`${operation} application/json, model PlatformAgentRunResponse of the official client @gleanwork/api-client 0.20.15 (client-models/durable-runs.schema.json; the public spec has no schema for it)`);
    expect(summarize(result, 'this operation')).toEqual({ tone: 'match', label: 'matches the official client’s model' });
  });

  it('a refused decision is checked against the client’s problem model', () => {
    const result = lens.checkAnswer(answer('POST', `${base}/responses`, 409, 'application/problem+json', stale));
    expect(differences(result)).toEqual(['note /reason “reason” is not in the official client’s model: the client does not describe it.']);
    expect(result.kind === 'checked' && result.against).toMatch(/^POST \/api\/agents\/\{agent_id\}\/responses → 409 application\/problem\+json, model PlatformProblemDetail of the official client /);
  });

  it('a read that breaks the model says where', () => {
    const { state: _, ...stateless } = run;
    const result = lens.checkAnswer(answer('GET', `${base}/runs/${run.run_id}`, 200, 'application/json', { run: { ...stateless, pending_interactions: 'none' }, request_id: 7 }));
    expect(differences(result)).toEqual([
      'error /run/state The client’s model promises “state”; the answer omits it.',
      'error /run/pending_interactions The client’s model says an array here; the answer has a string ("none").',
      'error /request_id The client’s model says a string here; the answer has an integer (7).',
    ]);
    expect(summarize(result, 'this operation')).toEqual({ tone: 'differs', label: '3 differences' });
  });

  it('the create answer of a stream or wait run is still the public spec’s', () => {
    const result = lens.checkAnswer(REAL[8]![1]);
    expect(result.kind === 'checked' && result.against).toMatch(/\(platform\.json\)$/);
  });
});

describe('tool-server answers, checked against the official client’s models', () => {
  const auth = '/rest/api/v1/tool-servers/srv_gcal_01/auth';

  it.each([
    ['a status', answer('GET', `http://127.0.0.1:5173${auth}`, 200, 'application/json', { displayName: 'Google Calendar', authStatus: 'AWAITING_AUTH', authType: 'AUTH_USER_OAUTH' }), 'GET', 'ToolServerAuthStatusResponse'],
    ['an authorization link', answer('POST', `/upstream/127.0.0.1:4832${auth}`, 200, 'application/json', { authorizationUrl: 'http://127.0.0.1:4832/sandbox/oauth/consent?state=st_x' }), 'POST', 'AuthorizeToolServerResponse'],
  ])('%s matches, and the badge names the model and its file', (_, a, method, model) => {
    const result = lens.checkAnswer(a);
    expect(differences(result)).toEqual([]);
    expect(result.kind === 'checked' && result.against).toBe(
      `${method} /rest/api/v1/tool-servers/{serverId}/auth → 200 application/json, model ${model} of the official client @gleanwork/api-client 0.20.15 (client-models/tool-servers.schema.json; the public spec has no schema for it)`,
    );
    expect(summarize(result, 'this operation')).toEqual({ tone: 'match', label: 'matches the official client’s model' });
  });

  it('tool definitions that break the model say where; an unknown status is no difference (an open enum)', () => {
    const tools = lens.checkAnswer(answer('GET', '/rest/api/v1/tool-servers/srv_gcal_01/tools?toolNames=a', 200, 'application/json', { tools: [{ name: 'a', annotations: { readOnlyHint: 'yes' } }], notFound: 'b' }));
    expect(differences(tools)).toEqual([
      'error /tools/0/serverId The client’s model promises “serverId”; the answer omits it.',
      'error /tools/0/annotations/readOnlyHint The client’s model says a boolean here; the answer has a string ("yes").',
      'error /notFound The client’s model says an array here; the answer has a string ("b").',
    ]);
    const later = lens.checkAnswer(answer('GET', auth, 200, 'application/json', { authStatus: 'EXPIRED', authType: 'AUTH_SSO' }));
    expect(differences(later)).toEqual([]);
  });

  it('an error of these calls has no model: the client reads no body of it', () => {
    const result = lens.checkAnswer(answer('POST', auth, 400, 'application/json', 'returnUrl is on https://evil.example, which is not an allowed return URL.'));
    expect(result).toEqual({ kind: 'no-schema', reason: 'client-models/tool-servers.schema.json lists 4XX for POST /rest/api/v1/tool-servers/{serverId}/auth but publishes no JSON body for it.' });
  });
});

describe('answers an instance may send to hurt the page (issue 27)', () => {
  const schemaUrl = '/rest/api/index/custom-metadata/schema/wide';

  it('lists at most 200 undocumented fields, then how many more, walking 20,000 keys without recursion', () => {
    const metadataKeys = Array.from({ length: 20_000 }, (_, i) => ({ name: `k${i}`, propertyType: 'TEXT', extra: i }));
    const result = lens.checkAnswer(answer('GET', schemaUrl, 200, 'application/json', { metadataKeys }));
    const notes = differences(result);
    expect(notes).toHaveLength(201);
    expect(notes[0]).toBe('note /metadataKeys/0/extra “extra” is not in the public schema: the documentation does not describe it.');
    expect(notes[200]).toBe('note  … and 19,800 more properties the documentation does not describe (the first 200 are listed).');
  });

  it('says an answer nested 2,000 levels deep is too deep to check, instead of overflowing the stack', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 2_000; i++) deep = { a: deep };
    const result = lens.checkAnswer(answer('GET', schemaUrl, 200, 'application/json', { metadataKeys: [{ name: 'a', propertyType: 'TEXT', nested: deep }] }));
    expect(differences(result)).toEqual(['error  The answer nests deeper than 256 levels: the lens does not check it.']);
  });
});
