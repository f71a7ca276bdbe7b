/**
 * Agent tools and tool-server authorization (docs/api.md, agent tools): the wire types of the
 * official client @gleanwork/api-client 0.20.15 (ActionSummary / PlatformActionSummary,
 * ToolServerAuthStatusResponse, AuthorizeToolServerRequest and Response,
 * ToolDefinitionsResponse), the Client API paths, and the query parameters the reference
 * service's consent page adds to `returnUrl`. The service answers them; the console reads them.
 */

/** One tool an agent can invoke, as `GET /api/agents/{id}/schemas?include_tools=true` lists it. */
export interface ActionSummary {
  tool_id: string;
  display_name: string;
  /** RETRIEVAL (reads) or ACTION (modifies data); an open set. */
  type?: string;
  /** OAUTH_USER, OAUTH_ADMIN, API_KEY, BASIC_AUTH, DWD or NONE; an open set. */
  auth_type?: string;
  /** Write actions only: REDIRECT (the client renders a URL) or EXECUTION (the server calls out). */
  write_action_type?: string;
  is_setup_finished?: boolean;
  data_source?: string;
}

/** Open enums, as the client reads them: a value outside these is shown, not refused. */
export const TOOL_SERVER_AUTH_STATUSES = ['AWAITING_AUTH', 'AUTHORIZED'] as const;
export type ToolServerAuthStatus = (typeof TOOL_SERVER_AUTH_STATUSES)[number] | (string & {});

export const TOOL_SERVER_AUTH_TYPES = ['AUTH_USER_OAUTH', 'AUTH_ADMIN', 'AUTH_NONE'] as const;
export type ToolServerAuthType = (typeof TOOL_SERVER_AUTH_TYPES)[number] | (string & {});

/** `GET /rest/api/v1/tool-servers/{serverId}/auth`: the calling user's (here: token's) status. */
export interface ToolServerAuthStatusResponse {
  displayName?: string;
  logoUrl?: string;
  description?: string;
  authStatus: ToolServerAuthStatus;
  authType: ToolServerAuthType;
}

export interface AuthorizeToolServerRequest {
  /** Where the user's browser goes back to once the consent is given or refused. */
  returnUrl: string;
}

export interface AuthorizeToolServerResponse {
  /** Where to send the user's browser to consent. */
  authorizationUrl: string;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean | null;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolDefinition {
  serverId: string;
  name: string;
  displayName?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
}

/** `GET /rest/api/v1/tool-servers/{serverId}/tools?toolNames=…`. */
export interface ToolDefinitionsResponse {
  tools: ToolDefinition[];
  notFound?: string[];
}

/** What `authentication_suggestions` (platform) or `authenticationSuggestions` (client API) name. */
export interface ToolSuggestion {
  /** The tool's name as the instance gave it, if it did. */
  toolName?: string;
  serverId: string;
}

/** Base of the Client API, where the tool-server operations live (not under `/api`). */
export const TOOL_SERVERS_BASE = '/rest/api/v1/tool-servers';

export const toolServerAuthPath = (serverId: string) => `${TOOL_SERVERS_BASE}/${encodeURIComponent(serverId)}/auth`;
export const toolServerToolsPath = (serverId: string) => `${TOOL_SERVERS_BASE}/${encodeURIComponent(serverId)}/tools`;

/** Most tool names one tools request may ask for (the client's documentation). */
export const MAX_TOOL_NAMES = 100;

/**
 * The query parameters the reference service's consent page adds to `returnUrl` (reference
 * choice, after the client's documented `glean_action_auth=success|error` of action packs):
 * `glean_tool_auth=success|error`, `serverId`, and on a refusal `error=access_denied`.
 * An instance may send others: the console checks each server's status again on return, and
 * reads these only to say what happened.
 */
export const TOOL_AUTH_RESULT_PARAMS = { result: 'glean_tool_auth', serverId: 'serverId', error: 'error' } as const;

/** The sandbox's own OAuth consent page (reference service only). */
export const CONSENT_PATH = '/sandbox/oauth/consent';

/**
 * Suggestions from a run refused for unauthorized tools, in either family's spelling; an
 * instance may send anything, so whatever is not a suggestion with a server id is skipped.
 */
export function toolSuggestionsOf(body: unknown): ToolSuggestion[] {
  if (typeof body !== 'object' || body === null) return [];
  const b = body as Record<string, unknown>;
  const list = b.authentication_suggestions ?? b.authenticationSuggestions;
  if (!Array.isArray(list)) return [];
  const out: ToolSuggestion[] = [];
  for (const item of list as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const s = item as Record<string, unknown>;
    const serverId = s.server_id ?? s.serverId;
    if (typeof serverId !== 'string' || serverId === '') continue;
    const name = s.toolDisplayName ?? s.tool_name ?? s.toolName;
    out.push({ serverId, ...(typeof name === 'string' && name !== '' && { toolName: name }) });
  }
  return out;
}

/**
 * Whether a tool changes something: declared ACTION, or with a write-action type. The
 * published enums are open; anything else counts as reading.
 */
export function toolWrites(tool: Pick<ActionSummary, 'type' | 'write_action_type'>): boolean {
  return tool.type?.toUpperCase() === 'ACTION' || (tool.write_action_type !== undefined && tool.write_action_type !== '');
}

/**
 * Whether a tool may pause a run for the user's approval: a write the server executes
 * (EXECUTION, or a write of no stated type). A REDIRECT write hands the user a URL to act on
 * instead, so nothing waits. Reference choice: ActionSummary has no approval field, and this
 * is what the documented fields allow one to say beforehand.
 */
export function toolAsksApproval(tool: Pick<ActionSummary, 'type' | 'write_action_type'>): boolean {
  return toolWrites(tool) && tool.write_action_type?.toUpperCase() !== 'REDIRECT';
}
