/**
 * Contract tests: the official client (@gleanwork/api-client) against the reference
 * service over real HTTP, and every JSON answer checked with Ajv against the vendor's
 * published OpenAPI schemas in src/contract/spec.
 */
import { Glean, HTTPClient } from '@gleanwork/api-client';
import * as errors from '@gleanwork/api-client/models/errors';
import { describe, expect, test } from 'vitest';
import { createService } from './app.ts';
import { listen } from './node.ts';
import { listeningService } from './test-http.ts';
import { DEMO_GROUPS, DEMO_TOKENS } from './seed.ts';
import { specErrors, toolServerModelErrors, type SpecName, type ToolServerModel } from './test-support/spec.ts';
import { newTokenString } from './store.ts';
import { answerText, eventsOf, parseSseText } from './test-support/sse.ts';

function demoToken(label: string): string {
  const found = DEMO_TOKENS.find((t) => t.label === label);
  if (!found) throw new Error(`No demo token labelled ${label}`);
  return found.token;
}

const GLOBAL = demoToken('Demo: global metadata');
const SALES = demoToken('Demo: group sales');
const HR = demoToken('Demo: group hr');
const AGENTS = demoToken('Demo: agents');
const NO_SCOPE = demoToken('Demo: no useful scope');
const UNKNOWN = 'sandbox-not-a-token-0000000000000000';

const USER_HI = [{ role: 'USER' as const, content: [{ type: 'text' as const, text: 'Hi there' }] }];
const ECHO_ANSWER = 'You asked: "Hi there". This is the reference service\'s echo assistant, answering one word per event.';
const FLAKY_PARTIAL = 'Starting the quarterly report. Gathering sources now. Almost there';
const DEPRECATION = '@1787616000';
const SUNSET = 'Thu, 15 Apr 2027 00:00:00 GMT';

const server = listeningService();

/** One answer the official client received, as it came off the wire. */
interface Seen {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  text: Promise<string>;
}

/** A real HTTP client with a response hook that keeps a copy of every answer. */
function recordingClient() {
  const seen: Seen[] = [];
  const httpClient = new HTTPClient();
  httpClient.addHook('response', (res, req) => {
    seen.push({
      method: req.method,
      path: new URL(req.url).pathname,
      status: res.status,
      headers: res.headers,
      text: res.clone().text(),
    });
  });
  return {
    httpClient,
    seen,
    async last(): Promise<{ status: number; headers: Headers; path: string; method: string; json: unknown }> {
      const s = seen.at(-1);
      if (!s) throw new Error('The client received no answer.');
      const text = await s.text;
      return { status: s.status, headers: s.headers, path: s.path, method: s.method, json: JSON.parse(text) };
    },
    async lastText(): Promise<{ status: number; headers: Headers; text: string }> {
      const s = seen.at(-1);
      if (!s) throw new Error('The client received no answer.');
      return { status: s.status, headers: s.headers, text: await s.text };
    },
  };
}

function client(token: string) {
  const rec = recordingClient();
  const glean = new Glean({ apiToken: token, serverURL: server.url, httpClient: rec.httpClient });
  return { glean, rec, at: { serverURL: server.url } };
}

function expectValid(spec: SpecName, schema: string, value: unknown): void {
  expect(specErrors(spec, schema, value), `${spec}.json ${schema}: ${JSON.stringify(value)}`).toBe('');
}

async function rejectionOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('Expected the call to fail, and it succeeded.');
}

/** A request without the client, for what the client cannot send (wrong media type, no token). */
async function raw(method: string, path: string, init: { token?: string; body?: string; contentType?: string } = {}) {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
  const res = await fetch(server.url + path, { method, headers, body: init.body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: JSON.parse(text) as unknown };
}

describe('custom metadata with the official client', () => {
  test('reads a group schema; the answer validates as CustomMetadataSchema', async () => {
    const { glean, rec, at } = client(SALES);
    const schema = await glean.indexing.customMetadata.getSchema('sales', at);
    expect(schema).toEqual(DEMO_GROUPS.sales);
    const answer = await rec.last();
    expect(answer).toMatchObject({ method: 'GET', path: '/rest/api/index/custom-metadata/schema/sales', status: 200 });
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.json).toEqual(DEMO_GROUPS.sales);
    expectValid('indexing', 'CustomMetadataSchema', answer.json);
  });

  test('creates, replaces and deletes a schema; every 200 validates as SuccessResponse', async () => {
    const { glean, rec, at } = client(GLOBAL);
    const first = { metadataKeys: [{ name: 'stage', propertyType: 'PICKLIST' as const }] };
    await expect(glean.indexing.customMetadata.upsertSchema(first, 'contractcreate', at)).resolves.toEqual({ success: true });
    expect((await rec.last()).json).toEqual({});
    expectValid('indexing', 'SuccessResponse', (await rec.last()).json);

    const second = {
      metadataKeys: [
        { name: 'stage', propertyType: 'PICKLIST' as const },
        { name: 'labels', propertyType: 'TEXTLIST' as const, skipIndexing: true },
      ],
    };
    await glean.indexing.customMetadata.upsertSchema(second, 'contractcreate', at);
    expectValid('indexing', 'SuccessResponse', (await rec.last()).json);
    await expect(glean.indexing.customMetadata.getSchema('contractcreate', at)).resolves.toEqual(second);
    expectValid('indexing', 'CustomMetadataSchema', (await rec.last()).json);

    await expect(glean.indexing.customMetadata.deleteSchema('contractcreate', at)).resolves.toEqual({ success: true });
    const deleted = await rec.last();
    expect(deleted).toMatchObject({ method: 'DELETE', status: 200 });
    expectValid('indexing', 'SuccessResponse', deleted.json);

    const gone = await rejectionOf(glean.indexing.customMetadata.getSchema('contractcreate', at));
    expect(gone).toBeInstanceOf(errors.ErrorInfoResponse);
    expect((gone as errors.ErrorInfoResponse).statusCode).toBe(404);
    expect((gone as errors.ErrorInfoResponse).error).toBe('not found');
    expectValid('indexing', 'ErrorInfoResponse', (await rec.last()).json);
  });

  test('sets and removes a document\'s metadata; both answers validate as SuccessResponse', async () => {
    const { glean, rec, at } = client(SALES);
    const values = [
      { name: 'status', value: 'open' },
      { name: 'tags', value: ['emea', 'upsell'] },
    ];
    await expect(glean.indexing.customMetadata.upsert({ customMetadata: values }, 'DOC-7001', 'sales', at)).resolves.toEqual({
      success: true,
    });
    const put = await rec.last();
    expect(put).toMatchObject({ method: 'PUT', path: '/rest/api/index/document/DOC-7001/custom-metadata/sales', status: 200 });
    expectValid('indexing', 'SuccessResponse', put.json);
    expect(server.service.store.getDocValues('DOC-7001', 'sales')).toEqual(values);

    await expect(glean.indexing.customMetadata.delete('DOC-7001', 'sales', at)).resolves.toEqual({ success: true });
    const del = await rec.last();
    expect(del).toMatchObject({ method: 'DELETE', status: 200 });
    expectValid('indexing', 'SuccessResponse', del.json);
    expect(server.service.store.getDocValues('DOC-7001', 'sales') ?? []).toEqual([]);
  });

  test('surfaces a group token used on another group as ErrorInfoResponse with 401, for every operation', async () => {
    const { glean, rec, at } = client(HR);
    const calls: [string, () => Promise<unknown>][] = [
      ['GET schema', () => glean.indexing.customMetadata.getSchema('sales', at)],
      ['PUT schema', () => glean.indexing.customMetadata.upsertSchema({ metadataKeys: [] }, 'sales', at)],
      ['DELETE schema', () => glean.indexing.customMetadata.deleteSchema('sales', at)],
      ['PUT values', () => glean.indexing.customMetadata.upsert({ customMetadata: [{ name: 'status', value: 'x' }] }, 'DOC-1001', 'sales', at)],
      ['DELETE values', () => glean.indexing.customMetadata.delete('DOC-1001', 'sales', at)],
    ];
    for (const [label, call] of calls) {
      const err = await rejectionOf(call());
      expect(err, label).toBeInstanceOf(errors.ErrorInfoResponse);
      expect((err as errors.ErrorInfoResponse).statusCode, label).toBe(401);
      expect((err as errors.ErrorInfoResponse).error, label).toBe('unauthorized');
      const answer = await rec.last();
      expect(answer.headers.get('www-authenticate'), label).toBe('Bearer');
      expectValid('indexing', 'ErrorInfoResponse', answer.json);
    }
    // Refused, so nothing changed.
    expect(server.service.store.getGroup('sales')?.schema).toEqual(DEMO_GROUPS.sales);
    expect(server.service.store.getDocValues('DOC-1001', 'sales')).toHaveLength(2);
  });

  test('surfaces an unknown token and a token with no useful scope as 401', async () => {
    for (const token of [UNKNOWN, NO_SCOPE]) {
      const { glean, rec, at } = client(token);
      const err = await rejectionOf(glean.indexing.customMetadata.getSchema('hr', at));
      expect(err).toBeInstanceOf(errors.ErrorInfoResponse);
      expect((err as errors.ErrorInfoResponse).statusCode).toBe(401);
      expectValid('indexing', 'ErrorInfoResponse', (await rec.last()).json);
    }
    const none = await raw('GET', '/rest/api/index/custom-metadata/schema/hr');
    expect(none.status).toBe(401);
    expectValid('indexing', 'ErrorInfoResponse', none.json);
  });

  test('surfaces invalid schemas and values as 400, a group without schema as 404 and an incompatible change as 409', async () => {
    const { glean, rec, at } = client(GLOBAL);

    const duplicate = await rejectionOf(
      glean.indexing.customMetadata.upsertSchema(
        { metadataKeys: [{ name: 'stage', propertyType: 'TEXT' }, { name: 'Stage', propertyType: 'PICKLIST' }] },
        'contractbad',
        at,
      ),
    );
    expect(duplicate).toBeInstanceOf(errors.ErrorInfoResponse);
    expect((duplicate as errors.ErrorInfoResponse).statusCode).toBe(400);
    expect((duplicate as errors.ErrorInfoResponse).message).toMatch(/unique ignoring case/);
    expectValid('indexing', 'ErrorInfoResponse', (await rec.last()).json);
    expect(server.service.store.getGroup('contractbad')).toBeUndefined();

    const badValue = await rejectionOf(
      glean.indexing.customMetadata.upsert({ customMetadata: [{ name: 'status', value: true }] }, 'DOC-1001', 'sales', at),
    );
    expect(badValue).toBeInstanceOf(errors.ErrorInfoResponse);
    expect((badValue as errors.ErrorInfoResponse).statusCode).toBe(400);
    expect((badValue as errors.ErrorInfoResponse).message).toMatch(/never a boolean/);
    expectValid('indexing', 'ErrorInfoResponse', (await rec.last()).json);

    const noSchema = await rejectionOf(
      glean.indexing.customMetadata.upsert({ customMetadata: [{ name: 'a', value: 'b' }] }, 'DOC-1', 'contractnone', at),
    );
    expect(noSchema).toBeInstanceOf(errors.ErrorInfoResponse);
    expect((noSchema as errors.ErrorInfoResponse).statusCode).toBe(404);
    expectValid('indexing', 'ErrorInfoResponse', (await rec.last()).json);

    const deleteMissing = await rejectionOf(glean.indexing.customMetadata.deleteSchema('contractnone', at));
    expect((deleteMissing as errors.ErrorInfoResponse).statusCode).toBe(404);
    expectValid('indexing', 'ErrorInfoResponse', (await rec.last()).json);

    // DOC-1001 carries a value for sales.status, so its type may not change.
    const changed = {
      metadataKeys: DEMO_GROUPS.sales!.metadataKeys.map((k) => (k.name === 'status' ? { ...k, propertyType: 'TEXTLIST' as const } : k)),
    };
    const conflict = await rejectionOf(glean.indexing.customMetadata.upsertSchema(changed, 'sales', at));
    expect(conflict).toBeInstanceOf(errors.ErrorInfoResponse);
    expect((conflict as errors.ErrorInfoResponse).statusCode).toBe(409);
    expect((conflict as errors.ErrorInfoResponse).error).toBe('incompatible schema change');
    expectValid('indexing', 'ErrorInfoResponse', (await rec.last()).json);
    expect(server.service.store.getGroup('sales')?.schema).toEqual(DEMO_GROUPS.sales);
  });

  test('answers malformed bodies, wrong media types and unknown paths in the ErrorInfoResponse shape', async () => {
    const cases = [
      { path: '/rest/api/index/custom-metadata/schema/sales', body: '{"metadataKeys": [', contentType: 'application/json', status: 400 },
      { path: '/rest/api/index/custom-metadata/schema/sales', body: 'metadataKeys=1', contentType: 'text/plain', status: 415 },
      { path: '/rest/api/index/custom-metadata/schema/not-alnum!', body: '{"metadataKeys": []}', contentType: 'application/json', status: 400 },
      {
        path: '/rest/api/index/custom-metadata/schema/contractdate',
        body: '{"metadataKeys": [{"name": "due", "propertyType": "DATE"}]}',
        contentType: 'application/json',
        status: 400,
      },
    ];
    for (const c of cases) {
      const answer = await raw('PUT', c.path, { token: GLOBAL, body: c.body, contentType: c.contentType });
      expect(answer.status, c.body).toBe(c.status);
      expectValid('indexing', 'ErrorInfoResponse', answer.json);
    }
    const unknownPath = await raw('GET', '/rest/api/index/no-such-endpoint', { token: GLOBAL });
    expect(unknownPath.status).toBe(404);
    expectValid('indexing', 'ErrorInfoResponse', unknownPath.json);
  });
});

describe('client API agents (deprecated runs) with the official client', () => {
  test('lists, gets and describes agents; answers validate as SearchAgentsResponse, Agent and AgentSchemas', async () => {
    const { glean, rec } = client(AGENTS);
    const found = await glean.client.agents.list({ name: 'echo' });
    expect(found.agents?.map((a) => a.agent_id)).toEqual(['echo-assistant']);
    expectValid('client_rest', 'SearchAgentsResponse', (await rec.last()).json);

    const all = await glean.client.agents.list({});
    expect(all.agents?.length).toBe(server.service.catalog.agents.length);
    expectValid('client_rest', 'SearchAgentsResponse', (await rec.last()).json);

    const agent = await glean.client.agents.retrieve('hr-policy-form');
    expect(agent).toMatchObject({ agent_id: 'hr-policy-form', name: 'HR Policy Agent' });
    expectValid('client_rest', 'Agent', (await rec.last()).json);

    const schemas = await glean.client.agents.retrieveSchemas('hr-policy-form');
    expect(schemas.agent_id).toBe('hr-policy-form');
    const answer = await rec.last();
    expect((answer.json as { input_schema: { required: string[] } }).input_schema.required).toEqual(['topic', 'region']);
    expectValid('client_rest', 'AgentSchemas', answer.json);
  });

  test('runs a messages agent and waits: AgentRunWaitResponse with the whole answer, marked deprecated', async () => {
    const { glean, rec } = client(AGENTS);
    const result = await glean.client.agents.run({ agent_id: 'echo-assistant', messages: USER_HI });
    expect(result.run?.status).toBe('success');
    expect(result.messages).toEqual([{ role: 'GLEAN_AI', content: [{ type: 'text', text: ECHO_ANSWER }] }]);
    const answer = await rec.last();
    expect(answer).toMatchObject({ method: 'POST', path: '/rest/api/v1/agents/runs/wait', status: 200 });
    expect(answer.headers.get('deprecation')).toBe(DEPRECATION);
    expect(answer.headers.get('sunset')).toBe(SUNSET);
    expect(answer.headers.get('link')).toBe('</api/agents/echo-assistant/runs>; rel="successor-version"');
    expectValid('client_rest', 'AgentRunWaitResponse', answer.json);
  });

  test('runs an agent that fails mid-run and waits: status error, the partial answer, then the error text', async () => {
    const { glean, rec } = client(AGENTS);
    const result = await glean.client.agents.run({ agent_id: 'flaky-reporter', messages: USER_HI });
    expect(result.run?.status).toBe('error');
    const texts = (result.messages ?? []).flatMap((m) => (m.content ?? []).map((b) => b.text));
    expect(texts).toEqual([FLAKY_PARTIAL, expect.stringContaining('spend_limit_exceeded')]);
    expectValid('client_rest', 'AgentRunWaitResponse', (await rec.last()).json);
  });

  test('streams a run: the client returns the event stream, whose messages make up the answer', async () => {
    const { glean, rec } = client(AGENTS);
    const text = await glean.client.agents.runStream({ agent_id: 'echo-assistant', messages: USER_HI });
    const events = eventsOf(parseSseText(text));
    expect(events.length).toBe(ECHO_ANSWER.split(' ').length);
    expect(events.every((e) => e.event === 'message')).toBe(true);
    expect(answerText(events)).toBe(ECHO_ANSWER);
    const answer = await rec.lastText();
    expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(answer.headers.get('deprecation')).toBe(DEPRECATION);
    expect(answer.headers.get('sunset')).toBe(SUNSET);
  });

  test('surfaces unauthorized tools as UnauthorizedAgentToolsError with 422, on wait and on stream', async () => {
    const { glean, rec } = client(AGENTS);
    for (const call of [
      () => glean.client.agents.run({ agent_id: 'calendar-helper', messages: USER_HI }),
      () => glean.client.agents.runStream({ agent_id: 'calendar-helper', messages: USER_HI }),
    ]) {
      const err = await rejectionOf(call());
      expect(err).toBeInstanceOf(errors.UnauthorizedAgentToolsError);
      expect((err as errors.UnauthorizedAgentToolsError).statusCode).toBe(422);
      expect((err as errors.UnauthorizedAgentToolsError).authenticationSuggestions.map((s) => s.serverId)).toEqual([
        'srv_gcal_01',
        'srv_outlook_02',
      ]);
      expectValid('client_rest', 'UnauthorizedAgentToolsError', (await rec.last()).json);
    }
  });

  test('surfaces an unknown agent as 404 with an ErrorResponse string', async () => {
    const { glean, rec } = client(AGENTS);
    const streamErr = await rejectionOf(glean.client.agents.runStream({ agent_id: 'no-such-agent', messages: USER_HI }));
    expect(streamErr).toBeInstanceOf(errors.ErrorResponse);
    expect((streamErr as errors.ErrorResponse).statusCode).toBe(404);
    const streamAnswer = await rec.last();
    expect(streamAnswer.json).toBe('Unknown agent: no-such-agent');
    expectValid('client_rest', 'ErrorResponse', streamAnswer.json);

    const getErr = await rejectionOf(glean.client.agents.retrieve('no-such-agent'));
    expect(getErr).toBeInstanceOf(errors.ErrorResponse);
    expect((getErr as errors.ErrorResponse).statusCode).toBe(404);
    expectValid('client_rest', 'ErrorResponse', (await rec.last()).json);

    const waitErr = await rejectionOf(glean.client.agents.run({ agent_id: 'no-such-agent', messages: USER_HI }));
    expect(waitErr).toBeInstanceOf(errors.GleanError);
    expect((waitErr as errors.GleanError).statusCode).toBe(404);
    expectValid('client_rest', 'ErrorResponse', (await rec.last()).json);
  });

  test('refuses a token without agents.run with 403 and an unknown token with 401, as ErrorResponse strings', async () => {
    for (const [token, status] of [
      [GLOBAL, 403],
      [UNKNOWN, 401],
    ] as const) {
      const { glean, rec } = client(token);
      const err = await rejectionOf(glean.client.agents.run({ agent_id: 'echo-assistant', messages: USER_HI }));
      expect(err).toBeInstanceOf(errors.GleanBaseError);
      expect((err as errors.GleanBaseError).statusCode).toBe(status);
      const answer = await rec.last();
      expect(typeof answer.json).toBe('string');
      expectValid('client_rest', 'ErrorResponse', answer.json);
    }
  });

  test('refuses an input-form run with a missing form field with 400 naming the field', async () => {
    const { glean, rec } = client(AGENTS);
    const err = await rejectionOf(
      glean.client.agents.run({
        agent_id: 'hr-policy-form',
        input: { topic: 'leave', region: 'emea', tone: 'formal', maxPoints: 3, includeLinks: false },
      }),
    );
    expect((err as errors.GleanBaseError).statusCode).toBe(400);
    const answer = await rec.last();
    expect(answer.json).toEqual(expect.stringContaining('audience'));
    expectValid('client_rest', 'ErrorResponse', answer.json);

    const unknownField = await raw('POST', '/rest/api/v1/agents/runs/wait', {
      token: AGENTS,
      body: JSON.stringify({ agent_id: 'echo-assistant', messages: USER_HI, stream: true }),
    });
    expect(unknownField.status).toBe(400);
    expectValid('client_rest', 'ErrorResponse', unknownField.json);

    const wrongType = await raw('POST', '/rest/api/v1/agents/runs/wait', { token: AGENTS, body: 'x', contentType: 'text/plain' });
    expect(wrongType.status).toBe(415);
    expectValid('client_rest', 'ErrorResponse', wrongType.json);
  });
});

describe('platform agents API with the official client', () => {
  test('searches, gets and describes agents; answers validate and carry the X-Request-Id as request_id', async () => {
    const { glean, rec } = client(AGENTS);
    const found = await glean.agents.search({ name: 'HR' });
    expect(found.agents.map((a) => a.agent_id)).toEqual(['hr-policy-form']);
    let answer = await rec.last();
    expectValid('platform', 'AgentsSearchResponse', answer.json);
    expect((answer.json as { request_id: string }).request_id).toBe(answer.headers.get('x-request-id'));

    const got = await glean.agents.get('echo-assistant');
    expect(got.agent).toMatchObject({ agent_id: 'echo-assistant', name: 'Echo Assistant' });
    answer = await rec.last();
    expectValid('platform', 'AgentGetResponse', answer.json);
    expect((answer.json as { request_id: string }).request_id).toBe(answer.headers.get('x-request-id'));

    await glean.agents.getSchemas('firehose');
    answer = await rec.last();
    expect((answer.json as { input_schema: { required: string[] } }).input_schema.required).toEqual(['count']);
    expectValid('platform', 'AgentSchemasResponse', answer.json);
  });

  test('creates a run with stream false and gets AgentRunWaitResponse with the answer', async () => {
    const { glean, rec } = client(AGENTS);
    const input = { topic: 'parental leave', audience: '', region: 'emea', tone: 'friendly', maxPoints: 5, includeLinks: true };
    const result = await glean.agents.createRun({ input, stream: false }, 'hr-policy-form');
    expect(typeof result).toBe('object');
    const answer = await rec.last();
    expect(answer).toMatchObject({ method: 'POST', path: '/api/agents/hr-policy-form/runs', status: 200 });
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.json).toMatchObject({
      run: { agent_id: 'hr-policy-form', input, status: 'success' },
      messages: [
        {
          role: 'GLEAN_AI',
          content: [
            {
              type: 'text',
              text:
                'Policy summary on parental leave for region emea (audience: none; tone: friendly; at most 5 points; links: true). ' +
                '1. Check the handbook. 2. Ask your HR partner.',
            },
          ],
        },
      ],
      request_id: answer.headers.get('x-request-id'),
    });
    expectValid('platform', 'AgentRunWaitResponse', answer.json);
  });

  test('creates a run with stream true and gets the event stream; a failing run ends with run.failed', async () => {
    const { glean, rec } = client(AGENTS);
    const ok = await glean.agents.createRun({ messages: USER_HI, stream: true }, 'echo-assistant');
    expect(typeof ok).toBe('string');
    const okEvents = eventsOf(parseSseText(ok as string));
    expect(answerText(okEvents)).toBe(ECHO_ANSWER);
    expect((await rec.lastText()).headers.get('content-type')).toMatch(/^text\/event-stream/);

    const failed = await glean.agents.createRun({ messages: USER_HI, stream: true }, 'flaky-reporter');
    const events = eventsOf(parseSseText(failed as string));
    expect(events.map((e) => e.event)).toEqual(['message', 'message', 'message', 'run.failed']);
    const { error } = JSON.parse(events[3]!.data) as { error: unknown };
    expect(error).toMatchObject({ code: 'spend_limit_exceeded', status: 403 });
    expectValid('platform', 'ProblemDetail', error);
  });

  test('surfaces unauthorized tools as PlatformUnauthorizedAgentToolsProblemError with 422', async () => {
    const { glean, rec } = client(AGENTS);
    for (const stream of [false, true]) {
      const err = await rejectionOf(glean.agents.createRun({ messages: USER_HI, stream }, 'calendar-helper'));
      expect(err).toBeInstanceOf(errors.PlatformUnauthorizedAgentToolsProblemError);
      const problem = err as errors.PlatformUnauthorizedAgentToolsProblemError;
      expect(problem.statusCode).toBe(422);
      expect(problem.code).toBe('tools_unauthorized');
      expect(problem.authentication_suggestions.map((s) => s.server_id)).toEqual(['srv_gcal_01', 'srv_outlook_02']);
      const answer = await rec.last();
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
      expectValid('platform', 'UnauthorizedAgentToolsProblem', answer.json);
    }
  });

  test('surfaces 401, 403, 404 and 400 as PlatformProblemDetailError with problem+json bodies', async () => {
    const cases = [
      { token: UNKNOWN, agent: 'echo-assistant', body: { messages: USER_HI }, status: 401, code: 'authentication_required' },
      { token: HR, agent: 'echo-assistant', body: { messages: USER_HI }, status: 403, code: 'insufficient_permissions' },
      { token: AGENTS, agent: 'no-such-agent', body: { messages: USER_HI }, status: 404, code: 'resource_not_found' },
      {
        token: AGENTS,
        agent: 'hr-policy-form',
        body: { input: { topic: 'leave', region: 'emea', tone: '', maxPoints: 2, includeLinks: false } },
        status: 400,
        code: 'missing_required_field',
      },
      { token: AGENTS, agent: 'echo-assistant', body: {}, status: 400, code: 'missing_required_field' },
    ];
    for (const c of cases) {
      const { glean, rec } = client(c.token);
      const err = await rejectionOf(glean.agents.createRun(c.body, c.agent));
      expect(err, c.code).toBeInstanceOf(errors.PlatformProblemDetailError);
      const problem = err as errors.PlatformProblemDetailError;
      expect(problem.statusCode, c.code).toBe(c.status);
      expect(problem.code, c.code).toBe(c.code);
      const answer = await rec.last();
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
      expect(answer.json).toMatchObject({ status: c.status, code: c.code, request_id: answer.headers.get('x-request-id') });
      expectValid('platform', 'ProblemDetail', answer.json);
    }
  });

  test('names each missing form field in errors[] with a JSON pointer', async () => {
    const { glean, rec } = client(AGENTS);
    await rejectionOf(glean.agents.createRun({ input: { topic: 'leave', region: 'emea' } }, 'hr-policy-form'));
    const answer = await rec.last();
    const pointers = (answer.json as { errors: { pointer: string; code: string }[] }).errors.map((e) => [e.pointer, e.code]);
    expect(pointers).toEqual(
      expect.arrayContaining([
        ['/input/audience', 'missing_required_field'],
        ['/input/tone', 'missing_required_field'],
        ['/input/maxPoints', 'missing_required_field'],
        ['/input/includeLinks', 'missing_required_field'],
      ]),
    );
    expectValid('platform', 'ProblemDetail', answer.json);
  });

  test('answers malformed bodies, unknown fields, wrong media types and unknown paths as valid ProblemDetail', async () => {
    const cases = [
      { path: '/api/agents/echo-assistant/runs', body: '{"messages": [', contentType: 'application/json', status: 400 },
      { path: '/api/agents/echo-assistant/runs', body: JSON.stringify({ messages: USER_HI, agent_id: 'x' }), contentType: 'application/json', status: 400 },
      { path: '/api/agents/echo-assistant/runs', body: JSON.stringify({ messages: USER_HI, stream: 'yes' }), contentType: 'application/json', status: 400 },
      // The platform's code list has no 415: a body that is not JSON is an invalid request.
      { path: '/api/agents/echo-assistant/runs', body: 'messages=hi', contentType: 'text/plain', status: 400 },
      { path: '/api/agents/search', body: JSON.stringify({ name: 3 }), contentType: 'application/json', status: 400 },
    ];
    for (const c of cases) {
      const answer = await raw('POST', c.path, { token: AGENTS, body: c.body, contentType: c.contentType });
      expect(answer.status, c.body).toBe(c.status);
      expect(answer.headers.get('content-type'), c.body).toBe('application/problem+json');
      expect(answer.json, c.body).toMatchObject({ status: c.status });
      expectValid('platform', 'ProblemDetail', answer.json);
    }
    const unknownPath = await raw('GET', '/api/no-such-endpoint', { token: AGENTS });
    expect(unknownPath.status).toBe(404);
    expectValid('platform', 'ProblemDetail', unknownPath.json);
  });
});

describe('agent tools and tool-server authorization with the official client', () => {
  /** A token of its own: authorizations are per token, and the demo tokens' 422s are tested above. */
  function minted(): string {
    const token = newTokenString();
    server.service.store.addToken(token, { label: 'contract: tool servers', scopes: ['agents.run'] });
    return token;
  }

  async function expectModel(rec: ReturnType<typeof recordingClient>, model: ToolServerModel, path: string) {
    const answer = await rec.last();
    expect(answer).toMatchObject({ path, status: 200 });
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(toolServerModelErrors(model, answer.json), JSON.stringify(answer.json)).toBe('');
    return answer.json;
  }

  /** The browser's part, which no client does: the consent page, and Allow or Deny posted from it. */
  async function consent(authorizationUrl: string, decision: 'allow' | 'deny'): Promise<URL> {
    const page = await fetch(authorizationUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`value="${decision}"`);
    const state = new URL(authorizationUrl).searchParams.get('state')!;
    const posted = await fetch(new URL('/sandbox/oauth/consent', authorizationUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ state, decision }),
      redirect: 'manual',
    });
    expect(posted.status).toBe(303);
    return new URL(posted.headers.get('location')!);
  }

  test('getSchemas lists the agent\'s tools only with includeTools; both answers validate as AgentSchemasResponse', async () => {
    const { glean, rec } = client(AGENTS);
    const withTools = await glean.agents.getSchemas('expense-filer', true);
    expect(withTools.tools?.map((t) => [t.tool_id, t.type, t.write_action_type])).toEqual([
      ['finance.read_receipts', 'RETRIEVAL', undefined],
      ['finance.submit_expense_report', 'ACTION', 'EXECUTION'],
    ]);
    expect(rec.seen.at(-1)!.path).toBe('/api/agents/expense-filer/schemas');
    expectValid('platform', 'AgentSchemasResponse', (await rec.last()).json);
    // The client always sends include_tools, false by default.
    const plain = await glean.agents.getSchemas('expense-filer');
    expect(plain.tools).toBeUndefined();
    expect((await rec.last()).json).not.toHaveProperty('tools');
    expectValid('platform', 'AgentSchemasResponse', (await rec.last()).json);
  });

  test('retrieveToolServerAuthStatus, authorizeToolServer, the consent, then the run: unchanged client calls', async () => {
    const token = minted();
    const { glean, rec } = client(token);
    const before = await glean.client.tools.retrieveToolServerAuthStatus('srv_gcal_01');
    expect(before).toEqual({ displayName: 'Google Calendar', description: expect.any(String), authStatus: 'AWAITING_AUTH', authType: 'AUTH_USER_OAUTH' });
    await expectModel(rec, 'ToolServerAuthStatusResponse', '/rest/api/v1/tool-servers/srv_gcal_01/auth');

    const returnUrl = `${server.url}/runs/calendar-helper`;
    for (const serverId of ['srv_gcal_01', 'srv_outlook_02']) {
      const { authorizationUrl } = await glean.client.tools.authorizeToolServer({ returnUrl }, serverId);
      await expectModel(rec, 'AuthorizeToolServerResponse', `/rest/api/v1/tool-servers/${serverId}/auth`);
      expect(authorizationUrl.startsWith(`${server.url}/sandbox/oauth/consent?state=`)).toBe(true);
      expect(authorizationUrl).not.toContain(token);
      const back = await consent(authorizationUrl, 'allow');
      expect(back.href).toBe(`${returnUrl}?glean_tool_auth=success&serverId=${serverId}`);
      expect((await glean.client.tools.retrieveToolServerAuthStatus(serverId)).authStatus).toBe('AUTHORIZED');
    }
    const run = await glean.agents.createRun({ messages: USER_HI, stream: false }, 'calendar-helper');
    expect(JSON.stringify(run)).toContain('Hi there');
    // Another token is still refused.
    const other = await rejectionOf(client(minted()).glean.agents.createRun({ messages: USER_HI, stream: false }, 'calendar-helper'));
    expect(err422(other)).toEqual(['srv_gcal_01', 'srv_outlook_02']);
  });

  test('a denied consent leaves the server AWAITING_AUTH and the run refused', async () => {
    const { glean } = client(minted());
    const { authorizationUrl } = await glean.client.tools.authorizeToolServer({ returnUrl: `${server.url}/runs` }, 'srv_outlook_02');
    const back = await consent(authorizationUrl, 'deny');
    expect(Object.fromEntries(back.searchParams)).toEqual({ glean_tool_auth: 'error', serverId: 'srv_outlook_02', error: 'access_denied' });
    expect((await glean.client.tools.retrieveToolServerAuthStatus('srv_outlook_02')).authStatus).toBe('AWAITING_AUTH');
    expect(err422(await rejectionOf(glean.agents.createRun({ messages: USER_HI, stream: false }, 'calendar-helper')))).toEqual(['srv_gcal_01', 'srv_outlook_02']);
  });

  test('getToolServerTools describes the named tools and lists unknown names in notFound', async () => {
    const { glean, rec } = client(minted());
    const answer = await glean.client.tools.getToolServerTools('srv_gcal_01', ['list-events', 'book_room']);
    expect(answer.tools.map((t) => [t.serverId, t.name, t.annotations?.readOnlyHint])).toEqual([['srv_gcal_01', 'list_events', true]]);
    expect(answer.notFound).toEqual(['book_room']);
    await expectModel(rec, 'ToolDefinitionsResponse', '/rest/api/v1/tool-servers/srv_gcal_01/tools');
  });

  test('an unknown server is a 404 and a returnUrl on another origin a 400, both as the client\'s errors', async () => {
    const { glean, rec } = client(minted());
    const unknown = await rejectionOf(glean.client.tools.retrieveToolServerAuthStatus('srv_nope'));
    expect(unknown).toBeInstanceOf(errors.GleanError);
    expect((unknown as errors.GleanError).statusCode).toBe(404);
    expect((await rec.last()).json).toBe('No tool server "srv_nope" on this service.');
    const elsewhere = await rejectionOf(glean.client.tools.authorizeToolServer({ returnUrl: 'https://evil.example/runs' }, 'srv_gcal_01'));
    expect((elsewhere as errors.GleanError).statusCode).toBe(400);
    expect((await rec.last()).json).toMatch(/^returnUrl is on https:\/\/evil\.example, which is not an allowed return URL/);
  });
});

/** The server ids a 422 of the platform API names. */
function err422(err: unknown): string[] {
  expect(err).toBeInstanceOf(errors.PlatformUnauthorizedAgentToolsProblemError);
  return (err as errors.PlatformUnauthorizedAgentToolsProblemError).authentication_suggestions.map((s) => s.server_id);
}

describe('rate limiting in each family\'s error shape', () => {
  test('answers 429 with Retry-After once a token is over its limit', async () => {
    const limited = createService({ memory: true, rateLimitPerMinute: 1 });
    const limitedServer = await listen(limited, 0);
    try {
      const cases = [
        { path: '/rest/api/index/custom-metadata/schema/sales', method: 'GET', token: GLOBAL, spec: 'indexing', schema: 'ErrorInfoResponse' },
        { path: '/rest/api/v1/agents/echo-assistant', method: 'GET', token: AGENTS, spec: 'client_rest', schema: 'ErrorResponse' },
        { path: '/api/agents/echo-assistant', method: 'GET', token: AGENTS, spec: 'platform', schema: 'ProblemDetail' },
      ] as const;
      for (const c of cases) {
        const send = () => fetch(limitedServer.url + c.path, { method: c.method, headers: { authorization: `Bearer ${c.token}` } });
        // Families keep separate windows; the first call in each passes.
        expect((await send()).status, c.path).toBe(200);
        const over = await send();
        expect(over.status, c.path).toBe(429);
        expect(Number(over.headers.get('retry-after')), c.path).toBeGreaterThanOrEqual(1);
        expectValid(c.spec, c.schema, await over.json());
      }
    } finally {
      await limitedServer.close();
      limited.close();
    }
  });
});
