/**
 * X-Sandbox-Fault on the reference service (contract/sandbox-fault.ts): asked per request
 * by a client's developer, to see their code meet a 429, a slow first event or a broken
 * stream. Only the API paths honour it; the sandbox routes do not.
 *
 * - A malformed value answers 400 in the path's API family, saying why; nothing runs.
 * - `status` answers that error at once (before the token is read), `Retry-After` with it.
 * - The stream settings (drop-after, delay-first, stall-after, slow-bytes) go to the event
 *   stream the request opens (sse.ts); on a JSON answer, delay-first holds the answer and
 *   slow-bytes paces its bytes, and the others do nothing: there are no events to count.
 */
import type { Context, Next } from 'hono';
import { STATUS_CODES } from 'node:http';
import { PROBLEM_CODES, type ProblemCode } from '../contract/problem.ts';
import { parseSandboxFault, SANDBOX_FAULT_HEADER, type SandboxFault } from '../contract/sandbox-fault.ts';
import { SSE_CONTENT_TYPE } from '../contract/sse.ts';
import { familyOf, refusalBody, type Refusal } from './families.ts';
import type { Env } from './http.ts';
import { throttledBody } from './throttle.ts';

/** The platform code a status fault answers with; statuses the vendor names no code for get the service's own. */
const CODE_OF_STATUS: Record<number, ProblemCode> = {
  400: 'invalid_request',
  401: 'authentication_required',
  403: 'insufficient_permissions',
  404: 'resource_not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  413: 'request_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limit_exceeded',
  500: 'internal_error',
  503: 'service_unavailable',
};

/** The code of a status fault with no code of its own in the vendor's list (REFERENCE_ONLY_CODES). */
export const SANDBOX_FAULT_CODE = 'sandbox_fault';

export function isApiPath(path: string): boolean {
  return path.startsWith('/rest/') || path.startsWith('/api/');
}

/** The refusal a status fault answers: the status's own code and title, in every family. */
export function statusFaultRefusal(status: number, text: string): Refusal {
  const code = CODE_OF_STATUS[status];
  const reason = STATUS_CODES[status] ?? 'Error';
  return {
    status,
    code: code ?? SANDBOX_FAULT_CODE,
    title: code ? PROBLEM_CODES[code].title : reason,
    error: reason.toLowerCase(),
    detail: text,
  };
}

function answer(c: Context<Env>, rawPath: string, r: Refusal): Response {
  const { contentType, body } = refusalBody(familyOf(rawPath), r, c.get('requestId'));
  return c.body(body, r.status as 400, { 'content-type': contentType });
}

/** The request's fault, or the answer it gets at once: a 400 for a malformed value, the error a `status` asks for. */
export function readFault(c: Context<Env>, rawPath: string): { fault?: SandboxFault; response?: Response } {
  const value = c.req.header(SANDBOX_FAULT_HEADER);
  if (value === undefined || !isApiPath(rawPath)) return {};
  const parsed = parseSandboxFault(value);
  if (!parsed.ok) {
    return { response: answer(c, rawPath, { status: 400, code: 'invalid_request', title: PROBLEM_CODES.invalid_request.title, error: 'invalid sandbox fault', detail: parsed.problem }) };
  }
  const fault = parsed.fault;
  if (fault.status === undefined) return { fault };
  if (fault.retryAfter !== undefined) c.header('Retry-After', String(fault.retryAfter));
  if (fault.status === 401) c.header('WWW-Authenticate', 'Bearer');
  const text = `Sandbox fault: ${SANDBOX_FAULT_HEADER} asked for status ${fault.status}${fault.retryAfter !== undefined ? ` with Retry-After: ${fault.retryAfter}` : ''}; nothing was run.`;
  return { fault, response: answer(c, rawPath, statusFaultRefusal(fault.status, text)) };
}

/** The header of @hono/node-server's marker for an answer a handler wrote to the socket itself (a stream). */
const ALREADY_SENT_HEADER = 'x-hono-already-sent';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs the request with its fault (the stream settings are read by the SSE writer through the
 * context), then shapes a JSON answer: delay-first holds it, slow-bytes paces its bytes. The
 * answer is left in `c.res`.
 */
export async function withFault(c: Context<Env>, rawPath: string, next: Next): Promise<void> {
  const { fault, response } = readFault(c, rawPath);
  if (response) c.res = response;
  else {
    if (fault) c.set('fault', fault);
    await next();
  }
  if (!fault) return;
  const res = c.res;
  // A stream shapes itself (sse.ts); on Node it has already gone out.
  const sent = (c.env as { outgoing?: { headersSent?: boolean } } | undefined)?.outgoing?.headersSent === true;
  if (sent || (res.headers.get('content-type') ?? '').startsWith(SSE_CONTENT_TYPE) || res.headers.has(ALREADY_SENT_HEADER)) return;
  if (fault.delayFirst) await sleep(fault.delayFirst);
  if (fault.slowBytes !== undefined && res.body) {
    c.res = new Response(throttledBody(res.body, fault.slowBytes), { status: res.status, headers: res.headers });
  }
}
