import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Agent, AgentSchemas } from '../../../contract/agents';
import { apiRequest } from '../../../lib/api-client';
import type { ActiveConnection } from '../../../lib/connection';
import type { Flavour } from '../run-session';

type KeyedConnection = Pick<ActiveConnection, 'baseUrl' | 'fingerprint' | 'token'>;

export const agentKeys = {
  all: ['agents'] as const,
  search: (c: KeyedConnection, flavour: Flavour, name: string) => [...agentKeys.all, 'search', c.baseUrl, c.fingerprint, flavour, name] as const,
  schemas: (c: KeyedConnection, flavour: Flavour, id: string) => [...agentKeys.all, 'schemas', c.baseUrl, c.fingerprint, flavour, id] as const,
};

const base = (flavour: Flavour) => (flavour === 'legacy' ? '/rest/api/v1' : '/api');

export function searchAgentsQueryOptions(connection: KeyedConnection, flavour: Flavour, name: string) {
  return queryOptions({
    queryKey: agentKeys.search(connection, flavour, name),
    queryFn: async ({ signal }) =>
      (await apiRequest<{ agents: Agent[] }>(connection, `${base(flavour)}/agents/search`, { method: 'POST', body: name ? { name } : {}, signal })).data.agents ?? [],
    staleTime: 60_000,
  });
}

export function useSearchAgents(connection: KeyedConnection, flavour: Flavour, name: string) {
  return useQuery(searchAgentsQueryOptions(connection, flavour, name));
}

export function agentSchemasQueryOptions(connection: KeyedConnection, flavour: Flavour, id: string) {
  return queryOptions({
    queryKey: agentKeys.schemas(connection, flavour, id),
    queryFn: async ({ signal }) =>
      (await apiRequest<AgentSchemas>(connection, `${base(flavour)}/agents/${encodeURIComponent(id)}/schemas`, { signal })).data,
    staleTime: 60_000,
  });
}

export function useAgentSchemas(connection: KeyedConnection, flavour: Flavour, id: string) {
  return useQuery({ ...agentSchemasQueryOptions(connection, flavour, id), enabled: id !== '' });
}
