import { describe, expect, it } from 'vitest';
import { runRequest } from './run-request';
import { secondRequest } from './run-pair';

const messages = [{ role: 'USER' as const, content: [{ type: 'text' as const, text: 'Hi' }] }];

describe('run on both', () => {
  it('the other API sends the same input to the other endpoint, in the same mode', () => {
    const legacy = runRequest('legacy', 'stream', { id: 'echo', name: 'Echo' }, { messages });
    const b = secondRequest(legacy, { kind: 'api' });
    expect(b).toMatchObject({ flavour: 'platform', mode: 'stream', path: '/api/agents/echo/runs', body: { messages, stream: true } });
  });

  it('the other mode is wait against stream (and stream against wait or durable), the same API and input', () => {
    const stream = runRequest('platform', 'stream', { id: 'echo' }, { messages });
    expect(secondRequest(stream, { kind: 'mode' })).toMatchObject({ mode: 'wait', body: { messages, stream: false } });
    const durable = runRequest('platform', 'durable', { id: 'echo' }, { messages });
    expect(secondRequest(durable, { kind: 'mode' })).toMatchObject({ mode: 'stream', body: { messages, stream: true } });
  });

  it('another profile sends the very same request; another agent the same input to that agent', () => {
    const a = runRequest('platform', 'wait', { id: 'echo' }, { input: { q: 1 } }, 5_000);
    expect(secondRequest(a, { kind: 'profile', profileId: 'prod' })).toBe(a);
    expect(secondRequest(a, { kind: 'agent', agentId: 'other' })).toMatchObject({ agentId: 'other', path: '/api/agents/other/runs', body: { input: { q: 1 } }, timeoutMs: 5_000 });
  });

  it('a wait B keeps the timeout the user set, though a stream A’s request does not carry it', () => {
    const a = runRequest('platform', 'stream', { id: 'echo' }, { messages }, 5_000);
    expect(a.timeoutMs).toBeUndefined();
    expect(secondRequest(a, { kind: 'mode' }, 5_000)).toMatchObject({ mode: 'wait', timeoutMs: 5_000 });
    // A durable A against the legacy API: B is a wait there, with the timeout.
    const durable = runRequest('platform', 'durable', { id: 'echo' }, { messages }, 7_000);
    expect(secondRequest(durable, { kind: 'api' }, 7_000)).toMatchObject({ flavour: 'legacy', mode: 'wait', timeoutMs: 7_000 });
  });
});
