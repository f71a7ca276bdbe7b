import { expect, it } from 'vitest';
import { counterpart, runRequest } from './run-request';

const parts = { input: { topic: 'leave' } };

it('a durable run is a platform POST with execution_mode DURABLE and no stream field', () => {
  const r = runRequest('platform', 'durable', { id: 'hr-policy-form', name: 'HR' }, parts);
  expect(r).toEqual({ agentId: 'hr-policy-form', agentName: 'HR', flavour: 'platform', mode: 'durable', path: '/api/agents/hr-policy-form/runs', body: { input: { topic: 'leave' }, execution_mode: 'DURABLE' } });
});

it('the legacy API has no durable runs: its counterpart is a wait', () => {
  const legacy = counterpart(runRequest('platform', 'durable', { id: 'a' }, parts));
  expect(legacy).toMatchObject({ flavour: 'legacy', mode: 'wait', path: '/rest/api/v1/agents/runs/wait', body: { agent_id: 'a', input: { topic: 'leave' } } });
  expect(runRequest('legacy', 'durable', { id: 'a' }, parts).mode).toBe('wait');
});

it('stream and wait on the platform API say so in the body', () => {
  expect(runRequest('platform', 'stream', { id: 'a' }, parts).body).toEqual({ input: { topic: 'leave' }, stream: true });
  expect(runRequest('platform', 'wait', { id: 'a' }, parts, 5000)).toMatchObject({ body: { input: { topic: 'leave' }, stream: false }, timeoutMs: 5000 });
});
