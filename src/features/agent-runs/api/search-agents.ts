import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Agent } from '../../../contract/agents';
import { apiRequest } from '../../../lib/api-client';
import type { Flavour } from '../model/run-request';
import { agentKeys, agentsBase, type AgentConnection } from './agent-keys';

/**
 * The agents of a search answer as the picker can show them. An instance's answer is not
 * trusted: an entry without a string id cannot be opened and is left out, a missing name or
 * capabilities are filled in (the page read them unchecked and fell over), and an id answered
 * twice is one agent (two options of one key left the arrows stuck on the first).
 */
export function agentsOf(answer: unknown): Agent[] {
  if (answer === undefined) return [];
  if (!Array.isArray(answer)) throw new Error('The instance answered agents that are not a list.');
  const seen = new Set<string>();
  const agents: Agent[] = [];
  for (const a of answer as unknown[]) {
    if (!a || typeof a !== 'object') continue;
    const { agent_id: id, name, description, capabilities } = a as Record<string, unknown>;
    if (typeof id !== 'string' || !id || seen.has(id)) continue;
    seen.add(id);
    agents.push({
      agent_id: id,
      name: typeof name === 'string' && name ? name : id,
      ...(typeof description === 'string' && { description }),
      capabilities: capabilities && typeof capabilities === 'object' && !Array.isArray(capabilities) ? (capabilities as Agent['capabilities']) : {},
    });
  }
  return agents;
}

/** `POST …/agents/search { name? }` on either API; both answer `{ agents }`. */
export function searchAgentsQueryOptions(connection: AgentConnection, flavour: Flavour, name: string) {
  return queryOptions({
    queryKey: agentKeys.search(connection, flavour, name),
    queryFn: async ({ signal }) =>
      agentsOf((await apiRequest<{ agents?: unknown }>(connection, `${agentsBase(flavour)}/search`, { method: 'POST', body: name ? { name } : {}, signal })).data.agents),
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
