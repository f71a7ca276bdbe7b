/**
 * The one fetch wrapper of the console. It throws `ApiError` for any non-2xx answer,
 * reading the error bodies of every family in docs/api.md: `{error, message}` for custom
 * metadata, a JSON string or the 422 object for the client API, problem details for the
 * platform API, and non-JSON bodies as text. A request that never got an answer
 * (network, CORS) is an `ApiError` with status 0 and kind 'network'.
 */

import { isProblemDetail } from '../contract/problem';
import type { Connection } from './connection';

export type HeaderList = [name: string, value: string][];

/** What the console shows about any answer, success or error. */
export interface ResponseMeta {
  method: string;
  url: string;
  status: number;
  durationMs: number;
  requestId?: string;
  headers: HeaderList;
  /** The body as received, for raw views. */
  rawBody: string;
  receivedAt: number;
  /**
   * This answer's body was confirmed unchanged by a later conditional request (If-None-Match
   * with its ETag), answered 304 with no body: that request's figures.
   */
  revalidation?: Revalidation;
}

export interface Revalidation {
  status: 304;
  durationMs: number;
  receivedAt: number;
  requestId?: string;
}

export interface ApiResponse<T> extends ResponseMeta {
  data: T;
}

export type ApiErrorKind = 'http' | 'network' | 'aborted';

export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorKind,
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    /** The parsed body (object or string); the raw text when it was not JSON. */
    readonly body: unknown,
    readonly meta: ResponseMeta | undefined,
    readonly code?: string,
    readonly requestId?: string,
  ) {
    super(`${status ? `${status} ` : ''}${title}: ${detail}`);
    this.name = 'ApiError';
  }

  header(name: string): string | undefined {
    const lower = name.toLowerCase();
    return this.meta?.headers.find(([n]) => n.toLowerCase() === lower)?.[1];
  }

  /** True when the body was not JSON, so views show it raw. */
  get bodyIsRaw(): boolean {
    return typeof this.body === 'string' && this.meta !== undefined && !/json/i.test(this.header('content-type') ?? '');
  }
}

export function describeErrorBody(status: number, statusText: string, body: unknown): { title: string; detail: string; code?: string; requestId?: string } {
  const fallbackTitle = statusText || `HTTP ${status}`;
  if (isProblemDetail(body)) {
    return { title: body.title, detail: typeof body.detail === 'string' ? body.detail : fallbackTitle, code: body.code, requestId: body.request_id };
  }
  if (typeof body === 'string') return { title: fallbackTitle, detail: body || 'The answer had no body.' };
  if (typeof body === 'object' && body !== null) {
    const b = body as Record<string, unknown>;
    if (typeof b.error === 'string') return { title: b.error, detail: typeof b.message === 'string' ? b.message : b.error };
    if (typeof b.message === 'string') return { title: fallbackTitle, detail: b.message };
  }
  return { title: fallbackTitle, detail: 'The server answered with an error and no readable body.' };
}

/** The error of a request that was not sent because the connection is not set up. */
export function notConnected(problem: string): ApiError {
  return new ApiError('network', 0, 'Connection not set up', problem, undefined, undefined, NOT_CONNECTED);
}

/** The code of a request not sent at all: asking again changes nothing until the connection is set up. */
export const NOT_CONNECTED = 'not_connected';

/** Builds the absolute URL of `path` on the connection's base URL ('' = this origin). */
export function urlOf(connection: Pick<Connection, 'baseUrl'>, path: string): string {
  const base = connection.baseUrl.replace(/\/+$/, '');
  return `${base}${path}`;
}

export function networkErrorDetail(url: string, sameOrigin: boolean): string {
  // Node (the headless suite runner): no page, no CORS; the host did not answer.
  if (typeof window === 'undefined') return `No answer from ${url}: the host is unreachable, refused the connection, or the address is wrong.`;
  if (sameOrigin) return `No answer from ${url}: the console's server may have stopped. Start it again with npm start.`;
  return (
    `The browser got no answer from ${url}. Either the host is unreachable, or it does not allow this page's origin ` +
    `(${window.location.origin}) with CORS. Remedies: ask the instance's administrator to allow this origin, or ` +
    `start the console with "npm start -- --upstream <instance origin>" and choose “Instance, via this console’s server” under Connect to.`
  );
}

/** Status, timing, request id and headers of an answer, as every view shows them. */
export function responseMetaOf(response: Response, method: string, url: string, started: number, rawBody = ''): ResponseMeta {
  const headers: HeaderList = [];
  response.headers.forEach((value, name) => headers.push([name, value]));
  return {
    method,
    url,
    status: response.status,
    durationMs: Math.round(performance.now() - started),
    requestId: response.headers.get('x-request-id') ?? undefined,
    headers,
    rawBody,
    receivedAt: Date.now(),
  };
}

/** The ApiError of a non-2xx answer, in whichever error family its body is. */
export function httpErrorOf(response: Response, body: unknown, meta: ResponseMeta): ApiError {
  const d = describeErrorBody(response.status, response.statusText, body);
  return new ApiError('http', response.status, d.title, d.detail, body, meta, d.code, d.requestId ?? meta.requestId);
}

export function parseBody(text: string, contentType: string): unknown {
  if (text && /json/i.test(contentType)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

export interface RequestInit {
  method?: string;
  body?: unknown;
  signal?: AbortSignal;
  /**
   * Headers the request adds (a run's X-Sandbox-Fault). Never the Authorization header: the
   * token goes only from the connection, and a header of that name here is not sent.
   */
  headers?: Readonly<Record<string, string>>;
  /**
   * A GET's earlier answer, held by the caller's cache: its ETag goes as If-None-Match, and a
   * 304 answers it again (with `revalidation`), so revalidating what is held costs no body.
   */
  held?: ApiResponse<unknown>;
}

/** A header of an answer, by name in any case. */
export function headerOf(headers: HeaderList, name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find(([n]) => n.toLowerCase() === lower)?.[1];
}

/** Extra request headers as sent: any Authorization among them is dropped. */
function extraHeaders(extra: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(extra ?? {})) if (name.toLowerCase() !== 'authorization') out[name] = value;
  return out;
}

/**
 * The most of an answer the console reads: an instance answering 18.7 MB held the tab for 3 s,
 * and one answering without end would have been read without end. Past it, the rest is not read.
 */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** The answer's text, or an error saying it was larger than MAX_ANSWER_BYTES (the rest unread). */
async function readAnswer(response: Response, meta: () => ResponseMeta): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > MAX_ANSWER_BYTES) {
      void reader.cancel().catch(() => undefined);
      throw new ApiError(
        'http',
        response.status,
        'Answer too large',
        `The instance's answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MB; the console stopped reading it there.`,
        undefined,
        meta(),
      );
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join('');
}

export async function apiRequest<T>(connection: Connection, path: string, init: RequestInit = {}): Promise<ApiResponse<T>> {
  const method = init.method ?? 'GET';
  if (connection.problem) throw notConnected(connection.problem);
  const url = urlOf(connection, path);
  const headers: Record<string, string> = { ...extraHeaders(init.headers), Accept: 'application/json' };
  if (connection.token) headers.Authorization = `Bearer ${connection.token}`;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const etag = method === 'GET' && init.held ? headerOf(init.held.headers, 'etag') : undefined;
  // The suite runner in Node has no page: there, nothing is of this origin.
  const sameOrigin = !/^https?:\/\//i.test(connection.baseUrl) || (typeof window !== 'undefined' && new URL(url, window.location.href).origin === window.location.origin);
  const send = (conditional: boolean) =>
    fetch(url, {
      method,
      headers: conditional && etag ? { ...headers, 'If-None-Match': etag } : headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
      credentials: 'omit',
      cache: 'no-store',
    });
  let started = performance.now();
  let response: Response;
  try {
    try {
      response = await send(true);
    } catch (err) {
      // An instance that allows this origin may still not allow If-None-Match in its CORS
      // preflight: the GET, which changes nothing, is asked again without it.
      if (!etag || sameOrigin || init.signal?.aborted) throw err;
      started = performance.now();
      response = await send(false);
    }
  } catch (err) {
    if (init.signal?.aborted) throw new ApiError('aborted', 0, 'Cancelled', 'The request was cancelled.', undefined, undefined);
    throw new ApiError('network', 0, sameOrigin ? 'No answer' : 'Network or CORS failure', networkErrorDetail(url, sameOrigin), String(err), undefined);
  }
  let rawBody: string;
  try {
    rawBody = await readAnswer(response, () => responseMetaOf(response, method, url, started));
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (init.signal?.aborted) throw new ApiError('aborted', 0, 'Cancelled', 'The request was cancelled.', undefined, undefined);
    throw new ApiError('network', 0, 'Answer cut off', `The connection broke while the answer was read: ${String(err)}`, String(err), responseMetaOf(response, method, url, started));
  }
  const meta = responseMetaOf(response, method, url, started, rawBody);
  if (response.status === 304 && etag && init.held) {
    const { status, durationMs, receivedAt, requestId } = meta;
    return { ...(init.held as ApiResponse<T>), revalidation: { status: status as 304, durationMs, receivedAt, ...(requestId !== undefined && { requestId }) } };
  }
  const body = parseBody(rawBody, response.headers.get('content-type') ?? '');
  if (!response.ok) throw httpErrorOf(response, body, meta);
  return { ...meta, data: body as T };
}
