/**
 * Agent tools and their authorization, as the console tells them (docs/api.md, agent tools):
 * what an agent's tools say before a run, where the browser is sent to consent and where it
 * comes back, and what the address says on its return. Pure; the components act on it.
 */
import { TOOL_AUTH_RESULT_PARAMS, toolAsksApproval, type ActionSummary } from '../../../contract/tool-servers';
import type { ConnectionMode } from '../../../lib/connection';

/** What an agent's tools say, before a run, about pausing for the user's approval. */
export type ApprovalOutlook =
  | { kind: 'unknown'; why: string }
  | { kind: 'no-tools' }
  | { kind: 'never' }
  /** `tools`: those that may ask (writes the server executes). */
  | { kind: 'may'; tools: ActionSummary[] };

/** `tools` as the schema read answered it: undefined when the instance did not list them. */
export function approvalOutlook(tools: unknown): ApprovalOutlook {
  if (tools === undefined) return { kind: 'unknown', why: 'the instance did not list its tools' };
  if (!Array.isArray(tools)) return { kind: 'unknown', why: 'the instance’s list of tools is not a list' };
  const listed = tools.filter(isActionSummary);
  if (listed.length === 0) return { kind: 'no-tools' };
  const asking = listed.filter(toolAsksApproval);
  return asking.length ? { kind: 'may', tools: asking } : { kind: 'never' };
}

/** An instance may send anything: a tool is shown only with the two fields the client requires. */
export function isActionSummary(value: unknown): value is ActionSummary {
  if (typeof value !== 'object' || value === null) return false;
  const t = value as Record<string, unknown>;
  return typeof t.tool_id === 'string' && typeof t.display_name === 'string';
}

/** The authorization an ActionSummary's `auth_type` asks for, in words; an unknown one as given. */
export function actionAuthText(authType: string | undefined): string {
  switch (authType?.toUpperCase()) {
    case undefined:
      return 'not stated';
    case 'OAUTH_USER':
      return 'your own sign-in (OAuth)';
    case 'OAUTH_ADMIN':
      return 'an administrator’s sign-in (OAuth)';
    case 'API_KEY':
      return 'an API key';
    case 'BASIC_AUTH':
      return 'a user name and password';
    case 'DWD':
      return 'domain-wide delegation';
    case 'NONE':
      return 'none';
    default:
      return authType!;
  }
}

/** A tool server's `authType`, in words. */
export function serverAuthText(authType: unknown): string {
  switch (authType) {
    case 'AUTH_USER_OAUTH':
      return 'OAuth: each user consents';
    case 'AUTH_ADMIN':
      return 'an administrator’s credential: users do not authorize it';
    case 'AUTH_NONE':
      return 'needs no authorization';
    default:
      return typeof authType === 'string' ? `authorization type ${authType}` : 'authorization type not stated';
  }
}

/** The address to come back to after the consent: this very page, without the result of an earlier consent. */
export function returnUrlOf(href: string): string {
  const url = new URL(href);
  for (const name of Object.values(TOOL_AUTH_RESULT_PARAMS)) url.searchParams.delete(name);
  return url.href;
}

export interface ConsentResult {
  allowed: boolean;
  serverId?: string;
  /** The OAuth error an instance named (`access_denied`), if it named one. */
  error?: string;
}

/** What a return from a consent page says in the address, if it says anything. */
export function consentResultOf(search: string): ConsentResult | undefined {
  const params = new URLSearchParams(search);
  const result = params.get(TOOL_AUTH_RESULT_PARAMS.result);
  if (result === null) return undefined;
  const serverId = params.get(TOOL_AUTH_RESULT_PARAMS.serverId) ?? undefined;
  const error = params.get(TOOL_AUTH_RESULT_PARAMS.error) ?? undefined;
  return { allowed: result === 'success', ...(serverId && { serverId }), ...(error && { error }) };
}

/** The query without a consent's result, to keep the address clean once it was read ('' or `?…`). */
export function searchWithoutConsentResult(search: string): string {
  const params = new URLSearchParams(search);
  for (const name of Object.values(TOOL_AUTH_RESULT_PARAMS)) params.delete(name);
  const rest = params.toString();
  return rest ? `?${rest}` : '';
}

/**
 * The origin of the instance the connection reaches: a link the instance answers relative to
 * itself is its page, never the console's (through the console's server, the upstream's).
 */
export function instanceOriginOf(connection: { mode: ConnectionMode; target: string }, pageOrigin: string): string {
  if (connection.mode === 'same-origin' || !URL.canParse(connection.target)) return pageOrigin;
  return new URL(connection.target).origin;
}

export type ConsentTarget = { ok: true; href: string } | { ok: false; problem: string };

/** Where Authorize sends the browser: the instance's `authorizationUrl`, only if it is an http(s) address. */
export function consentTarget(authorizationUrl: unknown, instanceOrigin: string): ConsentTarget {
  if (typeof authorizationUrl !== 'string' || authorizationUrl.trim() === '') {
    return { ok: false, problem: 'The instance answered no authorizationUrl: there is no consent page to open.' };
  }
  const url = URL.canParse(authorizationUrl, instanceOrigin) ? new URL(authorizationUrl, instanceOrigin) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    const shown = authorizationUrl.length > 200 ? `${authorizationUrl.slice(0, 200)}…` : authorizationUrl;
    return { ok: false, problem: `The instance answered an authorizationUrl that is not a web link (${shown}); it was not opened.` };
  }
  return { ok: true, href: url.href };
}
