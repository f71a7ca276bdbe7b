import type { Context, Hono } from 'hono';
import { CONSENT_PATH, MAX_TOOL_NAMES, type ToolDefinition, type ToolDefinitionsResponse, type ToolServerAuthStatusResponse } from '../../contract/tool-servers.ts';
import type { AgentCatalog, ToolServerDefinition } from '../agents.ts';
import { isPlainObject, legacyError, readJson, unknownKeys, type Env } from '../http.ts';
import { clip, listText } from '../problem-list.ts';
import type { OwnOrigins } from '../own-origins.ts';
import type { ToolAuthorizations } from '../tool-auth.ts';

/** Longest `returnUrl` taken (reference choice; browsers' own limits are far higher, an address bar's far lower). */
export const MAX_RETURN_URL_CHARS = 2_048;

export interface ToolServerRoutesOptions {
  auth: ToolAuthorizations;
  /** The service's own origins, from what it listens on (never from the request). */
  ownOrigins: OwnOrigins;
  /** Origins besides the service's own that `returnUrl` may point at (`--allowed-return-origin`). */
  allowedReturnOrigins: readonly string[];
}

/** Where a consent may return to: the service's own origins, then those allowed at start. */
export function returnOrigins(own: OwnOrigins, allowed: readonly string[]): string[] {
  return [...new Set([...own.list, ...allowed])];
}

/**
 * Why `returnUrl` may not be used, or undefined: an absolute http(s) URL without credentials,
 * on one of `origins` (the service's own, or one allowed at start). Only the origin is
 * compared: any page of an allowed console may be returned to.
 */
export function returnUrlProblem(returnUrl: unknown, origins: readonly string[]): string | undefined {
  if (typeof returnUrl !== 'string' || returnUrl === '') return 'returnUrl is required: the address the browser goes back to after the consent.';
  if (returnUrl.length > MAX_RETURN_URL_CHARS) return `returnUrl is longer than ${MAX_RETURN_URL_CHARS} characters.`;
  if (!URL.canParse(returnUrl)) return `returnUrl "${clip(returnUrl, 200)}" is not an absolute URL.`;
  const url = new URL(returnUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `returnUrl must be an http or https address, not ${clip(url.protocol, 40)}.`;
  if (url.username || url.password) return 'returnUrl must not carry credentials.';
  if (!origins.includes(url.origin)) {
    const where = origins.length ? `this service returns only to ${listText(origins)}` : 'this service knows no origin of its own until it listens, and none was allowed';
    return `returnUrl is on ${clip(url.origin, 200)}, which is not an allowed return URL: ${where}. Start it with --allowed-return-origin <origin> to allow another console.`;
  }
  return undefined;
}

/** AUTH_ADMIN and AUTH_NONE servers need no consent of their users: they count as authorized for every token. */
function isAuthorized(auth: ToolAuthorizations, tokenKey: string, server: ToolServerDefinition): boolean {
  return server.auth_type !== 'AUTH_USER_OAUTH' || auth.isAuthorized(tokenKey, server.server_id);
}

/** The servers of `serverIds` the token has not authorized yet, in order. */
export function unauthorizedServers(catalog: AgentCatalog, auth: ToolAuthorizations, tokenKey: string, serverIds: readonly string[]): string[] {
  return serverIds.filter((id) => {
    const server = catalog.toolServers.get(id);
    return !server || !isAuthorized(auth, tokenKey, server);
  });
}

/** `toolNames` as the client sends it (`a,b`, the form style without explode) or repeated; trimmed, empty names dropped. */
function toolNamesOf(c: Context): string[] {
  return (c.req.queries('toolNames') ?? []).flatMap((v) => v.split(',')).map((n) => n.trim()).filter(Boolean);
}

/** Names match ignoring case, with `-` and `_` the same (the client's documentation). */
const nameKey = (name: string) => name.toLowerCase().replace(/-/g, '_');

/**
 * The Client API's tool-server operations (docs/api.md, agent tools), on the client API's router
 * behind its guard (token, agents.run, rate limit), so errors are that family's JSON strings.
 */
export function registerToolServerRoutes(app: Hono<Env>, catalog: AgentCatalog, options: ToolServerRoutesOptions): void {
  const { auth } = options;
  const serverOf = (c: Context<Env>): ToolServerDefinition | Response => {
    const id = c.req.param('serverId') ?? '';
    return catalog.toolServers.get(id) ?? legacyError(c, 404, `No tool server "${clip(id, 200)}" on this service.`);
  };

  app.get('/tool-servers/:serverId/auth', (c) => {
    const server = serverOf(c);
    if (server instanceof Response) return server;
    const answer: ToolServerAuthStatusResponse = {
      displayName: server.display_name,
      ...(server.description !== undefined && { description: server.description }),
      authStatus: isAuthorized(auth, c.get('tokenKey'), server) ? 'AUTHORIZED' : 'AWAITING_AUTH',
      authType: server.auth_type,
    };
    return c.json(answer);
  });

  app.post('/tool-servers/:serverId/auth', async (c) => {
    const server = serverOf(c);
    if (server instanceof Response) return server;
    const body = await readJson(c);
    if (!body.ok) return legacyError(c, body.status, body.message);
    if (!isPlainObject(body.value)) return legacyError(c, 400, 'The body must be { "returnUrl": "<where the browser goes back to>" }.');
    const extra = unknownKeys(body.value, ['returnUrl']);
    if (extra.length) return legacyError(c, 400, `Unknown field(s): ${listText(extra)}. Allowed: returnUrl.`);
    const why = returnUrlProblem(body.value.returnUrl, returnOrigins(options.ownOrigins, options.allowedReturnOrigins));
    if (why) return legacyError(c, 400, why);
    const state = auth.begin(c.get('tokenKey'), server.server_id, body.value.returnUrl as string);
    // The consent page is this service's own: the browser is sent here, not to the console that
    // asked. The request's origin only picks which of the service's own (a console on localhost
    // goes to localhost); in process, with none known, the address is relative to the API's.
    const own = options.ownOrigins.namedFor(new URL(c.req.url).origin) ?? '';
    return c.json({ authorizationUrl: `${own}${CONSENT_PATH}?state=${encodeURIComponent(state)}` });
  });

  app.get('/tool-servers/:serverId/tools', (c) => {
    const server = serverOf(c);
    if (server instanceof Response) return server;
    const names = toolNamesOf(c);
    if (names.length === 0) return legacyError(c, 400, 'toolNames is required: the names of the tools to describe, comma-separated (toolNames=a,b).');
    if (names.length > MAX_TOOL_NAMES) return legacyError(c, 400, `toolNames names ${names.length} tools; at most ${MAX_TOOL_NAMES} may be asked for at once.`);
    const byKey = new Map(server.tools.map((t) => [nameKey(t.name), t]));
    const tools: ToolDefinition[] = [];
    const notFound: string[] = [];
    const seen = new Set<string>();
    for (const name of names) {
      const tool = byKey.get(nameKey(name));
      if (!tool) {
        notFound.push(clip(name, 200));
        continue;
      }
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      tools.push({
        serverId: server.server_id,
        name: tool.name,
        ...(tool.display_name !== undefined && { displayName: tool.display_name }),
        ...(tool.description !== undefined && { description: tool.description }),
        ...(tool.input_schema !== undefined && { inputSchema: tool.input_schema }),
        ...(tool.annotations !== undefined && { annotations: tool.annotations }),
      });
    }
    const answer: ToolDefinitionsResponse = { tools, ...(notFound.length > 0 && { notFound }) };
    return c.json(answer);
  });
}
