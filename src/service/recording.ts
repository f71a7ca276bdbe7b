/**
 * Recorded API exchanges (docs/recording.md, docs/recording.schema.json): written by the
 * console's server (`npm start -- --upstream URL --record DIR`, recorder.ts) and answered by
 * a replay (`npm run service -- --replay DIR`, replay.ts). One readable JSON file per exchange.
 */

import { nestsDeeperThan } from '../contract/json-depth.ts';

export const RECORDING_FORMAT = 'metadata-agents-console/recording';
export const RECORDING_VERSION = 1;

export interface RecordedEvent {
  atMs: number;
  id?: string;
  event?: string;
  data: string;
}

export interface Recording {
  format: typeof RECORDING_FORMAT;
  version: typeof RECORDING_VERSION;
  recordedAt: string;
  upstream: string;
  request: {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: unknown;
    bodyText?: string;
  };
  response: {
    status: number;
    headers: Record<string, string>;
    headAtMs: number;
    endAtMs: number;
    end: 'complete' | 'broken';
    body?: unknown;
    bodyText?: string;
    events?: RecordedEvent[];
    truncated?: boolean;
  };
}

/** Request headers a recording keeps; every other (Authorization, Cookie, any token) is left out. */
export const RECORDED_REQUEST_HEADERS = ['content-type', 'accept', 'accept-language', 'last-event-id', 'if-none-match'] as const;

/** What stands for a secret wherever a recording would have held it. */
export const REDACTED = '[redacted]';

/** A header or query parameter whose name says it holds a secret: its value never reaches a file. */
export const SECRET_NAME = /auth|token|key|secret|session|cookie|passw|signature|sig$|credential|bearer|jwt/i;

/**
 * Deepest nesting a recording keeps as JSON. Deeper (a body of 1 MB may nest 500,000 deep) is
 * kept as text: the recorder's scrubbing and JSON.stringify walk by recursion, and the stack
 * runs out near 10,000 levels.
 */
export const MAX_RECORDED_DEPTH = 1_000;

/** The body of a request or answer as a recording keeps it: parsed when it is JSON (not nested past MAX_RECORDED_DEPTH), else as text. */
export function bodyField(text: string, contentType: string | undefined): { body?: unknown; bodyText?: string } {
  if (text === '') return {};
  if (/json/i.test(contentType ?? '') && !nestsDeeperThan(text, MAX_RECORDED_DEPTH)) {
    try {
      return { body: JSON.parse(text) as unknown };
    } catch {
      // Not JSON after all: kept as the text it was.
    }
  }
  return { bodyText: text };
}
