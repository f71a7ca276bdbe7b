/**
 * Tokens and scopes against every endpoint (docs/api.md, "Tokens and scopes"): custom metadata answers 401
 * for a missing, unknown or not-covering token; the agent families answer 401 for a
 * missing or unknown token and 403 for a valid token without agents.run. Each refusal
 * carries its family's error body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService, type Service } from './app.ts';
import { DEMO_GROUPS } from './seed.ts';
import { bearer, call, expectFamilyError, freshService, TOKENS, type Answer, type Family } from './test-http.ts';

interface Endpoint {
  name: string;
  family: Family;
  method: 'GET' | 'PUT' | 'DELETE' | 'POST';
  path: string;
  body?: unknown;
  /** Changes state: each case gets a fresh service, so order does not matter. */
  writes: boolean;
  /** What a permitted caller gets, checked beyond the status. */
  accepted: (a: Answer) => void;
}

const json = (a: Answer) => expect(a.contentType).toMatch(/^application\/json/);

const ENDPOINTS: Endpoint[] = [
  {
    name: 'GET schema', family: 'metadata', method: 'GET', path: '/rest/api/index/custom-metadata/schema/sales', writes: false,
    accepted: (a) => expect(a.json).toEqual(DEMO_GROUPS.sales),
  },
  {
    name: 'PUT schema', family: 'metadata', method: 'PUT', path: '/rest/api/index/custom-metadata/schema/sales', writes: true,
    body: { metadataKeys: [...DEMO_GROUPS.sales!.metadataKeys, { name: 'quarter', propertyType: 'PICKLIST' }] },
    accepted: (a) => expect(a.json).toEqual({}),
  },
  {
    name: 'DELETE schema', family: 'metadata', method: 'DELETE', path: '/rest/api/index/custom-metadata/schema/sales', writes: true,
    accepted: (a) => expect(a.json).toEqual({}),
  },
  {
    name: 'PUT document metadata', family: 'metadata', method: 'PUT', path: '/rest/api/index/document/DOC-1001/custom-metadata/sales', writes: true,
    body: { customMetadata: [{ name: 'status', value: 'lost' }] },
    accepted: (a) => expect(a.json).toEqual({}),
  },
  {
    name: 'DELETE document metadata', family: 'metadata', method: 'DELETE', path: '/rest/api/index/document/DOC-1001/custom-metadata/sales', writes: true,
    accepted: (a) => expect(a.json).toEqual({}),
  },
  {
    name: 'legacy agents/search', family: 'legacy', method: 'POST', path: '/rest/api/v1/agents/search', body: {}, writes: false,
    accepted: (a) => expect((a.json as { agents: unknown[] }).agents.length).toBeGreaterThan(0),
  },
  {
    name: 'legacy agents/{id}', family: 'legacy', method: 'GET', path: '/rest/api/v1/agents/echo-assistant', writes: false,
    accepted: (a) => expect(a.json).toMatchObject({ agent_id: 'echo-assistant' }),
  },
  {
    name: 'legacy agents/{id}/schemas', family: 'legacy', method: 'GET', path: '/rest/api/v1/agents/hr-policy-form/schemas', writes: false,
    accepted: (a) => expect(a.json).toMatchObject({ agent_id: 'hr-policy-form', input_schema: { type: 'object' } }),
  },
  {
    name: 'legacy agents/runs/stream', family: 'legacy', method: 'POST', path: '/rest/api/v1/agents/runs/stream', writes: false,
    body: { agent_id: 'firehose', input: { count: 1 } },
    accepted: (a) => {
      expect(a.contentType).toMatch(/^text\/event-stream/);
      expect(a.text).toContain('event: message');
    },
  },
  {
    name: 'legacy agents/runs/wait', family: 'legacy', method: 'POST', path: '/rest/api/v1/agents/runs/wait', writes: false,
    body: { agent_id: 'firehose', input: { count: 1 } },
    accepted: (a) => expect(a.json).toMatchObject({ run: { agent_id: 'firehose', status: 'success' } }),
  },
  {
    name: 'platform agents/search', family: 'platform', method: 'POST', path: '/api/agents/search', body: {}, writes: false,
    accepted: (a) => expect(a.json).toMatchObject({ agents: expect.any(Array), request_id: expect.any(String) }),
  },
  {
    name: 'platform agents/{id}', family: 'platform', method: 'GET', path: '/api/agents/echo-assistant', writes: false,
    accepted: (a) => expect(a.json).toMatchObject({ agent: { agent_id: 'echo-assistant' } }),
  },
  {
    name: 'platform agents/{id}/schemas', family: 'platform', method: 'GET', path: '/api/agents/hr-policy-form/schemas', writes: false,
    accepted: (a) => expect(a.json).toMatchObject({ agent_id: 'hr-policy-form', input_schema: { type: 'object' } }),
  },
  {
    name: 'platform agents/{id}/runs', family: 'platform', method: 'POST', path: '/api/agents/firehose/runs', writes: false,
    body: { input: { count: 1 } },
    accepted: (a) => expect(a.json).toMatchObject({ run: { status: 'success' }, request_id: expect.any(String) }),
  },
];

/** An Authorization header (or none), and what each family answers to it. */
interface Caller {
  name: string;
  authorization: string | undefined;
  metadata: 200 | 401;
  agents: 200 | 401 | 403;
}

const CALLERS: Caller[] = [
  { name: 'global-scope token', authorization: bearer(TOKENS.global), metadata: 200, agents: 403 },
  { name: 'token scoped to the group', authorization: bearer(TOKENS.sales), metadata: 200, agents: 403 },
  { name: 'token scoped to another group', authorization: bearer(TOKENS.hr), metadata: 401, agents: 403 },
  { name: 'agents-only token', authorization: bearer(TOKENS.agents), metadata: 401, agents: 200 },
  { name: 'unknown token', authorization: bearer('sandbox-global-0000000000000000'), metadata: 401, agents: 401 },
  { name: 'missing Authorization header', authorization: undefined, metadata: 401, agents: 401 },
  { name: 'Basic scheme carrying a valid token', authorization: `Basic ${TOKENS.everything}`, metadata: 401, agents: 401 },
  { name: '"Basic x"', authorization: 'Basic x', metadata: 401, agents: 401 },
  { name: '"Bearer" with no token', authorization: 'Bearer', metadata: 401, agents: 401 },
  { name: '"Bearer " with only spaces', authorization: 'Bearer   ', metadata: 401, agents: 401 },
  { name: 'two tokens in one header', authorization: `Bearer ${TOKENS.everything} ${TOKENS.everything}`, metadata: 401, agents: 401 },
];

const CASES = CALLERS.flatMap((caller) =>
  ENDPOINTS.map((endpoint) => {
    const expected = endpoint.family === 'metadata' ? caller.metadata : caller.agents;
    return { caller, endpoint, expected, title: `${endpoint.name} with ${caller.name} → ${expected}` };
  }),
);

/** What a refused write must leave untouched. */
function snapshot(service: Service) {
  return {
    group: service.store.getGroup('sales'),
    values: service.store.getDocValues('DOC-1001', 'sales'),
  };
}

describe('scope matrix: every endpoint, every kind of caller', () => {
  let shared: Service;
  beforeAll(() => {
    shared = createService({ memory: true, rateLimitPerMinute: 0 });
  });
  afterAll(() => shared.close());

  it.each(CASES)('$title', async ({ caller, endpoint, expected }) => {
    const service = endpoint.writes ? freshService() : shared;
    try {
      const before = snapshot(service);
      const a = await call(service, endpoint.method, endpoint.path, { authorization: caller.authorization, body: endpoint.body });
      if (expected === 200) {
        expect({ status: a.status, text: a.text.slice(0, 300) }).toMatchObject({ status: 200 });
        if (!endpoint.path.endsWith('/stream')) json(a);
        endpoint.accepted(a);
        return;
      }
      expectFamilyError(endpoint.family, a, expected);
      if (expected === 401) expect(a.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      else expect(a.headers.get('www-authenticate')).toBeNull();
      if (endpoint.writes) expect(snapshot(service)).toEqual(before);
    } finally {
      if (service !== shared) service.close();
    }
  });
});

describe('scope names ignore case', () => {
  let service: Service;
  beforeAll(() => {
    service = createService({ memory: true, rateLimitPerMinute: 0 });
    service.store.addToken('mixed-case-scope-token', { label: 'test', scopes: ['custommetadata:Sales'] });
  });
  afterAll(() => service.close());

  it.each(['SALES', 'Sales', 'sales', 'sAlEs'])('a custommetadata:Sales token reads the schema at path %s', async (path) => {
    const a = await call(service, 'GET', `/rest/api/index/custom-metadata/schema/${path}`, { token: 'mixed-case-scope-token' });
    expect(a.status).toBe(200);
    expect(a.json).toEqual(DEMO_GROUPS.sales);
  });

  it('a custommetadata:Sales token writes document values at path SALES', async () => {
    const a = await call(service, 'PUT', '/rest/api/index/document/DOC-7/custom-metadata/SALES', {
      token: 'mixed-case-scope-token',
      body: { customMetadata: [{ name: 'STATUS', value: 'open' }] },
    });
    expect(a.status).toBe(200);
    expect(service.store.getDocValues('DOC-7', 'sales')).toEqual([{ name: 'status', value: 'open' }]);
  });

  it('a custommetadata:Sales token still does not cover another group', async () => {
    const a = await call(service, 'GET', '/rest/api/index/custom-metadata/schema/HR', { token: 'mixed-case-scope-token' });
    expectFamilyError('metadata', a, 401);
    expect(a.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  });

  it('a group scope does not cover a group whose name merely starts with it', async () => {
    service.store.addToken('prefix-scope-token', { label: 'test', scopes: ['custommetadata:sale'] });
    const a = await call(service, 'GET', '/rest/api/index/custom-metadata/schema/sales', { token: 'prefix-scope-token' });
    expectFamilyError('metadata', a, 401);
  });

  it('the Bearer scheme itself is matched ignoring case', async () => {
    const a = await call(service, 'GET', '/rest/api/index/custom-metadata/schema/sales', { authorization: `bearer ${TOKENS.sales}` });
    expect(a.status).toBe(200);
  });
});
