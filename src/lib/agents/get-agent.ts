import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../api-client';
import type { RunFlavour as Flavour } from '../../contract/run-paths';
import { agentOf } from './agent-answer';
import { agentKeys, agentsBase, type AgentConnection } from './agent-keys';

/** `GET …/agents/{id}`: the platform API wraps the agent as `{ agent }`, the client API answers it bare. */
export function agentQueryOptions(connection: AgentConnection, flavour: Flavour, id: string) {
  return queryOptions({
    queryKey: agentKeys.detail(connection, flavour, id),
    queryFn: async ({ signal }) => {
      const { data } = await apiRequest<unknown>(connection, `${agentsBase(flavour)}/${encodeURIComponent(id)}`, { signal });
      const agent = agentOf(data && typeof data === 'object' && 'agent' in data ? data.agent : data);
      if (!agent) throw new Error('The instance answered something that is not an agent: it has no agent_id.');
      return agent;
    },
    staleTime: 60_000,
    enabled: !connection.problem && id !== '',
  });
}

export function useAgent(connection: AgentConnection, flavour: Flavour, id: string) {
  return useQuery(agentQueryOptions(connection, flavour, id));
}
