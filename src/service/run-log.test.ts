import { afterEach, describe, expect, it } from 'vitest';
import { call, freshService, TOKENS } from './test-http.ts';
import type { Service } from './app.ts';

interface RunsAnswer {
  runs: { agentId: string; flavour: string; mode: string; outcome?: string; events?: number; requestId: string }[];
  posts: { path: string; status: number; requestId: string }[];
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
});
