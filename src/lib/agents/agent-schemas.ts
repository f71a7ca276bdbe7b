import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AgentSchemas } from '../../contract/agents';
import { apiRequest, type ApiResponse } from '../api-client';
import type { RunFlavour as Flavour } from '../../contract/run-paths';
import { agentKeys, agentsBase, type AgentConnection } from './agent-keys';

/**
 * `GET …/agents/{id}/schemas`: the input schema the run form is built from, the output schema a
 * suite's assertion checks against. On the platform API it asks for the agent's tools too
 * (`include_tools=true`), so one read gives the form and the tools; the client API's read has no
 * such parameter.
 */
export async function fetchAgentSchemas(connection: Pick<AgentConnection, 'baseUrl' | 'token' | 'problem'>, flavour: Flavour, id: string, signal?: AbortSignal): Promise<AgentSchemas> {
  return (await apiRequest<AgentSchemas>(connection, schemasPath(flavour, id), { signal })).data;
}

const schemasPath = (flavour: Flavour, id: string) => `${agentsBase(flavour)}/${encodeURIComponent(id)}/schemas${flavour === 'platform' ? '?include_tools=true' : ''}`;

export function agentSchemasQueryOptions(connection: AgentConnection, flavour: Flavour, id: string) {
  return queryOptions({
    queryKey: agentKeys.schemas(connection, flavour, id),
    // The whole answer is cached, so its ETag revalidates it (a 304 costs no body); views read its data.
    queryFn: ({ signal, client, queryKey }) =>
      apiRequest<AgentSchemas>(connection, schemasPath(flavour, id), { signal, held: client.getQueryData<ApiResponse<AgentSchemas>>(queryKey) }),
    select: (answer: ApiResponse<AgentSchemas>) => answer.data,
    staleTime: 60_000,
    enabled: !connection.problem && id !== '',
  });
}

export function useAgentSchemas(connection: AgentConnection, flavour: Flavour, id: string) {
  return useQuery(agentSchemasQueryOptions(connection, flavour, id));
}

/** The agent's tools, from the platform API's schema read, whichever API its runs go to: the same query as the form's on the platform API. */
export function useAgentTools(connection: AgentConnection, id: string) {
  return useQuery(agentSchemasQueryOptions(connection, 'platform', id));
}
