/**
 * `X-Sandbox-Client-Run-Id` and `GET /sandbox/durable-runs`: a durable run started with the
 * client's own id is found again by it, with the token that started it and no other, over real
 * HTTP, even when the 201 never reached the client; a bad id is refused before any run starts.
 */
import { describe, expect, it } from 'vitest';
import { SANDBOX_CLIENT_RUN_ID_HEADER, type SandboxDurableRunsAnswer } from '../../contract/sandbox-client-run.ts';
import { SANDBOX_FAULT_HEADER } from '../../contract/sandbox-fault.ts';
import { platformRunsPath } from '../../contract/run-paths.ts';
import { expectMetadataError, expectProblem, listeningService, rawCall, TOKENS } from '../test-http.ts';
import { USER_HI } from './test-support.ts';

const server = listeningService();
const BODY = { execution_mode: 'DURABLE', messages: USER_HI };
const find = (clientRunId: string, token: string | null = TOKENS.agents) =>
  rawCall(server.url, 'GET', `/sandbox/durable-runs?client_run_id=${encodeURIComponent(clientRunId)}`, token === null ? {} : { token });

describe('a durable run found by the client’s own id', () => {
  it('answers the run a token started with the id, and nothing to another token', async () => {
    const created = await rawCall(server.url, 'POST', platformRunsPath('long-runner'), { token: TOKENS.agents, body: BODY, headers: { [SANDBOX_CLIENT_RUN_ID_HEADER]: 'run_mine_1' } });
    expect(created.status).toBe(201);
    const runId = (created.json as { run: { run_id: string } }).run.run_id;
    const mine = await find('run_mine_1');
    expect(mine.status).toBe(200);
    expect((mine.json as SandboxDurableRunsAnswer).runs).toEqual([{ run_id: runId, agent_id: 'long-runner', state: expect.any(String), created_at: expect.any(String) }]);
    expect(((await find('run_mine_1', TOKENS.everything)).json as SandboxDurableRunsAnswer).runs).toEqual([]);
    expect(((await find('run_someone_else')).json as SandboxDurableRunsAnswer).runs).toEqual([]);
    await rawCall(server.url, 'POST', `${platformRunsPath('long-runner')}/cancellations`, { token: TOKENS.agents, body: { run_id: runId } });
  });

  it('finds a run whose 201 the client never read (the answer held back, the connection dropped)', async () => {
    const controller = new AbortController();
    const sent = fetch(`${server.url}${platformRunsPath('long-runner')}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.agents}`, 'content-type': 'application/json', [SANDBOX_CLIENT_RUN_ID_HEADER]: 'run_reloaded', [SANDBOX_FAULT_HEADER]: 'delay-first=5000' },
      body: JSON.stringify(BODY),
      signal: controller.signal,
    }).catch(() => undefined);
    // The run is made as the request arrives; only its answer waits.
    await expect.poll(async () => ((await find('run_reloaded')).json as SandboxDurableRunsAnswer).runs.length, { timeout: 5_000 }).toBe(1);
    controller.abort();
    await sent;
    const [run] = ((await find('run_reloaded')).json as SandboxDurableRunsAnswer).runs;
    await rawCall(server.url, 'POST', `${platformRunsPath('long-runner')}/cancellations`, { token: TOKENS.agents, body: { run_id: run!.run_id } });
  });

  it('refuses a bad id before starting anything, and a lookup without a token or an id', async () => {
    const before = ((await find('x'.repeat(10))).json as SandboxDurableRunsAnswer).runs.length;
    for (const bad of ['', 'x'.repeat(129), 'has space', 'slash/es']) {
      const refused = await rawCall(server.url, 'POST', platformRunsPath('long-runner'), { token: TOKENS.agents, body: BODY, headers: { [SANDBOX_CLIENT_RUN_ID_HEADER]: bad } });
      expect(expectProblem(refused, 400, 'invalid_request').detail).toMatch(/X-Sandbox-Client-Run-Id .*No run was started\./);
    }
    expect(((await find('x'.repeat(10))).json as SandboxDurableRunsAnswer).runs.length).toBe(before);
    expectMetadataError(await find('run_mine_1', null), 401);
    expectMetadataError(await find('run_mine_1', 'not-a-token'), 401);
    expectMetadataError(await rawCall(server.url, 'GET', '/sandbox/durable-runs', { token: TOKENS.agents }), 400);
    expectMetadataError(await find('bad id'), 400);
  });
});
