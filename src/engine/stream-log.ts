import { MESSAGE_EVENT } from '../contract/sse';
import type { ResponseMeta } from '../lib/api-client';
import type { SseEvent } from '../lib/sse';
import { legacyFailureOf } from './legacy-error';
import { RenderThrottle, timerFrame, type Schedule } from './render-throttle';
import type { RunFailure } from './run-machine';
import type { Flavour } from './run-request';
import { keepFullData, readEvent, type TimelineEntry } from './stream-event';
import { addFragment } from './answer-messages';
import { answerMessages, MAX_ANSWER_MESSAGES } from './thread';
import { Transcript } from './transcript';
import type { Message } from '../contract/agents';

export type { TimelineEntry } from './stream-event';

/** The full data of cut events a stream keeps, in all (as Blobs, outside the JS heap); past it, cut events keep only their beginning. */
export const MAX_FULL_DATA_BYTES = 64_000_000;
/** A conversation's answer is sent back whole in the next turn; past this size it is not kept (answerTruncated). */
export const MAX_ANSWER_BYTES = 4_000_000;
export { failureOf } from './stream-event';

/**
 * What a bounded log (a suite run's) keeps of its events: past either count, an event is
 * counted (its text still joins the transcript) but not kept, and no full data is kept apart.
 */
export interface KeepLimit {
  /** Events kept at most. */
  events: number;
  /** Characters of event data kept at most (a kept event holds at most EVENT_DATA_KEEP of its data). */
  chars: number;
  /** What is left to keep across several logs (a suite run's total): drawn from as each keeps an event. */
  shared?: { events: number; chars: number };
}

/**
 * What a streamed run received, as it arrives: each event read (stream-event), its text added
 * to the transcript (transcript), listeners told at most once per animation frame
 * (render-throttle), and a legacy run's error recognised at the end (legacy-error). Events go
 * into an append-only log outside React. The run's status is not kept here: the run store's
 * state machine owns it, and this log only says what the stream reported.
 */
export class StreamLog {
  readonly events: TimelineEntry[] = [];
  /** The transcript in sealed chunks, so only the last one changes while text arrives. */
  readonly transcript: string[];
  bytes = 0;
  firstEventMs: number | undefined;
  durationMs = 0;
  warnings = 0;
  /** Message events received: what a run that names a count of events is measured against. */
  messageEvents = 0;
  meta: Omit<ResponseMeta, 'rawBody'> | undefined;
  failure: RunFailure | undefined;
  /** A conversation's turn: the answer's messages as received (kept only when asked for: a firehose would fill memory). */
  readonly answerMessages: Message[] | undefined;
  answerTruncated = false;
  readonly subscribe: (listener: () => void) => () => void;
  readonly getVersion: () => number;
  private readonly text = new Transcript();
  private readonly throttle: RenderThrottle;
  /** Text of the last message event, to recognise a legacy error at the end. */
  private lastMessageText = '';
  private lastAt = 0;
  private fullBytes = 0;
  private answerBytes = 0;
  /** Events received, kept or not. */
  private received = 0;
  /** Events received but not kept (past the log's KeepLimit). */
  droppedEvents = 0;
  private limit: KeepLimit | undefined;
  private keptChars = 0;

  constructor(
    readonly flavour: Flavour,
    private readonly startedAt: number = performance.now(),
    schedule: Schedule = timerFrame,
    keepMessages = false,
  ) {
    this.answerMessages = keepMessages ? [] : undefined;
    this.transcript = this.text.chunks;
    this.throttle = new RenderThrottle(schedule);
    this.subscribe = this.throttle.subscribe;
    this.getVersion = this.throttle.getVersion;
  }

  /** Characters of message text the transcript did not keep (transcript.ts says where). */
  get transcriptCut(): number {
    return this.text.cutChars;
  }

  get transcriptText(): string {
    return this.text.text;
  }

  /** Events received, whether kept or not. */
  get eventCount(): number {
    return this.received;
  }

  /** Bounds what the log keeps from now on (a suite run: a server may send events without end). */
  keepAtMost(limit: KeepLimit): void {
    this.limit = limit;
  }

  /** Whether an event is kept: always, unless the log is bounded and full (or the shared total is). */
  private keeps(chars: number): boolean {
    const l = this.limit;
    if (!l) return true;
    if (this.events.length >= l.events || this.keptChars + chars > l.chars) return false;
    if (l.shared && (l.shared.events < 1 || l.shared.chars < chars)) return false;
    this.keptChars += chars;
    if (l.shared) {
      l.shared.events--;
      l.shared.chars -= chars;
    }
    return true;
  }

  private elapsed(): number {
    return Math.round(performance.now() - this.startedAt);
  }

  open(meta: Omit<ResponseMeta, 'rawBody'>): void {
    this.meta = meta;
    this.throttle.notifyNow();
  }

  event(e: SseEvent, at: number = this.elapsed()): void {
    const { entry, text, failure, messages } = readEvent(e, this.received + 1, at, this.received ? at - this.lastAt : at);
    this.received++;
    if (messages && this.answerMessages && !this.answerTruncated) {
      this.answerBytes += entry.bytes;
      if (this.answerBytes > MAX_ANSWER_BYTES) {
        // Nothing of it is sent back, as for an answer of too many messages: let it go.
        this.answerMessages.length = 0;
        this.answerTruncated = true;
      } else {
        // Each event is the next fragment of the answer: the messages they form go back in the next turn.
        for (const m of answerMessages(messages)) addFragment(this.answerMessages, m);
        if (this.answerMessages.length > MAX_ANSWER_MESSAGES) {
          this.answerTruncated = true;
          this.answerMessages.length = 0;
        }
      }
    }
    const kept = this.keeps(entry.data.length);
    if (kept && !this.limit && entry.cut && this.fullBytes + entry.bytes <= MAX_FULL_DATA_BYTES) {
      keepFullData(entry, e.data);
      this.fullBytes += entry.bytes;
    }
    this.lastAt = at;
    this.bytes += entry.bytes;
    this.firstEventMs ??= at;
    this.durationMs = at;
    if (e.event === MESSAGE_EVENT) this.messageEvents++;
    if (text !== undefined) {
      this.text.append(text, entry.seq);
      this.lastMessageText = text;
    }
    if (failure) this.failure = failure;
    if (entry.warning) this.warnings++;
    if (kept) this.events.push(entry);
    else this.droppedEvents++;
    this.throttle.notifySoon(this.received);
  }

  /**
   * The stream is over (closed, broken or stopped): the failure it reported, if any. The
   * legacy API has no error event, so there a last message whose text is an error counts.
   */
  finish(): RunFailure | undefined {
    this.durationMs = this.elapsed();
    if (!this.failure && this.flavour === 'legacy') {
      this.failure = legacyFailureOf(this.lastMessageText, this.meta?.requestId);
      // The error is told as the failure; left in the transcript it would read as the agent's answer.
      if (this.failure) {
        this.text.dropTail(this.lastMessageText);
        // Nor is it an answer to send back in the next turn.
        if (this.answerMessages) dropTailText(this.answerMessages, this.lastMessageText);
      }
    }
    this.throttle.notifyNow();
    return this.failure;
  }
}

/** Takes `text` off the end of the last message (a legacy error joined to the answer), and the message if nothing is left. */
function dropTailText(messages: Message[], text: string): void {
  const last = messages.at(-1);
  const block = last?.content.at(-1);
  if (!last || !block || block.type !== 'text' || !block.text.endsWith(text)) return;
  block.text = block.text.slice(0, block.text.length - text.length);
  if (block.text === '') last.content.pop();
  if (last.content.length === 0) messages.pop();
}
