/**
 * Bad input: each mistake gets the right 4xx and its family's error body, never a 500,
 * and never changes anything it was not allowed to change.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createService, type Service } from './app.ts';
import { listen } from './node.ts';
import { DEMO_GROUPS } from './seed.ts';
import {
  answerOf,
  call,
  expectFamilyError,
  freshService,
  expectLegacyError,
  expectMetadataError,
  expectProblem,
  pointersOf,
  rawCall,
  TOKENS,
  type Answer,
  type Family,
} from './test-http.ts';

const SCHEMA = (group: string) => `/rest/api/index/custom-metadata/schema/${group}`;
const DOC = (docId: string, group: string) => `/rest/api/index/document/${docId}/custom-metadata/${group}`;
const HI = [{ role: 'USER', content: [{ type: 'text', text: 'Hi' }] }];
const FORM_COMPLETE = { topic: 'parental leave', audience: '', region: 'emea', tone: '', maxPoints: '', includeLinks: '' };

/** One JSON-taking endpoint per family, with the token it needs and a valid body. */
interface BodyEndpoint {
  name: string;
  family: Family;
  method: 'PUT' | 'POST';
  path: string;
  token: string;
  valid: unknown;
}

const BODY_ENDPOINTS: BodyEndpoint[] = [
  { name: 'PUT schema', family: 'metadata', method: 'PUT', path: SCHEMA('sales'), token: TOKENS.global, valid: DEMO_GROUPS.sales },
  {
    name: 'PUT document metadata', family: 'metadata', method: 'PUT', path: DOC('DOC-1001', 'sales'), token: TOKENS.global,
    valid: { customMetadata: [{ name: 'status', value: 'won' }] },
  },
  { name: 'legacy agents/search', family: 'legacy', method: 'POST', path: '/rest/api/v1/agents/search', token: TOKENS.agents, valid: {} },
  {
    name: 'legacy runs/wait', family: 'legacy', method: 'POST', path: '/rest/api/v1/agents/runs/wait', token: TOKENS.agents,
    valid: { agent_id: 'firehose', input: { count: 1 } },
  },
  {
    name: 'legacy runs/stream', family: 'legacy', method: 'POST', path: '/rest/api/v1/agents/runs/stream', token: TOKENS.agents,
    valid: { agent_id: 'firehose', input: { count: 1 } },
  },
  { name: 'platform agents/search', family: 'platform', method: 'POST', path: '/api/agents/search', token: TOKENS.agents, valid: {} },
  {
    name: 'platform runs', family: 'platform', method: 'POST', path: '/api/agents/firehose/runs', token: TOKENS.agents,
    valid: { input: { count: 1 } },
  },
];

/** Everything a refused request must leave as it was. */
function snapshot(service: Service) {
  const groups = ['sales', 'hr', 'engineering'].map((g) => service.store.getGroup(g));
  const values = [
    service.store.getDocValues('DOC-1001', 'sales'),
    service.store.getDocValues('DOC-2001', 'hr'),
  ];
  return { groups, values, count: service.store.countGroups() };
}

let service: Service;
beforeEach(() => {
  service = freshService();
});
afterEach(() => service.close());

describe('bodies every family refuses', () => {
  it.each(BODY_ENDPOINTS)('$name: the valid body used below is accepted (control)', async (e) => {
    const a = await call(service, e.method, e.path, { token: e.token, body: e.valid });
    expect(a.status).toBe(200);
  });

  it.each(BODY_ENDPOINTS)('$name: malformed JSON → 400', async (e) => {
    const a = await call(service, e.method, e.path, { token: e.token, body: '{"metadataKeys": [,' });
    expectFamilyError(e.family, a, 400);
  });

  /**
   * A body that is not declared JSON: 415 where the family's published responses have it;
   * the platform spec lists no 415, so that family answers 400 invalid_request.
   */
  function expectWrongMediaType(e: BodyEndpoint, a: Answer) {
    if (e.family === 'platform') {
      const p = expectProblem(a, 400, 'invalid_request');
      expect(p.detail).toMatch(/Content-Type/);
    } else {
      expectFamilyError(e.family, a, 415);
    }
  }

  it.each(BODY_ENDPOINTS)('$name: a JSON-looking body sent as text/plain → 415 (platform: 400)', async (e) => {
    const a = await call(service, e.method, e.path, { token: e.token, body: JSON.stringify(e.valid), contentType: 'text/plain' });
    expectWrongMediaType(e, a);
  });

  it.each(BODY_ENDPOINTS)('$name: a form-encoded body → 415 (platform: 400)', async (e) => {
    const a = await call(service, e.method, e.path, { token: e.token, body: 'a=1', contentType: 'application/x-www-form-urlencoded' });
    expectWrongMediaType(e, a);
  });

  it.each(BODY_ENDPOINTS)('$name: a JSON body with no Content-Type → 415 (platform: 400)', async (e) => {
    const res = await service.app.request(e.path, {
      method: e.method,
      headers: { authorization: `Bearer ${e.token}` },
      body: new TextEncoder().encode(JSON.stringify(e.valid)),
    });
    expect(res.headers.get('content-type') ?? '').not.toBe('');
    expectWrongMediaType(e, await answerOf(res));
  });

  it.each(BODY_ENDPOINTS)('$name: application/json with a charset parameter is still JSON', async (e) => {
    const a = await call(service, e.method, e.path, { token: e.token, body: e.valid, contentType: 'application/json; charset=utf-8' });
    expect(a.status).toBe(200);
  });

  it.each(BODY_ENDPOINTS.flatMap((e) => ['null', '[]', '"text"', '42'].map((body) => ({ ...e, body }))))(
    '$name: a body of $body, not an object → 400',
    async (e) => {
      const a = await call(service, e.method, e.path, { token: e.token, body: e.body });
      expectFamilyError(e.family, a, 400);
    },
  );

  it.each(BODY_ENDPOINTS)('$name: JSON nested 100,000 levels deep → 400, not a stack overflow', async (e) => {
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    const valid = JSON.stringify(e.valid);
    // The deep value hides in a field each endpoint accepts or reports on.
    const body = valid === '{}' ? `{"name":${deep}}` : `${valid.slice(0, -1)},"metadata":${deep}}`;
    const a = await call(service, e.method, e.path, { token: e.token, body });
    expectFamilyError(e.family, a, 400);
  });

  it('a deeply nested value inside a field the API keeps is refused, and the schema is kept', async () => {
    const deep = '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000);
    const before = snapshot(service);
    const a = await call(service, 'PUT', SCHEMA('sales'), {
      token: TOKENS.global,
      body: `{"metadataKeys":[{"name":"status","propertyType":"PICKLIST","uiOptions":${deep}}]}`,
    });
    expectMetadataError(a, 400);
    expect(snapshot(service)).toEqual(before);
  });

  it('a run input nested a few levels deep is still accepted', async () => {
    const nested = JSON.parse('{"a":'.repeat(20) + '"x"' + '}'.repeat(20)) as unknown;
    const a = await call(service, 'POST', '/api/agents/firehose/runs', {
      token: TOKENS.agents,
      body: { input: { count: 1 }, metadata: { trace: nested } },
    });
    expect(a.status).toBe(200);
  });
});

describe('bodies over 1 MB → 413 in each family', () => {
  const big = (e: BodyEndpoint) => {
    const text = JSON.stringify(e.valid);
    return `${text.slice(0, -1)}${text === '{}' ? '' : ','}"padding":"${'x'.repeat(1024 * 1024)}"}`;
  };

  it.each(BODY_ENDPOINTS)('$name, in process', async (e) => {
    const a = await call(service, e.method, e.path, { token: e.token, body: big(e) });
    expectFamilyError(e.family, a, 413);
    if (e.family === 'platform') expect(expectProblem(a, 413).code).toBe('request_too_large');
  });

  it('a body of exactly 1 MB is not refused for its size', async () => {
    const prefix = '{"name":"';
    const body = prefix + 'x'.repeat(1024 * 1024 - prefix.length - 2) + '"}';
    expect(Buffer.byteLength(body)).toBe(1024 * 1024);
    const a = await call(service, 'POST', '/api/agents/search', { token: TOKENS.agents, body });
    expect(a.status).toBe(200);
  });

  describe('over real HTTP', () => {
    let server: { url: string; close(): Promise<void> };
    let shared: Service;
    beforeAll(async () => {
      shared = createService({ memory: true, rateLimitPerMinute: 0 });
      server = await listen(shared, 0);
    });
    afterAll(async () => {
      await server.close();
      shared.close();
    });

    it.each(BODY_ENDPOINTS)('$name → 413, closing the connection', async (e) => {
      const a = await rawCall(server.url, e.method, e.path, { token: e.token, body: big(e), keepAlive: true });
      expectFamilyError(e.family, a, 413);
      expect(a.headers.get('connection')).toBe('close');
    });

    it('requests after a 413 on kept-alive connections still get answers', async () => {
      const e = BODY_ENDPOINTS[0]!;
      const failures: string[] = [];
      for (let i = 0; i < 8; i++) {
        try {
          const tooBig = await fetch(server.url + e.path, {
            method: 'PUT',
            headers: { authorization: `Bearer ${e.token}`, 'content-type': 'application/json' },
            body: big(e),
          });
          await tooBig.text();
          if (tooBig.status !== 413) failures.push(`status ${tooBig.status}`);
          const next = await fetch(server.url + SCHEMA('sales'), { headers: { authorization: `Bearer ${e.token}` } });
          await next.text();
          if (next.status !== 200) failures.push(`status ${next.status}`);
        } catch (err) {
          failures.push(String((err as Error).cause ?? err));
        }
      }
      expect(failures).toEqual([]);
    });
  });
});

describe('unknown fields', () => {
  it('schema PUT: an unknown top-level field → 400', async () => {
    const a = await call(service, 'PUT', SCHEMA('sales'), { token: TOKENS.global, body: { ...DEMO_GROUPS.sales, owner: 'me' } });
    expectMetadataError(a, 400);
    expect(a.text).toContain('owner');
  });

  it('schema PUT: an unknown field on one key → 400', async () => {
    const a = await call(service, 'PUT', SCHEMA('newgroup'), {
      token: TOKENS.global,
      body: { metadataKeys: [{ name: 'status', propertyType: 'PICKLIST', colour: 'red' }] },
    });
    expectMetadataError(a, 400);
    expect(a.text).toContain('colour');
    expect(service.store.getGroup('newgroup')).toBeUndefined();
  });

  it('document PUT: an unknown top-level field → 400', async () => {
    const a = await call(service, 'PUT', DOC('DOC-1', 'sales'), { token: TOKENS.global, body: { customMetadata: [], extra: true } });
    expectMetadataError(a, 400);
    expect(service.store.getDocValues('DOC-1', 'sales')).toBeUndefined();
  });

  it('document PUT: an unknown field on one value → 400', async () => {
    const a = await call(service, 'PUT', DOC('DOC-1', 'sales'), {
      token: TOKENS.global,
      body: { customMetadata: [{ name: 'status', value: 'won', weight: 2 }] },
    });
    expectMetadataError(a, 400);
  });

  it('legacy run: an unknown field → 400 naming it', async () => {
    const a = await call(service, 'POST', '/rest/api/v1/agents/runs/wait', {
      token: TOKENS.agents,
      body: { agent_id: 'echo-assistant', messages: HI, stream: true },
    });
    expect(expectLegacyError(a, 400)).toContain('stream');
  });

  it('platform run: an unknown field → 400 problem with a pointer to it', async () => {
    const a = await call(service, 'POST', '/api/agents/echo-assistant/runs', {
      token: TOKENS.agents,
      body: { messages: HI, agent_id: 'echo-assistant' },
    });
    const p = expectProblem(a, 400);
    expect(pointersOf(p)).toContain('/agent_id');
  });
});

describe('group names: unicode and path tricks', () => {
  // Percent-encoded as they would appear in a URL.
  const TRICKS = [
    ['slash', 'sa%2Fles'],
    ['encoded parent', '..%2F..'],
    ['encoded parent then a group', '..%2Fhr'],
    ['group, encoded slash, parent, group', 'sales%2F..%2Fhr'],
    ['NUL', 'sales%00'],
    ['newline', 'sales%0A'],
    ['Kelvin sign (lowercases to k)', '%E2%84%AA'],
    ['Kelvin sign inside a name', 'wor%E2%84%AA'],
    ['fullwidth letters', '%EF%BD%93%EF%BD%81%EF%BD%8C%EF%BD%85%EF%BD%93'],
    ['dotless i (uppercases to I)', 'h%C4%B1'],
    ['51 characters', 'a'.repeat(51)],
    ['space', 'sales%20'],
    ['underscore', 'sales_eu'],
    ['backslash', 'sales%5Chr'],
    ['semicolon', 'sales;hr'],
    ['malformed percent escape', '%E0%A4%A'],
    ['empty', ''],
    ['encoded dots', '%2E%2E'],
  ] as const;

  const OPERATIONS = [
    { name: 'GET schema', method: 'GET', path: (g: string) => SCHEMA(g) },
    { name: 'PUT schema', method: 'PUT', path: (g: string) => SCHEMA(g), body: { metadataKeys: [{ name: 'status', propertyType: 'TEXT' }] } },
    { name: 'DELETE schema', method: 'DELETE', path: (g: string) => SCHEMA(g) },
    { name: 'PUT document', method: 'PUT', path: (g: string) => DOC('DOC-1001', g), body: { customMetadata: [{ name: 'status', value: 'x' }] } },
    { name: 'DELETE document', method: 'DELETE', path: (g: string) => DOC('DOC-1001', g) },
  ] as const;

  const CASES = TRICKS.flatMap(([what, group]) => OPERATIONS.map((op) => ({ what, group, op, title: `${op.name} on ${what}` })));

  it.each(CASES)('$title → 400 or 404 with the metadata body; nothing changes', async ({ group, op }) => {
    const before = snapshot(service);
    const a = await call(service, op.method, op.path(group), { token: TOKENS.global, body: 'body' in op ? op.body : undefined });
    expect([400, 404]).toContain(a.status);
    expectMetadataError(a, a.status);
    expect(snapshot(service)).toEqual(before);
  });

  it.each(OPERATIONS)('$name through a dot segment (sales/../hr) is judged against the group it resolves to', async (op) => {
    const before = snapshot(service);
    const a = await call(service, op.method, op.path('sales/../hr'), { token: TOKENS.sales, body: 'body' in op ? op.body : undefined });
    expectMetadataError(a, 401);
    expect(snapshot(service)).toEqual(before);
  });
});

describe('document ids', () => {
  it.each([
    ['accented letters', 'caf%C3%A9', 'café'],
    ['CJK', '%E6%96%87%E6%9B%B8-7', '文書-7'],
    ['emoji', 'doc-%F0%9F%93%84', 'doc-📄'],
    ['an encoded slash, kept opaque', 'folder%2Fdoc', 'folder/doc'],
    ['1024 characters', 'd'.repeat(1024), 'd'.repeat(1024)],
  ])('%s are allowed and stored under the decoded id only', async (_what, encoded, decoded) => {
    const before = snapshot(service);
    const a = await call(service, 'PUT', DOC(encoded, 'sales'), { token: TOKENS.sales, body: { customMetadata: [{ name: 'status', value: 'open' }] } });
    expect(a.status).toBe(200);
    expect(service.store.getDocValues(decoded, 'sales')).toEqual([{ name: 'status', value: 'open' }]);
    expect(snapshot(service)).toEqual(before);
  });

  it.each([
    ['encoded parent segments (refused before routing, not resolved)', '..%2F..'],
    ['NUL', 'doc%00'],
    ['newline', 'doc%0A1'],
    ['carriage return', 'doc%0D'],
    ['unit separator', '%1F'],
    ['DEL', 'doc%7F'],
    ['1025 characters', 'd'.repeat(1025)],
  ])('%s → 400 with the metadata body', async (_what, encoded) => {
    const before = snapshot(service);
    for (const method of ['PUT', 'DELETE'] as const) {
      const a = await call(service, method, DOC(encoded, 'sales'), {
        token: TOKENS.sales,
        body: method === 'PUT' ? { customMetadata: [{ name: 'status', value: 'open' }] } : undefined,
      });
      expectMetadataError(a, 400);
    }
    expect(snapshot(service)).toEqual(before);
  });
});

describe('schema validation', () => {
  const keys = (n: number, prefix = 'key') => Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, propertyType: 'TEXT' }));
  const put = (group: string, body: unknown) => call(service, 'PUT', SCHEMA(group), { token: TOKENS.global, body });

  it('20 keys are accepted', async () => {
    expect((await put('wide', { metadataKeys: keys(20) })).status).toBe(200);
    expect(service.store.getGroup('wide')?.schema.metadataKeys).toHaveLength(20);
  });

  it.each([
    ['more than 20 keys', { metadataKeys: keys(21) }],
    ['duplicate key names ignoring case', { metadataKeys: [{ name: 'Status', propertyType: 'TEXT' }, { name: 'sTATUS', propertyType: 'PICKLIST' }] }],
    ['an unknown propertyType', { metadataKeys: [{ name: 'status', propertyType: 'ENUM' }] }],
    ['a lowercase propertyType', { metadataKeys: [{ name: 'status', propertyType: 'text' }] }],
    ['a missing propertyType', { metadataKeys: [{ name: 'status' }] }],
    ['a key name over 50 characters', { metadataKeys: [{ name: 'k'.repeat(51), propertyType: 'TEXT' }] }],
    ['an empty key name', { metadataKeys: [{ name: '', propertyType: 'TEXT' }] }],
    ['a key name with an underscore', { metadataKeys: [{ name: 'due_date', propertyType: 'TEXT' }] }],
    ['a key name with a space', { metadataKeys: [{ name: 'due date', propertyType: 'TEXT' }] }],
    ['a key name with a Kelvin sign', { metadataKeys: [{ name: '\u212Aey', propertyType: 'TEXT' }] }],
    ['a key name that is a number', { metadataKeys: [{ name: 7, propertyType: 'TEXT' }] }],
    ['skipIndexing that is not a boolean', { metadataKeys: [{ name: 'status', propertyType: 'TEXT', skipIndexing: 'yes' }] }],
    ['metadataKeys that is not an array', { metadataKeys: { name: 'status', propertyType: 'TEXT' } }],
    ['no metadataKeys', {}],
    ['a key that is not an object', { metadataKeys: ['status'] }],
  ])('%s → 400; nothing is stored', async (_what, body) => {
    const a = await put('fresh', body);
    expectMetadataError(a, 400);
    expect(service.store.getGroup('fresh')).toBeUndefined();
  });

  it.each(['DATE', 'INT', 'USERID'])('propertyType %s → 400 "not supported"', async (type) => {
    const a = await put('fresh', { metadataKeys: [{ name: 'when', propertyType: type }] });
    expectMetadataError(a, 400);
    expect((a.json as { message: string }).message).toMatch(/not supported/);
  });

  it('a key name of exactly 50 characters is accepted', async () => {
    expect((await put('fresh', { metadataKeys: [{ name: 'k'.repeat(50), propertyType: 'TEXT' }] })).status).toBe(200);
  });

  it('a group name over 50 characters on PUT → 400', async () => {
    const a = await put('g'.repeat(51), { metadataKeys: [] });
    expectMetadataError(a, 400);
    expect(service.store.countGroups()).toBe(3);
  });

  it('changing the propertyType of a key documents carry values for → 409; the schema is kept', async () => {
    // DOC-1001 carries a value for sales.status (seed).
    const changed = DEMO_GROUPS.sales!.metadataKeys.map((k) => (k.name === 'status' ? { ...k, propertyType: 'TEXT' } : k));
    const a = await put('sales', { metadataKeys: changed });
    expectMetadataError(a, 409);
    expect((a.json as { message: string }).message).toContain('status');
    expect(service.store.getGroup('sales')?.schema).toEqual(DEMO_GROUPS.sales);
  });

  it('the 409 applies whatever the case of the key name in the new schema', async () => {
    const changed = DEMO_GROUPS.sales!.metadataKeys.map((k) => (k.name === 'tags' ? { name: 'TAGS', propertyType: 'TEXTLIST' } : k));
    expectMetadataError(await put('SALES', { metadataKeys: changed }), 409);
  });

  it('changing the propertyType of a key no document carries is allowed', async () => {
    // No seeded document carries sales.region.
    const changed = DEMO_GROUPS.sales!.metadataKeys.map((k) => (k.name === 'region' ? { ...k, propertyType: 'TEXT' } : k));
    expect((await put('sales', { metadataKeys: changed })).status).toBe(200);
    expect(service.store.getGroup('sales')?.schema.metadataKeys.find((k) => k.name === 'region')?.propertyType).toBe('TEXT');
  });

  it('once the values are removed, the type change is allowed', async () => {
    expect((await call(service, 'DELETE', DOC('DOC-1001', 'sales'), { token: TOKENS.global })).status).toBe(200);
    const changed = DEMO_GROUPS.sales!.metadataKeys.map((k) => (k.name === 'status' ? { ...k, propertyType: 'TEXT' } : k));
    expect((await put('sales', { metadataKeys: changed })).status).toBe(200);
  });

  it('DELETE schema of a group that has none → 404', async () => {
    expectMetadataError(await call(service, 'DELETE', SCHEMA('nosuchgroup'), { token: TOKENS.global }), 404);
  });

  it('GET schema of a group that has none → 404', async () => {
    expectMetadataError(await call(service, 'GET', SCHEMA('nosuchgroup'), { token: TOKENS.global }), 404);
  });

  it('at most 50 groups: the 51st → 400; replacing or freeing one still works', async () => {
    const schema = { metadataKeys: [{ name: 'a', propertyType: 'TEXT' }] };
    expect(service.store.countGroups()).toBe(3);
    for (let i = 0; i < 47; i++) expect((await put(`group${i}`, schema)).status).toBe(200);
    expect(service.store.countGroups()).toBe(50);
    const refused = await put('onetoomany', schema);
    expectMetadataError(refused, 400);
    expect(service.store.getGroup('onetoomany')).toBeUndefined();
    expect((await put('group0', { metadataKeys: [] })).status).toBe(200);
    expect((await call(service, 'DELETE', SCHEMA('group1'), { token: TOKENS.global })).status).toBe(200);
    expect((await put('onetoomany', schema)).status).toBe(200);
  });
});

describe('document values', () => {
  const put = (body: unknown, group = 'sales', docId = 'DOC-1001') => call(service, 'PUT', DOC(docId, group), { token: TOKENS.global, body });

  it.each([
    ['a boolean for PICKLIST', { name: 'status', value: true }],
    ['a boolean for TEXT', { name: 'dealNotes', value: false }],
    ['a number for TEXT', { name: 'dealNotes', value: 3 }],
    ['null for PICKLIST', { name: 'status', value: null }],
    ['an array for TEXT', { name: 'dealNotes', value: ['a', 'b'] }],
    ['an array for PICKLIST', { name: 'status', value: ['won'] }],
    ['a string for MULTIPICKLIST', { name: 'tags', value: 'emea' }],
    ['an array with a number for MULTIPICKLIST', { name: 'tags', value: ['emea', 1] }],
    ['an array with a boolean for MULTIPICKLIST', { name: 'tags', value: [true] }],
    ['an object for TEXT', { name: 'dealNotes', value: { text: 'x' } }],
    ['an unknown key', { name: 'colour', value: 'red' }],
    ['no value', { name: 'status' }],
    ['a key named __proto__', { name: '__proto__', value: 'x' }],
  ])('%s → 400; the document keeps its values', async (_what, item) => {
    const before = snapshot(service);
    expectMetadataError(await put({ customMetadata: [item] }), 400);
    expect(snapshot(service)).toEqual(before);
  });

  it('the same key twice → 400', async () => {
    expectMetadataError(await put({ customMetadata: [{ name: 'status', value: 'a' }, { name: 'STATUS', value: 'b' }] }), 400);
  });

  it('customMetadata that is not an array → 400', async () => {
    expectMetadataError(await put({ customMetadata: { status: 'won' } }), 400);
  });

  it('values of the right types are stored (control)', async () => {
    const a = await put({ customMetadata: [{ name: 'status', value: 'lost' }, { name: 'tags', value: [] }, { name: 'dealNotes', value: '' }] });
    expect(a.status).toBe(200);
    expect(service.store.getDocValues('DOC-1001', 'sales')).toEqual([
      { name: 'status', value: 'lost' },
      { name: 'tags', value: [] },
      { name: 'dealNotes', value: '' },
    ]);
  });

  it('PUT values on a group without a schema → 404, nothing stored', async () => {
    const a = await put({ customMetadata: [{ name: 'status', value: 'won' }] }, 'nosuchgroup', 'DOC-9');
    expectMetadataError(a, 404);
    expect(service.store.getDocValues('DOC-9', 'nosuchgroup')).toBeUndefined();
  });

  it('DELETE values on a group without a schema → 404', async () => {
    expectMetadataError(await call(service, 'DELETE', DOC('DOC-9', 'nosuchgroup'), { token: TOKENS.global }), 404);
  });
});

describe('agent runs: form input', () => {
  const legacyWait = (body: unknown) => call(service, 'POST', '/rest/api/v1/agents/runs/wait', { token: TOKENS.agents, body });
  const platformRun = (agent: string, body: unknown) => call(service, 'POST', `/api/agents/${agent}/runs`, { token: TOKENS.agents, body });
  const MISSING = ['audience', 'region', 'tone', 'maxPoints', 'includeLinks'];

  it('legacy runs/wait with only {topic} → 400 string naming each missing field', async () => {
    const text = expectLegacyError(await legacyWait({ agent_id: 'hr-policy-form', input: { topic: 'leave' } }), 400);
    for (const field of MISSING) expect(text).toContain(field);
    expect(text).not.toMatch(/\btopic\b.*missing|Missing.*\btopic\b/);
  });

  it('legacy runs/stream with only {topic} → 400 before any event', async () => {
    const a = await call(service, 'POST', '/rest/api/v1/agents/runs/stream', {
      token: TOKENS.agents,
      body: { agent_id: 'hr-policy-form', input: { topic: 'leave' } },
    });
    const text = expectLegacyError(a, 400);
    for (const field of MISSING) expect(text).toContain(field);
  });

  it('platform run with only {topic} → 400 missing_required_field with a pointer per field', async () => {
    const p = expectProblem(await platformRun('hr-policy-form', { input: { topic: 'leave' } }), 400, 'missing_required_field');
    expect(pointersOf(p).sort()).toEqual(MISSING.map((f) => `/input/${f}`).sort());
  });

  it('a form agent run without input → 400 pointing at /input', async () => {
    const p = expectProblem(await platformRun('hr-policy-form', { messages: HI }), 400, 'missing_required_field');
    expect(pointersOf(p)).toContain('/input');
    expectLegacyError(await legacyWait({ agent_id: 'hr-policy-form', messages: HI }), 400);
  });

  it('complete input with the optional fields as "" → 200 in both families', async () => {
    const platform = await platformRun('hr-policy-form', { input: FORM_COMPLETE });
    expect(platform.status).toBe(200);
    expect(platform.json).toMatchObject({ run: { status: 'success', input: FORM_COMPLETE } });
    const legacy = await legacyWait({ agent_id: 'hr-policy-form', input: FORM_COMPLETE });
    expect(legacy.status).toBe(200);
    expect(legacy.json).toMatchObject({ run: { status: 'success' } });
  });

  it('complete input with every field filled in → 200', async () => {
    const input = { topic: 'leave', audience: 'managers', region: 'apac', tone: 'formal', maxPoints: 3, includeLinks: true };
    expect((await platformRun('hr-policy-form', { input })).status).toBe(200);
  });

  it.each([
    ['maxPoints', 'abc'],
    ['maxPoints', 2.5],
    ['maxPoints', 11],
    ['region', 'mars'],
    ['region', ''],
    ['topic', ''],
    ['includeLinks', 'yes'],
    ['tone', 'angry'],
  ])('%s = %j → 400 in both families, pointing at the field', async (field, value) => {
    const input = { ...FORM_COMPLETE, [field]: value };
    const p = expectProblem(await platformRun('hr-policy-form', { input }), 400);
    expect(pointersOf(p)).toContain(`/input/${field}`);
    const text = expectLegacyError(await legacyWait({ agent_id: 'hr-policy-form', input }), 400);
    expect(text).toContain(field);
  });

  it('input that is not an object → 400', async () => {
    expectProblem(await platformRun('hr-policy-form', { input: 'leave' }), 400);
    expectProblem(await platformRun('echo-assistant', { input: [1], messages: HI }), 400);
    expectLegacyError(await legacyWait({ agent_id: 'hr-policy-form', input: null }), 400);
  });

  it('metadata that is not an object → 400 pointing at /metadata', async () => {
    const p = expectProblem(await platformRun('echo-assistant', { messages: HI, metadata: 'x' }), 400);
    expect(pointersOf(p)).toContain('/metadata');
  });
});

describe('agent runs: messages, ids and modes', () => {
  const platformRun = (agent: string, body: unknown) => call(service, 'POST', `/api/agents/${agent}/runs`, { token: TOKENS.agents, body });
  const legacyWait = (body: unknown) => call(service, 'POST', '/rest/api/v1/agents/runs/wait', { token: TOKENS.agents, body });

  it('platform run with neither messages nor input → 400', async () => {
    expectProblem(await platformRun('echo-assistant', {}), 400, 'missing_required_field');
    expectProblem(await platformRun('echo-assistant', { metadata: {} }), 400, 'missing_required_field');
  });

  it('platform run with an empty messages list → 400', async () => {
    const p = expectProblem(await platformRun('echo-assistant', { messages: [] }), 400);
    expect(pointersOf(p)).toContain('/messages');
  });

  it('a message with a bad role → 400 pointing at /messages/0/role', async () => {
    const p = expectProblem(await platformRun('echo-assistant', { messages: [{ role: 'ASSISTANT', content: [{ type: 'text', text: 'x' }] }] }), 400);
    expect(pointersOf(p)).toContain('/messages/0/role');
    expectLegacyError(await legacyWait({ agent_id: 'echo-assistant', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] }), 400);
  });

  it('a bad content block in the second message → 400 pointing into it', async () => {
    const messages = [...HI, { role: 'GLEAN_AI', content: [{ type: 'image', text: 'x' }] }];
    const p = expectProblem(await platformRun('echo-assistant', { messages }), 400);
    expect(pointersOf(p)).toContain('/messages/1/content/0/type');
  });

  it('legacy run without agent_id → 400', async () => {
    expectLegacyError(await legacyWait({ messages: HI }), 400);
    expectLegacyError(await legacyWait({ agent_id: 5, messages: HI }), 400);
  });

  it('an unknown agent → 404 in both families', async () => {
    expectProblem(await platformRun('no-such-agent', { messages: HI }), 404, 'resource_not_found');
    expectLegacyError(await legacyWait({ agent_id: 'no-such-agent', messages: HI }), 404);
    expectProblem(await call(service, 'GET', '/api/agents/no-such-agent', { token: TOKENS.agents }), 404, 'resource_not_found');
    expectProblem(await call(service, 'GET', '/api/agents/no-such-agent/schemas', { token: TOKENS.agents }), 404, 'resource_not_found');
    expectLegacyError(await call(service, 'GET', '/rest/api/v1/agents/no-such-agent', { token: TOKENS.agents }), 404);
    expectLegacyError(await call(service, 'GET', '/rest/api/v1/agents/no-such-agent/schemas', { token: TOKENS.agents }), 404);
  });

  it('execution_mode REQUEST_BOUND is accepted; another mode → 400', async () => {
    const ok = await platformRun('firehose', { input: { count: 1 }, execution_mode: 'REQUEST_BOUND' });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ run: { status: 'success' } });
    const p = expectProblem(await platformRun('echo-assistant', { messages: HI, execution_mode: 'BACKGROUND' }), 400);
    expect(pointersOf(p)).toContain('/execution_mode');
  });

  it('stream that is not a boolean → 400 pointing at /stream', async () => {
    const p = expectProblem(await platformRun('echo-assistant', { messages: HI, stream: 'yes' }), 400);
    expect(pointersOf(p)).toContain('/stream');
  });

  it('search with a non-string name → 400 in both families', async () => {
    expectLegacyError(await call(service, 'POST', '/rest/api/v1/agents/search', { token: TOKENS.agents, body: { name: 5 } }), 400);
    expectProblem(await call(service, 'POST', '/api/agents/search', { token: TOKENS.agents, body: { name: ['x'] } }), 400);
  });

  it('an endpoint that does not exist → 404 in the family of its path', async () => {
    expectMetadataError(await call(service, 'GET', '/rest/api/index/nothing', { token: TOKENS.global }), 404);
    expectLegacyError(await call(service, 'GET', '/rest/api/v1/nothing', { token: TOKENS.agents }), 404);
    expectProblem(await call(service, 'GET', '/api/nothing', { token: TOKENS.agents }), 404, 'resource_not_found');
  });
});
