/**
 * The schema read, answered from a prepared answer on Node's own request, before Hono.
 *
 * `GET /rest/api/index/custom-metadata/schema/{group}` is what clients poll, and what
 * `npm run bench:service` measures against a bare node:http server. Through Hono and
 * node-server's Request and Response objects it cost about three times the bare server's CPU
 * (a profile: routing, the middleware chain, header objects, the SQLite read). Here it costs a
 * few string checks, a token hash, and one write of bytes made once per schema version.
 *
 * Only the plain success is answered here (200, or 304 for a revalidation), with the same
 * checks and the same answer as the route: anything else (no token, a scope that does not
 * cover the group, an unknown group, the rate limit reached, a body, a fault asked for, a
 * cross-origin request to answer with CORS) goes on to the routes, which say why in full.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { scopesCoverGroup } from '../contract/scopes.ts';
import type { RateLimiter } from './auth.ts';
import { noneMatchHits } from './etag.ts';
import { newRequestId } from './http.ts';
import { isAllowedHost } from './request-guard.ts';
import { hashToken, type Store } from './store.ts';

const SCHEMA_PREFIX = '/rest/api/index/custom-metadata/schema/';
/** A group name as the API takes it; any other is the route's to refuse. */
const GROUP_NAME = /^[A-Za-z0-9]{1,50}$/;
const BEARER = /^Bearer\s+(\S+)\s*$/i;

export interface PreparedReadOptions {
  allowedHosts?: readonly string[];
  /** CORS origins: a request with an Origin then goes through the routes, which answer CORS. */
  corsOrigins?: readonly string[];
}

/** Answers the request and returns true, or returns false for the routes to answer. */
export type PreparedRead = (req: IncomingMessage, res: ServerResponse) => boolean;

export function preparedSchemaReads(store: Store, limiter: RateLimiter, options: PreparedReadOptions = {}): PreparedRead {
  const allowedHosts = options.allowedHosts ?? [];
  const cors = (options.corsOrigins?.length ?? 0) > 0;
  return (req, res) => {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(SCHEMA_PREFIX)) return false;
    const group = url.slice(SCHEMA_PREFIX.length);
    if (!GROUP_NAME.test(group)) return false;
    const h = req.headers;
    if (h['x-sandbox-fault'] !== undefined || (cors && h.origin !== undefined)) return false;
    if ((h['content-length'] !== undefined && h['content-length'] !== '0') || h['transfer-encoding'] !== undefined) return false;
    if (!isAllowedHost(h.host, allowedHosts)) return false;
    const token = h.authorization === undefined ? undefined : BEARER.exec(h.authorization)?.[1];
    if (token === undefined) return false;
    const hash = hashToken(token);
    const key = hash.toString('hex');
    const record = store.findTokenByHash(hash, key);
    if (!record || !scopesCoverGroup(record.scopes, group)) return false;
    const prepared = store.preparedSchema(group);
    if (!prepared) return false;
    // Counted here as the route would count it; a refusal is the route's to word.
    if (limiter.take(key) > 0) return false;
    const headers: Record<string, string> = {
      'x-request-id': newRequestId(),
      'x-content-type-options': 'nosniff',
      etag: prepared.etag,
    };
    if (noneMatchHits(h['if-none-match'], prepared.etag)) {
      res.writeHead(304, headers);
      res.end();
      return true;
    }
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(prepared.body.length);
    res.writeHead(200, headers);
    res.end(prepared.body);
    return true;
  };
}
