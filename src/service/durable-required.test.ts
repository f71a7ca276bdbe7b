import { afterAll, describe, expect, it } from 'vitest';
import { bearer, call, expectLegacyError, expectProblem, freshService, TOKENS } from './test-http.ts';

const messages = [{ role: 'USER', content: [{ type: 'text', text: 'File my receipts' }] }];
const auth = { authorization: bearer(TOKENS.agents) };


describe('an agent that pauses for tool approvals runs only durable', () => {
  const service = freshService({ memory: true, rateLimitPerMinute: 0, durableTimeoutMs: 60_000 });
  afterAll(() => service.close());

  it('refuses its stream and wait runs on the current API with 409 durable_run_required, naming execution_mode', async () => {
    for (const stream of [true, false]) {
      const a = await call(service, 'POST', '/api/agents/expense-filer/runs', { ...auth, body: { messages, stream } });
      const p = expectProblem(a, 409, 'durable_run_required');
      expect(p.detail).toMatch(/"execution_mode": "DURABLE"/);
      expect(p.errors).toEqual([{ pointer: '/execution_mode', detail: 'Must be DURABLE for this agent.' }]);
    }
  });

  it('refuses its runs on the legacy API with 409 and a text that says what works', async () => {
    for (const mode of ['stream', 'wait']) {
      const a = await call(service, 'POST', `/rest/api/v1/agents/runs/${mode}`, { ...auth, body: { agent_id: 'expense-filer', messages } });
      expect(expectLegacyError(a, 409)).toMatch(/execution_mode": "DURABLE"/);
    }
  });

  it('starts it as a durable run, and still streams an agent without approvals', async () => {
    const durable = await call(service, 'POST', '/api/agents/expense-filer/runs', { ...auth, body: { messages, execution_mode: 'DURABLE' } });
    expect(durable.status).toBe(201);
    const echo = await call(service, 'POST', '/api/agents/echo-assistant/runs', { ...auth, body: { messages, stream: false } });
    expect(echo.status).toBe(200);
  });
});
