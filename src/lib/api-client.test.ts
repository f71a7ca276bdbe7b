import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { describeErrorBody } from './api-client';
import { fingerprintOf, maskToken } from './connection';

describe('error bodies of the three families', () => {
  it('reads the custom-metadata {error, message}', () => {
    expect(describeErrorBody(401, 'Unauthorized', { error: 'unauthorized', message: 'needs custommetadata:hr' })).toEqual({
      title: 'unauthorized',
      detail: 'needs custommetadata:hr',
    });
  });

  it('reads the client API plain string', () => {
    expect(describeErrorBody(404, 'Not Found', 'Unknown agent: x')).toEqual({ title: 'Not Found', detail: 'Unknown agent: x' });
  });

  it('reads the client API 422 object by its message', () => {
    expect(describeErrorBody(422, '', { message: 'authorize tools', authenticationSuggestions: [] }).detail).toBe('authorize tools');
  });

  it('reads platform problem details with code and request id', () => {
    const d = describeErrorBody(429, 'Too Many Requests', {
      type: 'https://developers.glean.com/errors/rate-limit-exceeded',
      title: 'Rate Limit Exceeded',
      status: 429,
      detail: 'Slow down.',
      code: 'rate_limit_exceeded',
      request_id: 'req_1',
    });
    expect(d).toEqual({ title: 'Rate Limit Exceeded', detail: 'Slow down.', code: 'rate_limit_exceeded', requestId: 'req_1' });
  });

  it('falls back to the status line for a body it cannot read', () => {
    expect(describeErrorBody(502, 'Bad Gateway', '')).toEqual({ title: 'Bad Gateway', detail: 'The answer had no body.' });
    expect(describeErrorBody(500, '', { unexpected: true }).title).toBe('HTTP 500');
  });
});

describe('token fingerprints and masks', () => {
  it('gives different tokens different fingerprints that do not contain the token', () => {
    const a = fingerprintOf('sandbox-sales-8b1e6d0c93a2f457');
    const b = fingerprintOf('sandbox-hr-52d7a9f10c6e3b84');
    expect(a).not.toBe(b);
    expect(a).toBe(fingerprintOf('sandbox-sales-8b1e6d0c93a2f457'));
    expect(a).not.toContain('sandbox');
    expect(fingerprintOf(undefined)).toBe('none');
  });

  it('masks tokens on screen, entirely in screen-share mode', () => {
    expect(maskToken('sandbox-sales-8b1e6d0c93a2f457', false)).toBe('sandbo…••••');
    expect(maskToken('sandbox-sales-8b1e6d0c93a2f457', true)).toBe('••••••••');
  });

  it('tells public demo tokens apart by their label, never showing more of any other token', () => {
    const known = [
      { token: 'sandbox-sales-8b1e6d0c93a2f457', label: 'Demo: group sales' },
      { token: 'sandbox-hr-52d7a9f10c6e3b84', label: 'Demo: group hr' },
    ];
    expect(maskToken('sandbox-sales-8b1e6d0c93a2f457', false, known)).toBe('sandbo…•••• (Demo: group sales)');
    expect(maskToken('sandbox-hr-52d7a9f10c6e3b84', false, known)).toBe('sandbo…•••• (Demo: group hr)');
    // A token that merely starts like one is not that one.
    expect(maskToken('sandbox-sales-8b1e6d0c93a2f458', false, known)).toBe('sandbo…••••');
    expect(maskToken('sandbox-sales-8b1e6d0c93a2f457', true, known)).toBe('••••••••');
  });
});

describe('a connection that is not set up', () => {
  it('sends nothing and says why', async () => {
    const { apiRequest, ApiError } = await import('./api-client');
    const attempt = apiRequest({ baseUrl: '', token: 'secret', problem: 'Enter the instance URL.' }, '/rest/api/index/custom-metadata/schema/sales');
    await expect(attempt).rejects.toBeInstanceOf(ApiError);
    await expect(attempt).rejects.toMatchObject({ kind: 'network', title: 'Connection not set up', detail: 'Enter the instance URL.' });
  });
});

describe('an instance answering more than the console reads', () => {
  // A real server: one answer of 40 MB of JSON, one that trickles bytes and never ends.
  let server: Server;
  const origin = new Promise<string>((resolve) => {
    server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url === '/huge') {
        res.end(JSON.stringify({ agents: [], pad: 'x'.repeat(40 * 1024 * 1024) }));
        return;
      }
      res.write('{"agents": [');
      const t = setInterval(() => res.write(`${JSON.stringify({ agent_id: 'a', name: 'x'.repeat(1024 * 1024) })},`), 1);
      res.on('close', () => clearInterval(t));
    }).listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it.each(['/huge', '/endless'])('%s: stops reading at the limit and says so, with the answer’s status and headers', async (path) => {
    const { apiRequest, MAX_ANSWER_BYTES } = await import('./api-client');
    const attempt = apiRequest({ baseUrl: await origin, token: '' }, path);
    await expect(attempt).rejects.toMatchObject({
      kind: 'http',
      status: 200,
      title: 'Answer too large',
      detail: `The instance's answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MB; the console stopped reading it there.`,
      meta: { status: 200 },
    });
  });

  it('an answer under the limit is read whole, multi-byte characters across chunks included', async () => {
    const { apiRequest } = await import('./api-client');
    const name = 'é€😀'.repeat(200_000);
    const local = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name })));
    const at = await new Promise<string>((r) => local.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(local.address() as AddressInfo).port}`)));
    try {
      expect((await apiRequest<{ name: string }>({ baseUrl: at, token: '' }, '/')).data.name).toBe(name);
    } finally {
      await new Promise<void>((r) => local.close(() => r()));
    }
  });
});
