import { describe, expect, it } from 'vitest';
import { ApiError, type ResponseMeta } from '../../../lib/api-client';
import { explainActionError } from './durable-words';

const refusal = (status: number, retryAfter?: string) => {
  const meta: ResponseMeta = { method: 'POST', url: '/x', status, durationMs: 1, headers: retryAfter === undefined ? [] : [['Retry-After', retryAfter]], rawBody: '{}', receivedAt: 0 };
  return new ApiError('http', status, 'Service Unavailable', 'Busy.', {}, meta);
};

describe('explainActionError', () => {
  it('says how long the service asked to wait when a cancellation or read was refused for now and not waited out', () => {
    expect(explainActionError(refusal(503, '3600'), 'Cancelling')).toBe('Cancelling failed: 503 Service Unavailable: Busy. The service asks to wait 3,600 s (Retry-After).');
    expect(explainActionError(refusal(429, 'soon'), 'Reading the run')).toContain('The service\'s Retry-After, "soon", is not a wait');
    expect(explainActionError(refusal(503), 'Cancelling')).toBe('Cancelling failed: 503 Service Unavailable: Busy.');
  });
});
