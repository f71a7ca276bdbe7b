import { describe, expect, it } from 'vitest';
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
