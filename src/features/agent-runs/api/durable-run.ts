import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Decision, DurableRunAnswer } from '../../../contract/durable-runs';
import { platformCancellationsPath, platformResponsesPath, platformRunPath } from '../../../contract/run-paths';
import { apiRequest, type ApiResponse } from '../../../lib/api-client';
import type { Connection } from '../../../lib/connection';
import { follow, nextPollMs, type FollowedRun } from '../model/durable-follow';
import type { RunRequest } from '../model/run-request';
import { agentKeys, type AgentConnection } from './agent-keys';

/** `POST /api/agents/{id}/runs` with `execution_mode: "DURABLE"`: 201 at once. Sent once, never retried: a second POST is a second run. */
export function createDurableRun(connection: Connection, request: RunRequest, signal: AbortSignal): Promise<ApiResponse<DurableRunAnswer>> {
  return apiRequest<DurableRunAnswer>(connection, request.path, { method: 'POST', body: request.body, signal });
}

/**
 * `GET /api/agents/{id}/runs/{run_id}`, read again while the run is active (backing off),
 * not while the tab is hidden (react-query pauses intervals then), never once it has ended.
 * Reading is the one safe way to follow a run: it never POSTs.
 */
export function durableRunQueryOptions(connection: AgentConnection, agentId: string, runId: string, previous: () => FollowedRun | undefined) {
  return queryOptions({
    queryKey: agentKeys.durableRun(connection, agentId, runId),
    queryFn: async ({ signal }): Promise<FollowedRun> => {
      const { data, ...meta } = await apiRequest<DurableRunAnswer>(connection, platformRunPath(agentId, runId), { signal });
      return follow(previous(), data.run, data.request_id, Date.now(), meta);
    },
    enabled: !connection.problem && agentId !== '' && runId !== '',
    refetchInterval: (query) => nextPollMs(query.state.data?.run, query.state.dataUpdateCount),
    refetchOnWindowFocus: true,
    // A 404 or 403 is the answer; asking again changes nothing.
    retry: false,
  });
}

export function useDurableRun(connection: AgentConnection, agentId: string, runId: string) {
  const queryClient = useQueryClient();
  const key = agentKeys.durableRun(connection, agentId, runId);
  return useQuery(durableRunQueryOptions(connection, agentId, runId, () => queryClient.getQueryData<FollowedRun>(key)));
}

/** An answer of cancel or respond is the run's new snapshot: it joins what was followed. */
function useSnapshotMutation<V>(connection: AgentConnection, agentId: string, runId: string, send: (v: V) => Promise<ApiResponse<DurableRunAnswer>>) {
  const queryClient = useQueryClient();
  const key = agentKeys.durableRun(connection, agentId, runId);
  return useMutation({
    mutationFn: send,
    // Exactly one POST per click: a retried decision or cancellation could act twice.
    retry: false,
    onSuccess: ({ data, ...meta }) => queryClient.setQueryData<FollowedRun>(key, (prev) => follow(prev, data.run, data.request_id, Date.now(), meta)),
    // Whatever happened, read the run again: a 409 means it moved on.
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
}

/** `POST /api/agents/{id}/cancellations { run_id }`: asks the service to stop the run (cooperative). */
export function useCancelDurableRun(connection: AgentConnection & Connection, agentId: string, runId: string) {
  return useSnapshotMutation<void>(connection, agentId, runId, () =>
    apiRequest<DurableRunAnswer>(connection, platformCancellationsPath(agentId), { method: 'POST', body: { run_id: runId } }),
  );
}

/** `POST /api/agents/{id}/responses`: one decision per pending tool approval, in one batch. */
export function useRespondToDurableRun(connection: AgentConnection & Connection, agentId: string, runId: string) {
  return useSnapshotMutation<Record<string, Decision>>(connection, agentId, runId, (decisions) =>
    apiRequest<DurableRunAnswer>(connection, platformResponsesPath(agentId), {
      method: 'POST',
      body: { run_id: runId, responses: Object.entries(decisions).map(([interaction_id, decision]) => ({ interaction_id, decision })) },
    }),
  );
}
