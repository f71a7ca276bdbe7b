import { describe, expect, it } from 'vitest';
import clientRest from '../../contract/spec/client_rest.json';
import indexing from '../../contract/spec/indexing.json';
import platform from '../../contract/spec/platform.json';
import type { NamedSpec, SpecDoc } from '../../contract/openapi';
import { findMedia, findOperation, findResponse } from './operations';

const SPECS: NamedSpec[] = [
  { name: 'indexing', doc: indexing as unknown as SpecDoc },
  { name: 'client_rest', doc: clientRest as unknown as SpecDoc },
  { name: 'platform', doc: platform as unknown as SpecDoc },
];

function operation(method: string, url: string) {
  const lookup = findOperation(SPECS, method, url);
  if (!lookup.found) return lookup.reason;
  return `${lookup.found.spec.name} ${lookup.found.method} ${lookup.found.template} ${JSON.stringify(lookup.found.params)}`;
}

describe('finding the documented operation of a request', () => {
  it('matches each family under its base path, on this origin or an instance', () => {
    expect(operation('GET', '/rest/api/index/custom-metadata/schema/sales')).toBe('indexing GET /custom-metadata/schema/{groupName} {"groupName":"sales"}');
    expect(operation('put', 'https://acme-be.glean.com/rest/api/index/document/doc-1/custom-metadata/hr')).toBe(
      'indexing PUT /document/{docId}/custom-metadata/{groupName} {"docId":"doc-1","groupName":"hr"}',
    );
    expect(operation('POST', 'http://127.0.0.1:5173/rest/api/v1/agents/runs/wait')).toBe('client_rest POST /agents/runs/wait {}');
    expect(operation('GET', 'http://127.0.0.1:5173/rest/api/v1/agents/echo-assistant/schemas')).toBe('client_rest GET /agents/{agent_id}/schemas {"agent_id":"echo-assistant"}');
    expect(operation('POST', '/api/agents/hr-policy-form/runs')).toBe('platform POST /agents/{agent_id}/runs {"agent_id":"hr-policy-form"}');
  });

  it('does not read /rest/api/v1/… as the platform API, though /api/ occurs inside it', () => {
    expect(operation('GET', '/rest/api/v1/agents/echo-assistant')).toBe('client_rest GET /agents/{agent_id} {"agent_id":"echo-assistant"}');
    expect(operation('GET', '/api/agents/echo-assistant')).toBe('platform GET /agents/{agent_id} {"agent_id":"echo-assistant"}');
  });

  it('finds the base path under a prefix of the instance URL, and ignores query and fragment', () => {
    expect(operation('GET', '/upstream/127.0.0.1:4322/rest/api/index/custom-metadata/schema/onlyupstream')).toBe(
      'indexing GET /custom-metadata/schema/{groupName} {"groupName":"onlyupstream"}',
    );
    expect(operation('POST', '/upstream/acme-be.glean.com/api/agents/search')).toBe('platform POST /agents/search {}');
    expect(operation('GET', 'https://gateway.example/glean/rest/api/index/custom-metadata/schema/sales?x=1#top')).toBe(
      'indexing GET /custom-metadata/schema/{groupName} {"groupName":"sales"}',
    );
  });

  it('prefers a literal segment over a parameter, and keeps an encoded slash inside one segment', () => {
    expect(operation('POST', '/api/agents/search')).toBe('platform POST /agents/search {}');
    expect(operation('POST', '/rest/api/v1/agents/runs/stream')).toBe('client_rest POST /agents/runs/stream {}');
    expect(operation('DELETE', '/rest/api/index/document/https%3A%2F%2Fwiki%2Fpage/custom-metadata/sales')).toBe(
      'indexing DELETE /document/{docId}/custom-metadata/{groupName} {"docId":"https%3A%2F%2Fwiki%2Fpage","groupName":"sales"}',
    );
  });

  it('says why when the spec has no such operation', () => {
    expect(operation('POST', '/api/agents/echo-assistant')).toBe('platform.json documents /api/agents/{agent_id}, but not for POST.');
    expect(operation('GET', '/api/durable-runs/r1')).toBe('The public spec documents no operation at /api/durable-runs/r1.');
    expect(operation('GET', '/rest/api/index/custom-metadata/schema/')).toBe('The public spec documents no operation at /rest/api/index/custom-metadata/schema/.');
    expect(operation('GET', '/sandbox/info')).toBe('The public spec documents no operation at /sandbox/info.');
  });
});

describe('picking the documented response', () => {
  const doc: SpecDoc = {
    openapi: '3.0.0',
    'x-base-path': '/x',
    paths: {
      '/thing': {
        get: {
          responses: {
            '200': { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } },
            '4XX': { description: 'client error', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/P' } } } },
            default: { $ref: '#/components/responses/Other' },
          },
        },
      },
    },
    components: { schemas: { P: { type: 'object' } }, responses: { Other: { description: 'other', content: { 'application/json': { schema: { type: 'string' } } } } } },
  };
  const op = findOperation([{ name: 'x', doc }], 'GET', '/x/thing');
  if (!op.found) throw new Error(op.reason);

  it('uses the exact status, else its class, else default', () => {
    expect(findResponse(op.found, 200)?.statusKey).toBe('200');
    expect(findResponse(op.found, 404)?.statusKey).toBe('4XX');
    expect(findResponse(op.found, 503)?.statusKey).toBe('default');
    expect(findResponse(op.found, 503)?.response.description).toBe('other');
  });

  it('gives the schema of the answer’s media type, noting a JSON answer sent under another JSON type', () => {
    const notFound = findResponse(op.found, 404)!;
    expect(findMedia(op.found, notFound, 'application/problem+json; charset=utf-8', 'json')).toMatchObject({ mediaType: 'application/problem+json', mismatch: undefined });
    expect(findMedia(op.found, notFound, 'application/json', 'json')).toMatchObject({ mediaType: 'application/problem+json', mismatch: 'application/problem+json' });
    expect(findMedia(op.found, findResponse(op.found, 503)!, 'application/json', 'json')?.pointer).toBe('/components/responses/Other/content/application~1json/schema');
    expect(findMedia(op.found, findResponse(op.found, 200)!, 'application/json', 'json')?.pointer).toBe('/paths/~1thing/get/responses/200/content/application~1json/schema');
    expect(findMedia(op.found, findResponse(op.found, 200)!, 'text/event-stream', 'event-stream')).toBeUndefined();
  });
});
