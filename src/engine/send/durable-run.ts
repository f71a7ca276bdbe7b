import type { DurableRunAnswer } from '../../contract/durable-runs';
import { CLIENT_RUN_ID_PARAM, SANDBOX_CLIENT_RUN_ID_HEADER, SANDBOX_DURABLE_RUNS_PATH, type SandboxDurableRunsAnswer } from '../../contract/sandbox-client-run';
import { apiRequest, type ApiResponse } from '../../lib/api-client';
import type { Connection } from '../../lib/connection';
import type { RunRequest } from '../run-request';

/**
 * `POST /api/agents/{id}/runs` with `execution_mode: "DURABLE"`: 201 at once. Sent once, never retried: a second POST is a second run.
 * `clientRunId` (the bundled reference service only) goes as X-Sandbox-Client-Run-Id, so the run can be found again if its 201 never arrives.
 */
export function createDurableRun(connection: Connection, request: RunRequest, signal: AbortSignal, clientRunId?: string): Promise<ApiResponse<DurableRunAnswer>> {
  const headers = clientRunId === undefined ? request.headers : { ...request.headers, [SANDBOX_CLIENT_RUN_ID_HEADER]: clientRunId };
  return apiRequest<DurableRunAnswer>(connection, request.path, { method: 'POST', body: request.body, signal, headers });
}

/**
 * The durable run of `agentId` the connection's token started with `clientRunId`, as the bundled
 * reference service tells it (`GET /sandbox/durable-runs`): its id, or 'none' when it started
 * none. Throws when it cannot tell (no answer, a refusal).
 */
export async function findDurableRunByClientId(connection: Connection, agentId: string, clientRunId: string): Promise<{ runId: string } | 'none'> {
  const answer = await apiRequest<SandboxDurableRunsAnswer>(connection, `${SANDBOX_DURABLE_RUNS_PATH}?${CLIENT_RUN_ID_PARAM}=${encodeURIComponent(clientRunId)}`);
  const run = (answer.data?.runs ?? []).find((r) => r.agent_id === agentId && typeof r.run_id === 'string' && r.run_id !== '');
  return run ? { runId: run.run_id } : 'none';
}
