/**
 * Run streams started on Node's own request, before Hono: `POST /api/agents/{id}/runs` with
 * `"stream": true` and `POST /rest/api/v1/agents/runs/stream`.
 *
 * `npm run bench:load` opens a thousand of these at once, and a stream's first event waits
 * for every head before it on the one event loop. Through node-server and Hono a run's start
 * cost several times a bare node:http server's CPU (a profile: a web Request and its Headers,
 * routing, the middleware chain, a Response made only to copy its headers, the context's
 * closures). Here it costs the checks themselves: the same token lookup, scope, body checks,
 * rate limit and run cap as the routes, then the same head and the same run.
 *
 * Only a run that will start is answered here. Anything else (no or unknown token, a missing
 * scope, a repeated header it reads, a body that is not a plain JSON object of known fields,
 * an input the agent refuses, a wait or durable run, the rate limit or run cap reached, a
 * fault asked for, CORS, a query string, an encoded path) goes on to the routes with the body
 * already read, and they answer it in full: the refusals are worded in one place only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Message } from '../contract/agents.ts';
import { RUN_PATHS } from '../contract/run-paths.ts';
import { scopesAllowAgents } from '../contract/scopes.ts';
import type { AgentCatalog, AgentDefinition } from './agents.ts';
import type { RateLimiter } from './auth.ts';
import { isPlainObject, jsonNestedDeeperThan, MAX_BODY_BYTES, MAX_JSON_DEPTH, newRequestId } from './http.ts';
import { isAllowedHost } from './request-guard.ts';
import { loggedMessages, type RunLog } from './run-log.ts';
import { DEPRECATION, SUNSET, successorLink } from './routes/agents.ts';
import { runStream, type Flavour, type RunOptions, type RunSlots } from './runs.ts';
import { sseHeaders, streamSseOnNode } from './sse.ts';
import { hashToken, type Store } from './store.ts';

const LEGACY_STREAM_PATH = RUN_PATHS.legacyStream;
const PLATFORM_PREFIX = '/api/agents/';
const PLATFORM_SUFFIX = '/runs';
/** An agent id the fast path takes as it stands: no percent-encoding, no dot segment, no slash. */
const PLAIN_ID = /^[A-Za-z0-9_-]{1,200}$/;
const BEARER = /^Bearer\s+(\S+)\s*$/i;
const DIGITS = /^\d+$/;

const LEGACY_KEYS: readonly string[] = ['agent_id', 'input', 'messages', 'metadata'];
const PLATFORM_KEYS: readonly string[] = ['input', 'messages', 'metadata', 'stream', 'execution_mode'];

export interface PreparedRunOptions {
  store: Store;
  catalog: AgentCatalog;
  /** The families' rate limits, the routes' own instances: a request is counted once, whichever way it goes. */
  legacyLimiter: RateLimiter;
  platformLimiter: RateLimiter;
  runSlots: RunSlots;
  runLog: RunLog;
  run: RunOptions;
  allowedHosts?: readonly string[];
}

/**
 * Takes the request and returns true when it is a run stream this answers (its body is then
 * read here, and `fallback` is called if the run will not start after all, with the body kept
 * for the routes); returns false at once for the routes to answer.
 */
export type PreparedRun = (req: IncomingMessage, res: ServerResponse, fallback: () => void) => boolean;

export function preparedRunStreams(options: PreparedRunOptions): PreparedRun {
  const { store, catalog, runSlots, runLog } = options;
  const allowedHosts = options.allowedHosts ?? [];
  // The Link header names a known agent's successor endpoint: made once per agent.
  const links = new Map<string, string>();
  const linkOf = (id: string) => {
    let link = links.get(id);
    if (link === undefined) links.set(id, (link = successorLink(id)));
    return link;
  };

  return (req, res, fallback) => {
    const url = req.url;
    if (req.method !== 'POST' || url === undefined) return false;
    let flavour: Flavour;
    let pathId: string | undefined;
    if (url === LEGACY_STREAM_PATH) flavour = 'legacy';
    else if (url.startsWith(PLATFORM_PREFIX) && url.endsWith(PLATFORM_SUFFIX)) {
      pathId = url.slice(PLATFORM_PREFIX.length, -PLATFORM_SUFFIX.length);
      if (!PLAIN_ID.test(pathId)) return false;
      flavour = 'platform';
    } else return false;
    const h = req.headers;
    if (h['x-sandbox-fault'] !== undefined || h['transfer-encoding'] !== undefined) return false;
    if (repeatsReadHeader(req.rawHeaders)) return false;
    const length = h['content-length'];
    if (length === undefined || !DIGITS.test(length) || Number(length) === 0 || Number(length) > MAX_BODY_BYTES) return false;
    const type = (h['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
    if (type !== 'application/json' && !type.endsWith('+json')) return false;
    if (!isAllowedHost(h.host, allowedHosts)) return false;
    const token = h.authorization === undefined ? undefined : BEARER.exec(h.authorization)?.[1];
    if (token === undefined) return false;
    const hash = hashToken(token);
    const record = store.findTokenByHash(hash);
    if (!record || !scopesAllowAgents(record.scopes)) return false;
    const tokenKey = hash.toString('hex');

    const limiter = flavour === 'legacy' ? options.legacyLimiter : options.platformLimiter;
    const chunks: Buffer[] = [];
    let settled = false;
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The routes count a request against the rate limit before they read its body: one whose
    // body never ends (408, or the client left) counts here too, or a client could send such
    // requests past the limit this way only. (The request itself may never close: its answer,
    // the 408, does.)
    const countUnread = () => {
      if (settled) return;
      settled = true;
      limiter.take(tokenKey);
    };
    res.once('close', countUnread);
    req.once('end', () => {
      if (res.headersSent || res.destroyed) return countUnread();
      settled = true;
      const body = Buffer.concat(chunks);
      // The request lives as long as its stream, and its data listener with it: the chunks go now.
      chunks.length = 0;
      let run: AcceptedRun | undefined;
      try {
        run = acceptedRun(catalog, flavour, pathId, body);
      } catch {
        // Whatever this way in did not foresee, the routes answer (a throw here would be uncaught).
        run = undefined;
      }
      // The slot first: a request the routes will refuse for the run cap must not be counted
      // by the rate limit here and again there. A request past the rate limit gives its slot
      // back at once (counting it twice changes nothing: it is over the limit either way).
      let release = run && runSlots.take(tokenKey);
      if (release && limiter.take(tokenKey) > 0) {
        release();
        release = undefined;
      }
      if (!run || !release) {
        // The routes read the body from here (node-server's rawBody), and word the refusal.
        (req as IncomingMessage & { rawBody?: Buffer }).rawBody = body;
        return fallback();
      }
      const requestId = newRequestId();
      // The routes' head, in the order they write it: SSE headers, then the context's (names sorted).
      const headers =
        flavour === 'legacy'
          ? sseHeaders({
              deprecation: DEPRECATION,
              link: linkOf(run.agent.agent_id),
              sunset: SUNSET,
              'x-content-type-options': 'nosniff',
              'x-request-id': requestId,
            })
          : sseHeaders({ 'x-content-type-options': 'nosniff', 'x-request-id': requestId });
      runStream(requestId, undefined, flavour, run, options.run, release, (sseOptions, produce) => streamSseOnNode(res, headers, sseOptions, produce));
      runLog.post({ requestId, path: url, status: 200, at: new Date().toISOString(), ...loggedMessages(run.messages) });
    });
    return true;
  };
}

/**
 * Node keeps the first of a repeated Authorization, Content-Type, Content-Length or Host;
 * node-server hands the routes all of them joined ("Bearer a, Bearer b"), which they refuse.
 * Such a request is theirs to answer.
 */
function repeatsReadHeader(raw: readonly string[]): boolean {
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const bit =
      name.length === 13 && name.toLowerCase() === 'authorization'
        ? 1
        : name.length === 12 && name.toLowerCase() === 'content-type'
          ? 2
          : name.length === 14 && name.toLowerCase() === 'content-length'
            ? 4
            : name.length === 4 && name.toLowerCase() === 'host'
              ? 8
              : 0;
    if (seen & bit) return true;
    seen |= bit;
  }
  return false;
}

interface AcceptedRun {
  agent: AgentDefinition;
  input?: Record<string, unknown>;
  messages?: Message[];
  metadata?: Record<string, unknown>;
}

/** The run `body` asks for, when the routes would start it as a stream; otherwise undefined. */
function acceptedRun(catalog: AgentCatalog, flavour: Flavour, pathId: string | undefined, body: Buffer): AcceptedRun | undefined {
  const text = body.toString('utf8');
  if (jsonNestedDeeperThan(text, MAX_JSON_DEPTH)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  const allowed = flavour === 'legacy' ? LEGACY_KEYS : PLATFORM_KEYS;
  for (const k in value) if (!allowed.includes(k)) return undefined;
  const { input, messages, metadata } = value;
  let id: unknown = pathId;
  if (flavour === 'legacy') id = value.agent_id;
  else {
    if (value.stream !== true) return undefined;
    if (value.execution_mode !== undefined && value.execution_mode !== 'REQUEST_BOUND') return undefined;
    if (input === undefined && messages === undefined) return undefined;
  }
  if (typeof id !== 'string' || !id) return undefined;
  const agent = catalog.get(id);
  if (!agent) return undefined;
  if (metadata !== undefined && !isPlainObject(metadata)) return undefined;
  if (agent.behaviour.unauthorizedTools?.length) return undefined;
  if (agent.behaviour.durable?.steps.some((s) => s.approval !== undefined)) return undefined;
  if (!catalog.checkRun(agent, input, messages).empty) return undefined;
  return {
    agent,
    input: input as Record<string, unknown> | undefined,
    messages: messages as Message[] | undefined,
    metadata: metadata as Record<string, unknown> | undefined,
  };
}
