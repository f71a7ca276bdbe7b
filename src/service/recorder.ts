/**
 * `npm start -- --upstream URL --record DIR`: the console's server writes every API exchange
 * it forwards to DIR, one JSON file per exchange (docs/recording.md), once the answer has
 * ended or broken: method, path and body of the request; status, headers and body of the
 * answer, and for an event stream every event with when it arrived.
 *
 * Secrets never reach a file. Request headers are an allow-list (RECORDED_REQUEST_HEADERS),
 * so Authorization, Cookie and any other header are left out; and every secret the request
 * carried is replaced by "[redacted]" wherever it appears (redact.ts). The file is made on the
 * recorder's own thread (recording-thread.ts) and written whole, then renamed; a stop waits
 * for the files still being made (settle).
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { TextDecoder } from 'node:util';
import type { ExchangeInput } from './recording-build.ts';
import { RecordingThread } from './recording-thread.ts';
import { RECORDED_REQUEST_HEADERS, type RecordedEvent, type Recording } from './recording.ts';
import { redactedPath, secretsOf } from './redact.ts';

/** Body bytes an exchange keeps at most (request and answer each); past it the recording says `truncated`. */
export const RECORD_MAX_BODY_BYTES = 64 * 1024 * 1024;
/** An event's cost beyond its fields (its object, `atMs`, the JSON around it), counted against the cap. */
const EVENT_OVERHEAD_BYTES = 32;

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

  /** The body in a buffer of its own, which can be moved to the recorder's thread. */
  take(): Uint8Array {
    const out = new Uint8Array(this.bytes);
    let at = 0;
    for (const part of this.parts.splice(0)) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }
}

/** One exchange being recorded: fed as the proxy forwards it, written once it is over. */
export class ExchangeRecording {
  private readonly t0 = performance.now();
  private readonly recordedAt = new Date().toISOString();
  private readonly requestBody = new BoundedBytes();
  private readonly responseBody = new BoundedBytes();
  private head: { status: number; headers: Record<string, string>; atMs: number } | undefined;
  /** An event stream's events so far, each as its JSON text: made one at a time as they come, not all at the end. */
  private events: string[] | undefined;
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

  /** The upstream's head: status and the headers the proxy passes on. From here on the exchange is written when it ends. */
  responseHead(status: number, headers: Record<string, string>): void {
    this.head = { status, headers, atMs: this.at() };
    this.recorder.opened(this);
    if ((headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream')) {
      const events: string[] = [];
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
          const event: RecordedEvent = { atMs: this.at(), ...(e.id !== undefined && { id: e.id }), ...(e.event !== undefined && { event: e.event }), data: e.data };
          events.push(JSON.stringify(event));
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
    } finally {
      this.recorder.closed(this);
    }
  }

  private write(end: 'complete' | 'broken', head: NonNullable<ExchangeRecording['head']>): void {
    if (this.parser && !this.eventsCut) this.parser.feed(this.decoder!.decode());
    const requestHeaders: Record<string, string> = {};
    for (const name of RECORDED_REQUEST_HEADERS) {
      const v = this.req.headers[name];
      if (typeof v === 'string') requestHeaders[name] = v;
    }
    this.recorder.record({
      recordedAt: this.recordedAt,
      upstream: this.upstream,
      method: this.req.method ?? 'GET',
      path: this.apiPath,
      requestHeaders,
      secrets: secretsOf(this.req.headers, this.apiPath),
      requestBody: this.requestBody.take(),
      status: head.status,
      responseHeaders: head.headers,
      headAtMs: head.atMs,
      endAtMs: this.at(),
      end,
      ...(this.events ? { eventsJson: `[${this.events.splice(0).join(',')}]` } : { responseBody: this.responseBody.take() }),
      truncated: this.responseBody.truncated || this.eventsCut,
    });
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

/** How long a stop waits for the recordings still being made or written (docs/recording.md, "Files"). */
export const RECORD_SETTLE_MS = 5_000;

/** Writes recordings into one directory, numbered on from the files already there. */
export class Recorder {
  private seq: number;
  private warned = false;
  /** Exchanges with an answer under way: each is written once it ends. */
  private readonly open = new Set<ExchangeRecording>();
  /** Files being written, by their temporary name. */
  private readonly writing = new Set<string>();
  /** Called whenever an exchange or a write ends (settle's wait). */
  private readonly onChange = new Set<() => void>();
  private readonly thread = new RecordingThread();

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

  opened(exchange: ExchangeRecording): void {
    this.open.add(exchange);
  }

  closed(exchange: ExchangeRecording): void {
    if (this.open.delete(exchange)) this.changed();
  }

  private changed(): void {
    for (const wake of this.onChange) wake();
  }

  /**
   * Waits until no exchange is being recorded and every file begun is written, for `timeoutMs`
   * at most: a stop (SIGTERM, Ctrl+C) comes here before the process exits, so the last
   * exchange is not left a hidden `.tmp`. What is still unfinished then is said, and its
   * temporary files removed.
   */
  async settle(timeoutMs = RECORD_SETTLE_MS): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while ((this.open.size || this.writing.size) && performance.now() < deadline) await this.nextChange(deadline - performance.now());
    if (!this.open.size && !this.writing.size) return;
    console.error(
      `[record] Stopped after ${timeoutMs / 1000} s with ${this.open.size + this.writing.size} exchange(s) not recorded` +
        ` (${this.open.size} still answering, ${this.writing.size} being written to ${this.dir}).`,
    );
    for (const tmp of this.writing) rmSync(tmp, { force: true });
  }

  /** Until an exchange or a write ends, or `ms` pass. */
  private nextChange(ms: number): Promise<void> {
    return new Promise((wake) => {
      const done = () => {
        clearTimeout(timer);
        this.onChange.delete(done);
        wake();
      };
      const timer = setTimeout(done, ms);
      this.onChange.add(done);
    });
  }

  /** Makes `input`'s recording (on the recorder's thread) and writes it, numbered in the order exchanges ended. */
  record(input: ExchangeInput): void {
    const method = input.method;
    const path = redactedPath(input.path);
    this.writeFile(fileNameOf(++this.seq, method, path), this.thread.make(input), `${method} ${path.split('?', 1)[0]}`);
  }

  /** Writes a recording made already (tests, tools). */
  write(recording: Recording): void {
    const name = fileNameOf(++this.seq, recording.request.method, recording.request.path);
    this.writeFile(name, Promise.resolve(new TextEncoder().encode(`${JSON.stringify(recording, null, 2)}\n`)), name);
  }

  private writeFile(name: string, made: Promise<Uint8Array>, what: string): void {
    const path = join(this.dir, name);
    // Written whole, then renamed: a replay never reads half a file.
    const tmp = join(this.dir, `.${name}.tmp`);
    this.writing.add(tmp);
    made
      .then(
        (bytes) =>
          writeFile(tmp, bytes)
            .then(() => rename(tmp, path))
            .then(() => {
              // Said once per outage, not once per process: the next one must not go unnoticed either.
              if (!this.warned) return;
              this.warned = false;
              console.error(`[record] Writing to ${this.dir} works again (${name}).`);
            })
            .catch((err: unknown) => {
              // Half a file (a full disk) is no recording: it goes, as far as it can.
              void rm(tmp, { force: true }).catch(() => {});
              if (this.warned) return;
              this.warned = true;
              console.error(`[record] Cannot write ${path}: ${(err as Error).message}. Exchanges are still forwarded, but not recorded.`);
            }),
        (err: unknown) => this.cannotRecord(what, err),
      )
      .finally(() => {
        this.writing.delete(tmp);
        this.changed();
      });
  }
}
