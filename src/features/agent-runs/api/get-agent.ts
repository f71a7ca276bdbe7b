import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Agent } from '../../../contract/agents';
import { apiRequest } from '../../../lib/api-client';
import type { Flavour } from '../model/run-request';
import { agentKeys, agentsBase, type AgentConnection } from './agent-keys';

/** `GET …/agents/{id}`: the platform API wraps the agent as `{ agent }`, the client API answers it bare. */
export function agentQueryOptions(connection: AgentConnection, flavour: Flavour, id: string) {
  return queryOptions({
    queryKey: agentKeys.detail(connection, flavour, id),
    queryFn: async ({ signal }) => {
      const { data } = await apiRequest<Agent | { agent: Agent }>(connection, `${agentsBase(flavour)}/${encodeURIComponent(id)}`, { signal });
      return 'agent' in data ? data.agent : data;
    },
    staleTime: 60_000,
    enabled: !connection.problem && id !== '',
  });
}

export function useAgent(connection: AgentConnection, flavour: Flavour, id: string) {
  return useQuery(agentQueryOptions(connection, flavour, id));
}
