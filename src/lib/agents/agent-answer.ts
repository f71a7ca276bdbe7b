import type { Agent } from '../../contract/agents';

/**
 * One agent of an instance's answer as the page can show it, or undefined when it has no id to
 * open it by. An instance's answer is not trusted: a missing name is left empty (the id stands
 * for it) and missing capabilities are none; the page read them unchecked and fell over.
 */
export function agentOf(answer: unknown): Agent | undefined {
  if (!answer || typeof answer !== 'object') return undefined;
  const { agent_id: id, name, description, capabilities } = answer as Record<string, unknown>;
  if (typeof id !== 'string' || !id) return undefined;
  return {
    agent_id: id,
    name: typeof name === 'string' ? name : '',
    ...(typeof description === 'string' && { description }),
    capabilities: capabilities && typeof capabilities === 'object' && !Array.isArray(capabilities) ? (capabilities as Agent['capabilities']) : {},
  };
}

/**
 * The agents of a search answer: entries without an id are left out, and an id answered twice
 * is one agent (two options of one key left the picker's arrows stuck on the first).
 */
export function agentsOf(answer: unknown): Agent[] {
  if (answer === undefined) return [];
  if (!Array.isArray(answer)) throw new Error('The instance answered agents that are not a list.');
  const seen = new Set<string>();
  const agents: Agent[] = [];
  for (const entry of answer as unknown[]) {
    const agent = agentOf(entry);
    if (!agent || seen.has(agent.agent_id)) continue;
    seen.add(agent.agent_id);
    agents.push(agent);
  }
  return agents;
}
