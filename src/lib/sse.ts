/**
 * Runs over server-sent events, POSTed exactly once.
 *
 * fetch-event-source retries by default: after an error, after the stream closes, on a
 * non-2xx answer, and it re-POSTs when a hidden tab becomes visible again. A run has side
 * effects and cost, so each of those is switched off here: `openWhenHidden: true` keeps the
 * one request open, `onopen` throws on a non-2xx answer or a wrong content type, `onerror`
 * rethrows (which ends the retry loop), and a closed stream is never reopened.
 *
 * The body reaches the parser paced, and bounded event by event (sse-body.ts).
 */

import { fetchEventSource, type EventSourceMessage } from '@microsoft/fetch-event-source';
import { SSE_CONTENT_TYPE } from '../contract/sse';
import { ApiError, httpErrorOf, networkErrorDetail, notConnected, parseBody, responseMetaOf, urlOf, type ResponseMeta } from './api-client';
import type { Connection } from './connection';
import { boundedEvents, pacedBody } from './sse-body';

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

/** fetch, with an event stream's body paced and its events bounded; any other answer (a refusal) as it came. */
const pacedFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok || !response.body || !type.startsWith(SSE_CONTENT_TYPE)) return response;
  return new Response(boundedEvents(pacedBody(response.body)), { status: response.status, statusText: response.statusText, headers: response.headers });
};

/** Carries a refusal out of `onopen` so it is not mistaken for a broken stream. */
class Refused extends Error {
  constructor(readonly error: ApiError) {
    super(error.message);
  }
}

async function refusalOf(response: Response, url: string, method: string, started: number): Promise<ApiError> {
  const rawBody = await response.text().catch(() => '');
  const type = response.headers.get('content-type') ?? '';
  const body = parseBody(rawBody, type);
  const meta = responseMetaOf(response, method, url, started, rawBody);
  if (response.ok) {
    return new ApiError('http', response.status, 'Not an event stream', `Expected ${SSE_CONTENT_TYPE}, got ${type || 'no content type'}.`, body, meta);
  }
  return httpErrorOf(response, body, meta);
}

/** One event as a reader hands it on: `event` '' when the server named none. */
export interface ReadEvent {
  id: string;
  event: string;
  data: string;
}

/**
 * What reads an event stream: POSTs once, hands the answer to `onopen` (which throws to refuse
 * it), then each event to `onmessage`; resolves when the stream ends or the signal aborts, and
 * throws whatever broke it. Never retries.
 */
export type EventReader = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal },
  onopen: (response: Response) => Promise<void>,
  onmessage: (event: ReadEvent) => void,
) => Promise<void>;

/** The page's reader: fetch-event-source, configured for exactly-once, its body paced and bounded. */
export const fetchEventSourceReader: EventReader = (url, init, onopen, onmessage) =>
  fetchEventSource(url, {
    ...init,
    credentials: 'omit',
    openWhenHidden: true,
    fetch: pacedFetch,
    onopen,
    onmessage: (msg: EventSourceMessage) => onmessage({ id: msg.id, event: msg.event, data: msg.data }),
    onerror(err) {
      throw err;
    },
  });

/** This origin, in a page; none in Node (the headless suite runner), where every URL is another host. */
function pageLocation(): { href: string; origin: string } | undefined {
  return typeof window === 'undefined' ? undefined : window.location;
}

/**
 * POSTs `body` once and reads the answer as an event stream until it ends. Never retries.
 * `reader` is fetch-event-source in the page; `npm run suite` gives one that runs in Node.
 */
export async function streamRun(
  connection: Connection,
  path: string,
  body: unknown,
  handlers: StreamHandlers,
  signal: AbortSignal,
  /** Headers the run adds (its X-Sandbox-Fault); an Authorization among them is not sent. */
  extra: Readonly<Record<string, string>> = {},
  reader: EventReader = fetchEventSourceReader,
): Promise<StreamEnd> {
  if (connection.problem) return { kind: 'refused', error: notConnected(connection.problem) };
  const url = urlOf(connection, path);
  const method = 'POST';
  // Lower-case on purpose: fetch-event-source adds `accept` itself unless that exact key is set,
  // and with `Accept` too the request would say "text/event-stream, text/event-stream".
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(extra)) if (name.toLowerCase() !== 'authorization') headers[name] = value;
  Object.assign(headers, { 'Content-Type': 'application/json', accept: SSE_CONTENT_TYPE });
  if (connection.token) headers.Authorization = `Bearer ${connection.token}`;
  const started = performance.now();
  let opened = false;
  try {
    await reader(
      url,
      { method, headers, body: JSON.stringify(body), signal },
      async (response) => {
        const type = response.headers.get('content-type') ?? '';
        if (!response.ok || !type.startsWith(SSE_CONTENT_TYPE)) throw new Refused(await refusalOf(response, url, method, started));
        opened = true;
        const { rawBody: _none, ...meta } = responseMetaOf(response, method, url, started);
        handlers.onOpen(meta);
      },
      (msg) => {
        // A reader calls this at every blank line, also after a keep-alive comment or a block
        // with no data; by the WHATWG rules an empty data buffer dispatches nothing.
        // (It cannot tell an explicit empty `data:` line apart, so that rare event is dropped too.)
        if (msg.data === '') return;
        handlers.onEvent({ id: msg.id, event: msg.event || 'message', data: msg.data });
      },
    );
  } catch (err) {
    if (signal.aborted) return { kind: 'stopped' };
    if (err instanceof Refused) return { kind: 'refused', error: err.error };
    if (!opened) {
      const here = pageLocation();
      const sameOrigin = here !== undefined && new URL(url, here.href).origin === here.origin;
      return { kind: 'refused', error: new ApiError('network', 0, sameOrigin ? 'No answer' : 'Network or CORS failure', networkErrorDetail(url, sameOrigin), String(err), undefined) };
    }
    return { kind: 'interrupted', reason: err instanceof Error ? err.message : String(err) };
  }
  return signal.aborted ? { kind: 'stopped' } : { kind: 'closed' };
}
