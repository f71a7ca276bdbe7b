/**
 * The one fetch wrapper of the console. It throws `ApiError` for any non-2xx answer,
 * reading the error bodies of every family in API.md: `{error, message}` for custom
 * metadata, a JSON string or the 422 object for the client API, problem details for the
 * platform API, and non-JSON bodies as text.
 */

import { isProblemDetail } from '../contract/problem';

export interface Connection {
  /** '' means the console's own origin, where the reference service is mounted. */
  baseUrl: string;
  token?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly body: unknown,
    readonly headers: Headers,
    readonly code?: string,
    readonly requestId?: string,
  ) {
    super(`${status} ${title}: ${detail}`);
    this.name = 'ApiError';
  }
}

function describeError(status: number, statusText: string, body: unknown): { title: string; detail: string; code?: string; requestId?: string } {
  if (isProblemDetail(body)) {
    return { title: body.title, detail: body.detail, code: body.code, requestId: body.request_id };
  }
  if (typeof body === 'string') return { title: statusText || `HTTP ${status}`, detail: body };
  if (typeof body === 'object' && body !== null) {
    const b = body as Record<string, unknown>;
    if (typeof b.error === 'string') return { title: b.error, detail: typeof b.message === 'string' ? b.message : b.error };
    if (typeof b.message === 'string') return { title: statusText || `HTTP ${status}`, detail: b.message };
  }
  return { title: statusText || `HTTP ${status}`, detail: 'The server answered with an error and no readable body.' };
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  if (text && /json/i.test(type)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

export async function apiRequest<T>(
  connection: Connection,
  path: string,
  init: { method?: string; body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (connection.token) headers.Authorization = `Bearer ${connection.token}`;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${connection.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: init.signal,
    credentials: 'omit',
  });
  const body = await readBody(response);
  if (!response.ok) {
    const d = describeError(response.status, response.statusText, body);
    throw new ApiError(response.status, d.title, d.detail, body, response.headers, d.code, d.requestId ?? response.headers.get('x-request-id') ?? undefined);
  }
  return body as T;
}
