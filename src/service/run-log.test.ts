import { afterEach, describe, expect, it } from 'vitest';
import { call, freshService, TOKENS } from './test-http.ts';
import type { Service } from './app.ts';

interface RunsAnswer {
  runs: { agentId: string; flavour: string; mode: string; outcome?: string; events?: number; requestId: string }[];
  posts: { path: string; status: number; requestId: string; messages?: unknown; messagesOmittedBytes?: number }[];
}

let service: Service;
afterEach(() => service?.close());

const hi = { messages: [{ role: 'USER', content: [{ type: 'text', text: 'hi' }] }] };

describe('the sandbox run log', () => {
  it('records every run POST that arrived, refused ones included, and the runs that started', async () => {
    service = freshService();
    await call(service, 'POST', '/api/agents/echo-assistant/runs', { token: TOKENS.agents, body: hi });
    await call(service, 'POST', '/api/agents/calendar-helper/runs', { token: TOKENS.agents, body: hi });
    await call(service, 'POST', '/rest/api/v1/agents/runs/wait', { token: TOKENS.global, body: { agent_id: 'echo-assistant', ...hi } });
    await call(service, 'POST', '/api/agents/search', { token: TOKENS.agents, body: {} });

    const log = (await call(service, 'GET', '/sandbox/runs', { headers: { host: '127.0.0.1' } })).json as RunsAnswer;
    expect(log.posts.map((p) => [p.path, p.status])).toEqual([
      ['/api/agents/echo-assistant/runs', 200],
      ['/api/agents/calendar-helper/runs', 422],
      ['/rest/api/v1/agents/runs/wait', 403],
    ]);
    expect(log.runs).toEqual([
      expect.objectContaining({ agentId: 'echo-assistant', flavour: 'platform', mode: 'wait', outcome: 'completed', requestId: log.posts[0]!.requestId }),
    ]);
  });

  it('keeps each run POST’s messages as they arrived, on both APIs and for durable runs, and only the size of messages too big to keep', async () => {
    service = freshService();
    const turn2 = [...hi.messages, { role: 'GLEAN_AI', content: [{ type: 'text', text: 'You ' }] }, { role: 'USER', content: [{ type: 'text', text: 'more' }] }];
    await call(service, 'POST', '/api/agents/echo-assistant/runs', { token: TOKENS.agents, body: { messages: turn2, stream: false } });
    await call(service, 'POST', '/rest/api/v1/agents/runs/wait', { token: TOKENS.agents, body: { agent_id: 'echo-assistant', ...hi } });
    await call(service, 'POST', '/api/agents/expense-filer/runs', { token: TOKENS.agents, body: { ...hi, execution_mode: 'DURABLE' } });
    const big = [{ role: 'USER', content: [{ type: 'text', text: 'x'.repeat(20_000) }] }];
    await call(service, 'POST', '/api/agents/echo-assistant/runs', { token: TOKENS.agents, body: { messages: big, stream: false } });
    await call(service, 'POST', '/api/agents/hr-policy-form/runs', { token: TOKENS.agents, body: { input: { topic: 'x' } } });

    const log = (await call(service, 'GET', '/sandbox/runs', { headers: { host: '127.0.0.1' } })).json as RunsAnswer;
    expect(log.posts.map((p) => [p.status, p.messages, p.messagesOmittedBytes])).toEqual([
      [200, turn2, undefined],
      [200, hi.messages, undefined],
      [201, hi.messages, undefined],
      [200, undefined, Buffer.byteLength(JSON.stringify(big))],
      [expect.any(Number), undefined, undefined],
    ]);
  });
});
