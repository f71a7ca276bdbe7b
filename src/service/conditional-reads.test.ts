/**
 * Schema reads carry an ETag and answer 304 to If-None-Match (RFC 9110, 13.1.2), over real
 * HTTP, where the group schema is answered from a prepared answer ahead of the routes, and in
 * process, where the route answers: both must say the same.
 */
import { describe, expect, it } from 'vitest';
import { createService } from './app.ts';
import { listen } from './node.ts';
import { call, expectLegacyError, expectMetadataError, listeningService, rawCall, TOKENS, type Answer } from './test-http.ts';

const server = listeningService();
const SALES = '/rest/api/index/custom-metadata/schema/sales';

const get = (path: string, token: string = TOKENS.sales, ifNoneMatch?: string) =>
  rawCall(server.url, 'GET', path, { token, headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch } });

function expectNotModified(a: Answer, etag: string): void {
  expect(a.status).toBe(304);
  expect(a.text).toBe('');
  expect(a.headers.get('etag')).toBe(etag);
}

describe('group schema reads', () => {
  it('carry a strong ETag and answer 304, with no body, to If-None-Match naming it', async () => {
    const first = await get(SALES);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expectNotModified(await get(SALES, TOKENS.sales, etag), etag);
    // The weak comparison If-None-Match uses, a list, and "*".
    expectNotModified(await get(SALES, TOKENS.sales, `W/${etag}`), etag);
    expectNotModified(await get(SALES, TOKENS.sales, `"other", ${etag}`), etag);
    expectNotModified(await get(SALES, TOKENS.sales, '*'), etag);
    const other = await get(SALES, TOKENS.sales, '"something-else"');
    expect(other.status).toBe(200);
    expect(other.text).toBe(first.text);
  });

  it('a schema written since answers 200 with its new ETag; one deleted, 404', async () => {
    const before = await get('/rest/api/index/custom-metadata/schema/engineering', TOKENS.global);
    const old = before.headers.get('etag')!;
    const put = await rawCall(server.url, 'PUT', '/rest/api/index/custom-metadata/schema/Engineering', {
      token: TOKENS.global,
      body: { metadataKeys: [{ name: 'team', propertyType: 'PICKLIST' }] },
    });
    expect(put.status).toBe(200);
    const after = await get('/rest/api/index/custom-metadata/schema/engineering', TOKENS.global, old);
    expect(after.status).toBe(200);
    expect(after.json).toEqual({ metadataKeys: [{ name: 'team', propertyType: 'PICKLIST' }] });
    expect(after.headers.get('etag')).not.toBe(old);
    expectNotModified(await get('/rest/api/index/custom-metadata/schema/ENGINEERING', TOKENS.global, after.headers.get('etag')!), after.headers.get('etag')!);
    expect((await rawCall(server.url, 'DELETE', '/rest/api/index/custom-metadata/schema/engineering', { token: TOKENS.global })).status).toBe(200);
    expectMetadataError(await get('/rest/api/index/custom-metadata/schema/engineering', TOKENS.global, after.headers.get('etag')!), 404);
  });

  it('a 304 is never answered to a token that may not read the group', async () => {
    const etag = (await get(SALES)).headers.get('etag')!;
    expectMetadataError(await get(SALES, TOKENS.hr, etag), 401);
    expectMetadataError(await get(SALES, 'not-a-token', etag), 401);
    expectMetadataError(await rawCall(server.url, 'GET', SALES, { headers: { 'if-none-match': etag } }), 401);
  });

  it('over a socket (the prepared answer) and in process (the route) the answer is the same', async () => {
    const viaSocket = await get(SALES);
    const inProcess = await call(server.service, 'GET', SALES, { token: TOKENS.sales });
    expect(inProcess.status).toBe(200);
    expect(inProcess.text).toBe(viaSocket.text);
    for (const h of ['content-type', 'etag', 'x-content-type-options']) expect(inProcess.headers.get(h), h).toBe(viaSocket.headers.get(h));
    expect(viaSocket.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{16}$/);
    const revalidated = await call(server.service, 'GET', SALES, { token: TOKENS.sales, headers: { 'if-none-match': viaSocket.headers.get('etag')! } });
    expectNotModified(revalidated, viaSocket.headers.get('etag')!);
  });

  it('the prepared reads count against the token’s rate limit like every other request', async () => {
    const service = createService({ memory: true, rateLimitPerMinute: 3 });
    const { url, close } = await listen(service, 0);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await rawCall(url, 'GET', SALES, { token: TOKENS.sales })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      // The same count on the routes' side: a PUT of the same token is refused too.
      const put = await rawCall(url, 'PUT', SALES, { token: TOKENS.sales, body: { metadataKeys: [] } });
      expectMetadataError(put, 429);
      expect(put.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await close();
      service.close();
    }
  });
});

describe('agent schema reads', () => {
  it('on the client API: a strong ETag, and 304 to If-None-Match', async () => {
    const path = '/rest/api/v1/agents/hr-policy-form/schemas';
    const first = await rawCall(server.url, 'GET', path, { token: TOKENS.agents });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"/);
    expect(first.json).toMatchObject({ agent_id: 'hr-policy-form', input_schema: { type: 'object' } });
    expectNotModified(await rawCall(server.url, 'GET', path, { token: TOKENS.agents, headers: { 'if-none-match': etag } }), etag);
    expectLegacyError(await rawCall(server.url, 'GET', path, { token: 'not-a-token', headers: { 'if-none-match': etag } }), 401);
  });

  it('on the platform API: a weak ETag (each answer names its own request id), and 304', async () => {
    const path = '/api/agents/hr-policy-form/schemas';
    const a = await rawCall(server.url, 'GET', path, { token: TOKENS.agents });
    const b = await rawCall(server.url, 'GET', path, { token: TOKENS.agents });
    const etag = a.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    expect(b.headers.get('etag')).toBe(etag);
    expect((a.json as { request_id: string }).request_id).not.toBe((b.json as { request_id: string }).request_id);
    expect(a.json).toMatchObject({ agent_id: 'hr-policy-form', name: expect.any(String), output_schema: expect.any(Object) });
    expectNotModified(await rawCall(server.url, 'GET', path, { token: TOKENS.agents, headers: { 'if-none-match': etag } }), etag);
  });
});
