import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AgentSchemas } from '../../../contract/agents';
import { apiRequest } from '../../../lib/api-client';
import type { Flavour } from '../model/run-request';
import { agentKeys, agentsBase, type AgentConnection } from './agent-keys';

/** `GET …/agents/{id}/schemas`: the input schema the run form is built from, the output schema a suite's assertion checks against. */
export async function fetchAgentSchemas(connection: Pick<AgentConnection, 'baseUrl' | 'token' | 'problem'>, flavour: Flavour, id: string, signal?: AbortSignal): Promise<AgentSchemas> {
  return (await apiRequest<AgentSchemas>(connection, `${agentsBase(flavour)}/${encodeURIComponent(id)}/schemas`, { signal })).data;
}

export function agentSchemasQueryOptions(connection: AgentConnection, flavour: Flavour, id: string) {
  return queryOptions({
    queryKey: agentKeys.schemas(connection, flavour, id),
    queryFn: ({ signal }) => fetchAgentSchemas(connection, flavour, id, signal),
    staleTime: 60_000,
    enabled: !connection.problem && id !== '',
  });
}

export function useAgentSchemas(connection: AgentConnection, flavour: Flavour, id: string) {
  return useQuery(agentSchemasQueryOptions(connection, flavour, id));
}
