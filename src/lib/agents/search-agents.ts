import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../api-client';
import type { RunFlavour as Flavour } from '../../contract/run-paths';
import { agentKeys, agentsBase, type AgentConnection } from './agent-keys';
import { agentsOf } from './agent-answer';

/** `POST …/agents/search { name? }` on either API; both answer `{ agents }`. */
export function searchAgentsQueryOptions(connection: AgentConnection, flavour: Flavour, name: string) {
  return queryOptions({
    queryKey: agentKeys.search(connection, flavour, name),
    queryFn: async ({ signal }) => {
      const { data } = await apiRequest<unknown>(connection, `${agentsBase(flavour)}/search`, { method: 'POST', body: name ? { name } : {}, signal });
      return agentsOf(data && typeof data === 'object' && !Array.isArray(data) ? (data as { agents?: unknown }).agents : data);
    },
    staleTime: 60_000,
    enabled: !connection.problem,
  });
}

/**
 * While the search for a new name answers, the last answer stays as placeholder data, but only
 * one for the same connection and flavour: another profile's agents never stand in.
 */
export function useSearchAgents(connection: AgentConnection, flavour: Flavour, name: string, enabled = true) {
  const options = searchAgentsQueryOptions(connection, flavour, name);
  const scope = JSON.stringify(options.queryKey.slice(0, -1));
  return useQuery({
    ...options,
    enabled: enabled && options.enabled,
    placeholderData: (previous, previousQuery) =>
      previousQuery && JSON.stringify(previousQuery.queryKey.slice(0, -1)) === scope ? previous : undefined,
  });
}
