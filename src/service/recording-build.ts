/**
 * One exchange's recording file, made from what the proxy saw of it: the bodies parsed or
 * kept as text, every secret replaced (redact.ts), and the JSON text written to the file.
 * This is the recording's costly part (a 20 MB answer takes a second or more), so it runs on
 * the recorder's own thread (recording-worker.ts), not on the one that forwards every tab's
 * requests and answers signals.
 */
import { bodyField, RECORDING_FORMAT, RECORDING_VERSION, type RecordedEvent, type Recording } from './recording.ts';
import { redactAnswer, redactedPath, scrub } from './redact.ts';

/** What the proxy saw of one exchange, as the recorder's thread is handed it. */
export interface ExchangeInput {
  recordedAt: string;
  upstream: string;
  method: string;
  /** The API path and query as forwarded, secrets still in it. */
  path: string;
  /** The request headers a recording keeps (RECORDED_REQUEST_HEADERS). */
  requestHeaders: Record<string, string>;
  /** Every secret the request carried (secretsOf). */
  secrets: string[];
  requestBody: Uint8Array;
  status: number;
  /** The response headers the proxy passed on. */
  responseHeaders: Record<string, string>;
  headAtMs: number;
  endAtMs: number;
  end: 'complete' | 'broken';
  /** The answer's body; absent for an event stream. */
  responseBody?: Uint8Array;
  /** An event stream's events, as the text of a JSON array (made as they came, one at a time). */
  eventsJson?: string;
  /** The answer's body or events passed the cap. */
  truncated: boolean;
}

/** A body's text, as the bytes came (a byte-order mark kept, bytes that are no UTF-8 as U+FFFD). */
const textOf = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');

/** The recording of `input`, secrets replaced. */
export function recordingOf(input: ExchangeInput): Recording {
  const kept = input.requestHeaders;
  const recording: Recording = {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    recordedAt: input.recordedAt,
    upstream: input.upstream,
    request: {
      method: input.method,
      path: redactedPath(input.path),
      ...(Object.keys(kept).length && { headers: kept }),
      ...bodyField(textOf(input.requestBody), kept['content-type']),
    },
    response: {
      status: input.status,
      headers: input.responseHeaders,
      headAtMs: input.headAtMs,
      endAtMs: input.endAtMs,
      end: input.end,
      ...(input.eventsJson !== undefined
        ? { events: JSON.parse(input.eventsJson) as RecordedEvent[] }
        : bodyField(textOf(input.responseBody ?? new Uint8Array(0)), input.responseHeaders['content-type'])),
      ...(input.truncated && { truncated: true }),
    },
  };
  // What the answer handed out (a consent link's state, an issued token) is a secret as much as what the request carried.
  const handedOut = redactAnswer(recording.response);
  return scrub(recording, [...input.secrets, ...handedOut]);
}

/** A recording as its file holds it: readable JSON, UTF-8, in a buffer of its own (so it can be handed between threads). */
export function recordingFileBytes(recording: Recording): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(recording, null, 2)}\n`);
}
