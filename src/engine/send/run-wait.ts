import type { RunWaitResponse } from '../../contract/agents';
import { apiRequest, type ApiResponse } from '../../lib/api-client';
import type { Connection } from '../../lib/connection';
import type { RunRequest } from '../run-request';

/** A wait-mode run: its one POST, answered when the run is over. Never retried. */
export function sendWaitRun(connection: Connection, request: RunRequest, signal: AbortSignal): Promise<ApiResponse<RunWaitResponse>> {
  return apiRequest<RunWaitResponse>(connection, request.path, { method: 'POST', body: request.body, signal, headers: request.headers });
}
