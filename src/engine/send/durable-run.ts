import type { DurableRunAnswer } from '../../contract/durable-runs';
import { apiRequest, type ApiResponse } from '../../lib/api-client';
import type { Connection } from '../../lib/connection';
import type { RunRequest } from '../run-request';

/** `POST /api/agents/{id}/runs` with `execution_mode: "DURABLE"`: 201 at once. Sent once, never retried: a second POST is a second run. */
export function createDurableRun(connection: Connection, request: RunRequest, signal: AbortSignal): Promise<ApiResponse<DurableRunAnswer>> {
  return apiRequest<DurableRunAnswer>(connection, request.path, { method: 'POST', body: request.body, signal, headers: request.headers });
}
