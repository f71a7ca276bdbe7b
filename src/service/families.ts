import type { IncomingMessage, ServerResponse } from 'node:http';
import { problemType } from '../contract/problem.ts';
import { MAX_BODY_BYTES, newRequestId } from './http.ts';
import { settleUnreadBody } from './unread-body.ts';

/**
 * The three error families of docs/api.md, for answers made before or outside the service's
 * routes: the console server's host check, the upstream proxy, the HTTP parser's refusals.
 * Each answers in the family of the path it was asked for, as the routes themselves do.
 */
export type Family = 'metadata' | 'legacy' | 'platform';

/**
 * The family of a path as it arrived on the socket: `/api/%2e%2e/x` is a platform path
 * even though a URL parser would resolve it to `/x`.
 */
export function familyOf(rawPath: string): Family {
  if (rawPath.startsWith('/rest/api/v1/')) return 'legacy';
  if (rawPath.startsWith('/api/')) return 'platform';
  return 'metadata';
}

export interface Refusal {
  status: number;
  /** Platform family: the problem's code and title. */
  code: string;
  title: string;
  /** Custom-metadata family: the short `error`. */
  error: string;
  /** The explanation: `message`, `detail`, or the client API's whole string. */
  detail: string;
}

export function refusalBody(family: Family, r: Refusal, requestId: string): { contentType: string; body: string } {
  switch (family) {
    case 'legacy':
      return { contentType: 'application/json', body: JSON.stringify(r.detail) };
    case 'platform':
      return {
        contentType: 'application/problem+json',
        body: JSON.stringify({
          type: problemType(r.code),
          title: r.title,
          status: r.status,
          detail: r.detail,
          code: r.code,
          request_id: requestId,
          documentation_url: problemType(r.code),
        }),
      };
    default:
      return { contentType: 'application/json', body: JSON.stringify({ error: r.error, message: r.detail }) };
  }
}

/**
 * Answers `r` on a Node response in the family of `path`, with `headers` (the console
 * server's security headers) and nosniff. `close`: the request's body was not read, so the
 * connection must not be reused.
 */
export function sendRefusal(res: ServerResponse, path: string, r: Refusal, headers: Readonly<Record<string, string>> = {}, close = false): void {
  const id = newRequestId();
  const { contentType, body } = refusalBody(familyOf(path), r, id);
  res.writeHead(r.status, {
    ...headers,
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-request-id': id,
    ...(close && { connection: 'close' }),
  });
  res.end(body);
}

/** `sendRefusal` for a request whose body nobody read: the body is dropped first, or the answer closes the connection. */
export async function refuse(req: IncomingMessage, res: ServerResponse, path: string, r: Refusal, headers: Readonly<Record<string, string>> = {}): Promise<void> {
  const keep = await settleUnreadBody(req, MAX_BODY_BYTES);
  if (res.headersSent || res.destroyed) return;
  sendRefusal(res, path, r, headers, !keep);
}
