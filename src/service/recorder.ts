/**
 * `npm start -- --upstream URL --record DIR`: the console's server writes every API exchange
 * it forwards to DIR, one JSON file per exchange (docs/recording.md), once the answer has
 * ended or broken: method, path and body of the request; status, headers and body of the
 * answer, and for an event stream every event with when it arrived.
 *
 * Secrets never reach a file. Request headers are an allow-list (RECORDED_REQUEST_HEADERS),
 * so Authorization, Cookie and any other header are left out; and every secret the request
 * carried (its bearer token, its cookies' values, the value of any header or query parameter
 * named like a secret) is replaced by "[redacted]" wherever it appears, the path and both
 * bodies included, raw or percent-encoded.
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { mkdirSync, readdirSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { TextDecoder } from 'node:util';
import { bodyField, RECORDED_REQUEST_HEADERS, RECORDING_FORMAT, RECORDING_VERSION, REDACTED, SECRET_NAME, type RecordedEvent, type Recording } from './recording.ts';

/** Body bytes an exchange keeps at most (request and answer each); past it the recording says `truncated`. */
export const RECORD_MAX_BODY_BYTES = 64 * 1024 * 1024;
/** An event's cost beyond its fields (its object, `atMs`, the JSON around it), counted against the cap. */
const EVENT_OVERHEAD_BYTES = 32;

/** Secrets shorter than this are not searched for in the rest of the recording (a cookie "theme=1" is no secret worth blanking every "1" for). */
const MIN_SECRET_LENGTH = 8;

/** Words of an Authorization value that are its scheme, not its secret. */
const SCHEMES = /^(bearer|basic|digest|token|negotiate)$/i;

/** Every secret `req` carries: what a recording must not hold anywhere. */
export function secretsOf(headers: IncomingMessage['headers'], path: string): string[] {
  const found = new Set<string>();
  const add = (v: string | undefined) => {
    const s = v?.trim();
    if (s && s.length >= MIN_SECRET_LENGTH && !SCHEMES.test(s)) found.add(s);
  };
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || (RECORDED_REQUEST_HEADERS as readonly string[]).includes(name)) continue;
    if (!SECRET_NAME.test(name) && name !== 'authorization' && name !== 'cookie' && name !== 'proxy-authorization') continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      add(v);
      // "Bearer abc", "session=abc; theme=dark", "k1=v1, k2=v2": each part on its own as well.
      for (const part of v.split(/[;,\s]+/)) {
        add(part);
        const eq = part.indexOf('=');
        if (eq > 0) add(part.slice(eq + 1));
      }
    }
  }
  const query = path.indexOf('?');
  if (query >= 0) {
    for (const [name, value] of new URLSearchParams(path.slice(query + 1))) if (SECRET_NAME.test(name)) add(value);
  }
  return [...found].sort((a, b) => b.length - a.length);
}

/** Replaces every secret in `text`, as it is and percent-encoded. */
function scrubText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    for (const form of new Set([s, encodeURIComponent(s), encodeURIComponent(s).replace(/%20/g, '+')])) {
      if (out.includes(form)) out = out.split(form).join(REDACTED);
    }
  }
  return out;
}

/** `value` with every secret replaced in every string, keys included. */
export function scrub<T>(value: T, secrets: readonly string[]): T {
  if (!secrets.length) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return scrubText(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [scrubText(k, secrets), walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** The path with the value of every query parameter named like a secret replaced. */
export function redactedPath(path: string): string {
  const q = path.indexOf('?');
  if (q < 0) return path;
  const params = new URLSearchParams(path.slice(q + 1));
  let changed = false;
  for (const [name] of params) {
    if (SECRET_NAME.test(name)) {
      params.set(name, REDACTED);
      changed = true;
    }
  }
  return changed ? `${path.slice(0, q)}?${params.toString()}` : path;
}

/** A file name that sorts in recording order and says what it holds: 0007-post-api-agents-echo-assistant-runs.json. */
function fileNameOf(seq: number, method: string, path: string): string {
  const slug = path
    .split('?', 1)[0]!
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .toLowerCase();
  return `${String(seq).padStart(4, '0')}-${method.toLowerCase()}-${slug || 'root'}.json`;
}

/** Pieces of a body, up to a bound. */
class BoundedBytes {
  private readonly parts: Buffer[] = [];
  bytes = 0;
  truncated = false;

  add(chunk: Uint8Array): void {
    if (this.truncated) return;
    if (this.bytes + chunk.length > RECORD_MAX_BODY_BYTES) {
      this.truncated = true;
      return;
    }
    this.parts.push(Buffer.from(chunk));
    this.bytes += chunk.length;
  }

  text(): string {
    return Buffer.concat(this.parts).toString('utf8');
  }
}

/** One exchange being recorded: fed as the proxy forwards it, written once it is over. */
export class ExchangeRecording {
  private readonly t0 = performance.now();
  private readonly recordedAt = new Date().toISOString();
  private readonly requestBody = new BoundedBytes();
  private readonly responseBody = new BoundedBytes();
  private head: { status: number; headers: Record<string, string>; atMs: number } | undefined;
  private events: RecordedEvent[] | undefined;
  private parser: EventSourceParser | undefined;
  private decoder: TextDecoder | undefined;
  private eventBytes = 0;
  /** Bytes fed to the parser since its last whole event: an event that never ends grows here. */
  private pendingBytes = 0;
  /** The events stopped being recorded (past the cap): the rest of the stream is only forwarded. */
  private eventsCut = false;
  private done = false;

  constructor(
    private readonly recorder: Recorder,
    private readonly req: IncomingMessage,
    private readonly apiPath: string,
    private readonly upstream: string,
  ) {}

  private at(): number {
    return Math.round((performance.now() - this.t0) * 10) / 10;
  }

  requestChunk(chunk: Uint8Array): void {
    this.requestBody.add(chunk);
  }

  /** The upstream's head: status and the headers the proxy passes on. */
  responseHead(status: number, headers: Record<string, string>): void {
    this.head = { status, headers, atMs: this.at() };
    if ((headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream')) {
      const events: RecordedEvent[] = [];
      this.events = events;
      this.decoder = new TextDecoder();
      this.parser = createParser({
        onEvent: (e) => {
          this.pendingBytes = 0;
          if (this.eventsCut) return;
          // What the event costs to keep, not its data alone: long names or ids, or endless
          // empty events, would otherwise be kept past any bound.
          this.eventBytes += e.data.length + (e.event?.length ?? 0) + (e.id?.length ?? 0) + EVENT_OVERHEAD_BYTES;
          if (this.eventBytes > RECORD_MAX_BODY_BYTES) {
            this.eventsCut = true;
            return;
          }
          events.push({ atMs: this.at(), ...(e.id !== undefined && { id: e.id }), ...(e.event !== undefined && { event: e.event }), data: e.data });
        },
      });
    }
  }

  responseChunk(chunk: Uint8Array): void {
    if (!this.parser) return this.responseBody.add(chunk);
    if (this.eventsCut) return;
    // The parser holds an event until its blank line: one that never comes (endless data lines,
    // or one line with no end) grew it until a string past V8's limit threw and took the
    // console's server down. Past the cap the recording stops, marked truncated.
    this.pendingBytes += chunk.byteLength;
    if (this.eventBytes + this.pendingBytes > RECORD_MAX_BODY_BYTES) {
      this.eventsCut = true;
      this.parser.reset();
      return;
    }
    this.parser.feed(this.decoder!.decode(chunk, { stream: true }));
  }

  /** The answer ended (`complete`) or broke off (`broken`): the file is written. Never throws: a recording that cannot be made is said, and the exchange stands. */
  finish(end: 'complete' | 'broken'): void {
    if (this.done || !this.head) return;
    this.done = true;
    try {
      this.write(end, this.head);
    } catch (err) {
      this.recorder.cannotRecord(`${this.req.method ?? 'GET'} ${redactedPath(this.apiPath).split('?', 1)[0]}`, err);
    }
  }

  private write(end: 'complete' | 'broken', head: NonNullable<ExchangeRecording['head']>): void {
    if (this.parser && !this.eventsCut) this.parser.feed(this.decoder!.decode());
    const secrets = secretsOf(this.req.headers, this.apiPath);
    const kept: Record<string, string> = {};
    for (const name of RECORDED_REQUEST_HEADERS) {
      const v = this.req.headers[name];
      if (typeof v === 'string') kept[name] = v;
    }
    const { status, headers, atMs } = head;
    const recording: Recording = {
      format: RECORDING_FORMAT,
      version: RECORDING_VERSION,
      recordedAt: this.recordedAt,
      upstream: this.upstream,
      request: {
        method: this.req.method ?? 'GET',
        path: redactedPath(this.apiPath),
        ...(Object.keys(kept).length && { headers: kept }),
        ...bodyField(this.requestBody.text(), kept['content-type']),
      },
      response: {
        status,
        headers,
        headAtMs: atMs,
        endAtMs: this.at(),
        end,
        ...(this.events ? { events: this.events } : bodyField(this.responseBody.text(), headers['content-type'])),
        ...((this.responseBody.truncated || this.eventsCut) && { truncated: true }),
      },
    };
    this.recorder.write(scrub(recording, secrets));
  }
}

/** Far below 2^53: numbering on from here stays exact for longer than any directory lives. */
const MAX_COUNTED_ON_FROM = 1e15;

/**
 * The highest number among recordings' file names (`<n>-….json`), 0 for none. A loop, not
 * `Math.max(...names)`: spread over a directory of some 100,000 files, that threw at start.
 */
export function lastRecordingNumber(names: Iterable<string>): number {
  let last = 0;
  for (const name of names) {
    const n = Number(/^(\d+)-.*\.json$/.exec(name)?.[1] ?? 0);
    // A number near 2^53 or past it (a file copied in or made by hand) is not counted on from:
    // a few exchanges later, adding 1 would change nothing, and each would take the same name.
    if (n > last && n < MAX_COUNTED_ON_FROM) last = n;
  }
  return last;
}

/** Writes recordings into one directory, numbered on from the files already there. */
export class Recorder {
  private seq: number;
  private warned = false;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.seq = lastRecordingNumber(readdirSync(dir));
  }

  begin(req: IncomingMessage, apiPath: string, upstream: string): ExchangeRecording {
    return new ExchangeRecording(this, req, apiPath, upstream);
  }

  /** An exchange that could not be recorded (said each time: a missing exchange in DIR must not go unnoticed). */
  cannotRecord(what: string, err: unknown): void {
    console.error(`[record] ${what} was forwarded but not recorded: ${(err as Error).message}`);
  }

  write(recording: Recording): void {
    const name = fileNameOf(++this.seq, recording.request.method, recording.request.path);
    const path = join(this.dir, name);
    // Written whole, then renamed: a replay never reads half a file.
    const tmp = join(this.dir, `.${name}.tmp`);
    writeFile(tmp, `${JSON.stringify(recording, null, 2)}\n`)
      .then(() => rename(tmp, path))
      .then(() => {
        // Said once per outage, not once per process: the next one must not go unnoticed either.
        if (!this.warned) return;
        this.warned = false;
        console.error(`[record] Writing to ${this.dir} works again (${name}).`);
      })
      .catch((err: unknown) => {
        if (this.warned) return;
        this.warned = true;
        console.error(`[record] Cannot write ${path}: ${(err as Error).message}. Exchanges are still forwarded, but not recorded.`);
      });
  }
}
