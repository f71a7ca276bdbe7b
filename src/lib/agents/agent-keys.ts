import { connectionKey, type ActiveConnection, type ConnectionIdentity } from '../connection';
import type { RunFlavour as Flavour } from '../../contract/run-paths';

/** Query keys of the agent endpoints, under the connection's identity: never shared between profiles or tokens. */
export const agentKeys = {
  all: (c: ConnectionIdentity) => [...connectionKey(c), 'agents'] as const,
  search: (c: ConnectionIdentity, flavour: Flavour, name: string) => [...agentKeys.all(c), flavour, 'search', name] as const,
  detail: (c: ConnectionIdentity, flavour: Flavour, id: string) => [...agentKeys.all(c), flavour, 'detail', id] as const,
  schemas: (c: ConnectionIdentity, flavour: Flavour, id: string) => [...agentKeys.all(c), flavour, 'schemas', id] as const,
  /** A tool server's authorization status: per token, so under the connection's identity like the rest. */
  toolServerAuth: (c: ConnectionIdentity, serverId: string) => [...agentKeys.all(c), 'tool-servers', serverId, 'auth'] as const,
};

/** Where each API keeps its agents: the client API under /rest/api/v1, the platform API under /api. */
export function agentsBase(flavour: Flavour): string {
  return flavour === 'legacy' ? '/rest/api/v1/agents' : '/api/agents';
}

/** What the agent queries need of the connection: where to send, and what keys its answers. */
export type AgentConnection = Pick<ActiveConnection, 'baseUrl' | 'token' | 'problem' | 'mode' | 'target' | 'fingerprint'>;
