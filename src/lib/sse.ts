/**
 * Runs over server-sent events, POSTed exactly once.
 *
 * fetch-event-source retries by default: after an error, after the stream closes, on a
 * non-2xx answer, and it re-POSTs when a hidden tab becomes visible again. A run has side
 * effects and cost, so each of those is switched off here: `openWhenHidden: true` keeps the
 * one request open, `onopen` throws on a non-2xx answer or a wrong content type, `onerror`
 * rethrows (which ends the retry loop), and a closed stream is never reopened.
 */

import { fetchEventSource, type EventSourceMessage } from '@microsoft/fetch-event-source';
import { SSE_CONTENT_TYPE } from '../contract/sse';
import { ApiError, describeErrorBody, networkErrorDetail, urlOf, type HeaderList, type ResponseMeta } from './api-client';
import type { Connection } from './connection';

export interface SseEvent {
  /** The `id` field, '' when the server sent none. */
  id: string;
  /** The event name; `message` when the server sent none. */
  event: string;
  data: string;
}

export interface StreamHandlers {
  /** The answer's status and headers, once, before any event. */
  onOpen(meta: Omit<ResponseMeta, 'rawBody' | 'durationMs'> & { durationMs: number }): void;
  onEvent(event: SseEvent): void;
}

export type StreamEnd =
  /** The server ended the stream. */
  | { kind: 'closed' }
  /** The user stopped it. */
  | { kind: 'stopped' }
  /** Refused before the stream started (non-2xx, wrong content type, network). */
  | { kind: 'refused'; error: ApiError }
  /** The connection broke after the stream had started. */
  | { kind: 'interrupted'; reason: string };

/** Carries a refusal out of `onopen` so it is not mistaken for a broken stream. */
class Refused extends Error {
  constructor(readonly error: ApiError) {
    super(error.message);
  }
}

async function refusalOf(response: Response, url: string, method: string, started: number): Promise<ApiError> {
  const rawBody = await response.text().catch(() => '');
  const headers: HeaderList = [];
  response.headers.forEach((value, name) => headers.push([name, value]));
  const type = response.headers.get('content-type') ?? '';
  let body: unknown = rawBody;
  if (/json/i.test(type)) {
    try {
      body = JSON.parse(rawBody) as unknown;
    } catch {
      body = rawBody;
    }
  }
  const meta: ResponseMeta = {
    method,
    url,
    status: response.status,
    durationMs: Math.round(performance.now() - started),
    requestId: response.headers.get('x-request-id') ?? undefined,
    headers,
    rawBody,
    receivedAt: Date.now(),
  };
  if (response.ok) {
    return new ApiError('http', response.status, 'Not an event stream', `Expected ${SSE_CONTENT_TYPE}, got ${type || 'no content type'}.`, body, meta);
  }
  const d = describeErrorBody(response.status, response.statusText, body);
  return new ApiError('http', response.status, d.title, d.detail, body, meta, d.code, d.requestId ?? meta.requestId);
}

/** POSTs `body` once and reads the answer as an event stream until it ends. Never retries. */
export async function streamRun(
  connection: Connection,
  path: string,
  body: unknown,
  handlers: StreamHandlers,
  signal: AbortSignal,
): Promise<StreamEnd> {
  const url = urlOf(connection, path);
  const method = 'POST';
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: SSE_CONTENT_TYPE };
  if (connection.token) headers.Authorization = `Bearer ${connection.token}`;
  const started = performance.now();
  let opened = false;
  try {
    await fetchEventSource(url, {
      method,
      headers,
      body: JSON.stringify(body),
      signal,
      credentials: 'omit',
      openWhenHidden: true,
      async onopen(response) {
        const type = response.headers.get('content-type') ?? '';
        if (!response.ok || !type.startsWith(SSE_CONTENT_TYPE)) throw new Refused(await refusalOf(response, url, method, started));
        opened = true;
        const list: HeaderList = [];
        response.headers.forEach((value, name) => list.push([name, value]));
        handlers.onOpen({
          method,
          url,
          status: response.status,
          durationMs: Math.round(performance.now() - started),
          requestId: response.headers.get('x-request-id') ?? undefined,
          headers: list,
          receivedAt: Date.now(),
        });
      },
      onmessage(msg: EventSourceMessage) {
        // fetch-event-source calls this at every blank line, also after a keep-alive comment
        // or a block with no data; by the WHATWG rules an empty data buffer dispatches nothing.
        // (It cannot tell an explicit empty `data:` line apart, so that rare event is dropped too.)
        if (msg.data === '') return;
        handlers.onEvent({ id: msg.id, event: msg.event || 'message', data: msg.data });
      },
      onerror(err) {
        throw err;
      },
    });
  } catch (err) {
    if (signal.aborted) return { kind: 'stopped' };
    if (err instanceof Refused) return { kind: 'refused', error: err.error };
    if (!opened) {
      const sameOrigin = new URL(url, window.location.href).origin === window.location.origin;
      return { kind: 'refused', error: new ApiError('network', 0, sameOrigin ? 'No answer' : 'Network or CORS failure', networkErrorDetail(url, sameOrigin), String(err), undefined) };
    }
    return { kind: 'interrupted', reason: err instanceof Error ? err.message : String(err) };
  }
  return signal.aborted ? { kind: 'stopped' } : { kind: 'closed' };
}
