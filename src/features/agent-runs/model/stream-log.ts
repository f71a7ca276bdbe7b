import type { Message } from '../../../contract/agents';
import { isProblemDetail, type ProblemDetail } from '../../../contract/problem';
import { MESSAGE_EVENT, RUN_FAILED_EVENT } from '../../../contract/sse';
import type { ResponseMeta } from '../../../lib/api-client';
import type { SseEvent } from '../../../lib/sse';
import type { RunFailure } from './run-machine';
import type { Flavour } from './run-request';

export interface TimelineEntry {
  seq: number;
  id: string;
  event: string;
  /** ms since the POST was sent */
  at: number;
  /** ms since the previous event */
  gap: number;
  bytes: number;
  data: string;
  /** Why the event could not be read as the contract says, if it could not. */
  warning?: string;
}


/**
 * The transcript is kept, and rendered, in chunks that are blocks of their own, so new text
 * re-lays out only the last chunk: one block holding all the text is laid out whole on every
 * frame, hundreds of ms at 50,000 events, and the last chunk costs about 1 ms per 4,000
 * characters. A chunk is sealed where a line ends anyway (after a newline) once it has
 * CHUNK_CHARS, so the split does not show; text without newlines is split after whitespace
 * at twice that (a line then ends early), and text without whitespace anywhere at four times.
 */
const CHUNK_CHARS = 1024;

function sealed(chunk: string): boolean {
  const n = chunk.length;
  if (n < CHUNK_CHARS) return false;
  if (chunk.charCodeAt(n - 1) === 10) return true;
  if (n < 2 * CHUNK_CHARS) return false;
  return n >= 4 * CHUNK_CHARS || /\s/.test(chunk[n - 1]!);
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function textOf(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  let out = '';
  for (const m of messages as Message[]) {
    if (!m || !Array.isArray(m.content)) return undefined;
    for (const block of m.content) if (block && block.type === 'text' && typeof block.text === 'string') out += block.text;
  }
  return out;
}

/** A legacy stream has no error event: a failed run ends with a message whose text is the error. */
const LEGACY_ERROR_TEXT = /^\s*error\b[:\s]/i;

/**
 * A render of the run costs several ms of layout and paint whatever the number of events
 * (the rows on screen, the last transcript chunk). When events flood in (a batch of
 * FLOOD_BATCH or more since the last render, thousands a second), rendering every frame
 * would take a large share of the main thread from reading them; renders are then spaced
 * FLOOD_INTERVAL_MS apart, ten a second. A stream slower than that, any model's tokens,
 * renders at every frame.
 */
const FLOOD_BATCH = 64;
const FLOOD_INTERVAL_MS = 100;

/** Runs `fn` at the animation frame after `delayMs`. */
function nextFrame(fn: () => void, delayMs: number): void {
  if (delayMs > 0) setTimeout(() => requestAnimationFrame(fn), delayMs);
  else requestAnimationFrame(fn);
}

/**
 * What a streamed run received, as it arrives. Events go into an append-only log outside
 * React; listeners are told at most once per animation frame (ten times a second in a
 * flood), so 50,000 events cost a few dozen renders. The run's status is not kept here: the
 * run store's state machine owns it, and this log only says what the stream reported.
 */
export class StreamLog {
  readonly events: TimelineEntry[] = [];
  /** The transcript in sealed chunks, so only the last one changes while text arrives. */
  readonly transcript: string[] = [''];
  bytes = 0;
  firstEventMs: number | undefined;
  durationMs = 0;
  warnings = 0;
  meta: Omit<ResponseMeta, 'rawBody'> | undefined;
  failure: RunFailure | undefined;
  /** Text of the last message event, to recognise a legacy error at the end. */
  private lastMessageText = '';
  private lastAt = 0;
  private version = 0;
  private scheduled = false;
  /** When listeners were last told, and how many events they had seen then and the time before. */
  private notifiedAt = -Infinity;
  private notifiedEvents = 0;
  private lastBatch = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly flavour: Flavour,
    private readonly startedAt: number = performance.now(),
    private readonly schedule: (fn: () => void, delayMs: number) => void = nextFrame,
  ) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getVersion = (): number => this.version;

  get transcriptText(): string {
    return this.transcript.join('');
  }

  private changed(now = false): void {
    if (now) {
      this.version++;
      for (const l of this.listeners) l();
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    const delay = this.lastBatch >= FLOOD_BATCH ? this.notifiedAt + FLOOD_INTERVAL_MS - performance.now() : 0;
    this.schedule(() => {
      this.scheduled = false;
      this.notifiedAt = performance.now();
      this.lastBatch = this.events.length - this.notifiedEvents;
      this.notifiedEvents = this.events.length;
      this.version++;
      for (const l of this.listeners) l();
    }, delay);
  }

  private elapsed(): number {
    return Math.round(performance.now() - this.startedAt);
  }

  open(meta: Omit<ResponseMeta, 'rawBody'>): void {
    this.meta = meta;
    this.changed(true);
  }

  private append(text: string): void {
    let last = this.transcript.length - 1;
    if (sealed(this.transcript[last]!)) {
      this.transcript.push('');
      last++;
    }
    this.transcript[last] += text;
  }

  event(e: SseEvent, at: number = this.elapsed()): void {
    const bytes = utf8Length(e.data);
    const entry: TimelineEntry = { seq: this.events.length + 1, id: e.id, event: e.event, at, gap: this.events.length ? at - this.lastAt : at, bytes, data: e.data };
    this.lastAt = at;
    this.bytes += bytes;
    this.firstEventMs ??= at;
    this.durationMs = at;
    let parsed: unknown;
    try {
      parsed = JSON.parse(e.data);
    } catch {
      entry.warning = 'The data is not JSON; shown as received.';
    }
    if (!entry.warning) {
      if (e.event === MESSAGE_EVENT) {
        const text = textOf((parsed as { messages?: unknown } | null)?.messages);
        if (text === undefined) entry.warning = 'A message event without messages[].content[] text blocks.';
        else {
          this.append(text);
          this.lastMessageText = text;
        }
      } else if (e.event === RUN_FAILED_EVENT) {
        const error = (parsed as { error?: unknown } | null)?.error;
        this.failure = isProblemDetail(error) ? failureOf(error) : { title: 'Run failed', detail: e.data };
        if (!isProblemDetail(error)) entry.warning = 'A run.failed event without problem details.';
      } else {
        entry.warning = `An event this console does not know ("${e.event}").`;
      }
    }
    if (entry.warning) this.warnings++;
    this.events.push(entry);
    this.changed();
  }

  /**
   * The stream is over (closed, broken or stopped): the failure it reported, if any. The
   * legacy API has no error event, so there a last message whose text is an error counts.
   */
  finish(): RunFailure | undefined {
    this.durationMs = this.elapsed();
    if (!this.failure && this.flavour === 'legacy' && LEGACY_ERROR_TEXT.test(this.lastMessageText)) {
      this.failure = { title: 'the agent’s last message is an error', detail: this.lastMessageText.trim(), requestId: this.meta?.requestId };
      // The error is told as the failure; left in the transcript it would read as the agent's answer.
      const last = this.transcript.length - 1;
      if (this.transcript[last]!.endsWith(this.lastMessageText)) this.transcript[last] = this.transcript[last]!.slice(0, -this.lastMessageText.length);
    }
    this.changed(true);
    return this.failure;
  }
}

export function failureOf(p: ProblemDetail): RunFailure {
  return { title: p.title, detail: p.detail, code: p.code, requestId: p.request_id, documentationUrl: p.documentation_url, status: p.status };
}
