import { queryOptions, useQuery } from '@tanstack/react-query';
import { toolServerAuthPath, type AuthorizeToolServerResponse, type ToolServerAuthStatusResponse } from '../../../contract/tool-servers';
import { apiRequest, type ApiResponse } from '../../../lib/api-client';
import type { Connection } from '../../../lib/connection';
import { agentKeys, type AgentConnection } from '../../../lib/agents/agent-keys';

/**
 * `GET /rest/api/v1/tool-servers/{serverId}/auth`: whether the token has authorized the
 * server. Kept whole (status line, headers, raw body) so the spec lens can check it. Read
 * afresh whenever it is shown: the consent happens elsewhere (another page, another tab).
 */
export function toolServerAuthQueryOptions(connection: AgentConnection, serverId: string) {
  return queryOptions({
    queryKey: agentKeys.toolServerAuth(connection, serverId),
    queryFn: ({ signal }) => apiRequest<ToolServerAuthStatusResponse>(connection, toolServerAuthPath(serverId), { signal }),
    staleTime: 0,
    enabled: !connection.problem && serverId !== '',
  });
}

export function useToolServerAuth(connection: AgentConnection, serverId: string) {
  return useQuery(toolServerAuthQueryOptions(connection, serverId));
}

/** `POST /rest/api/v1/tool-servers/{serverId}/auth` `{ returnUrl }`: the consent link to send the browser to. */
export function authorizeToolServer(connection: Connection, serverId: string, returnUrl: string): Promise<ApiResponse<AuthorizeToolServerResponse>> {
  return apiRequest<AuthorizeToolServerResponse>(connection, toolServerAuthPath(serverId), { method: 'POST', body: { returnUrl } });
}
