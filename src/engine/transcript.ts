import { formatCount } from '../lib/format';
import { detached } from './stream-event';

/**
 * The transcript is kept, and rendered, in chunks that are blocks of their own, so new text
 * re-lays out only the last chunk: one block holding all the text is laid out whole on every
 * frame, hundreds of ms at 50,000 events, and the last chunk costs about 1 ms per 4,000
 * characters. A chunk is sealed where a line ends anyway (after a newline) once it has
 * CHUNK_CHARS, so the split does not show; text without newlines is split after whitespace
 * at twice that (a line then ends early), and text without whitespace anywhere at four times.
 */
export const CHUNK_CHARS = 1024;

export function sealed(chunk: string): boolean {
  const n = chunk.length;
  if (n < CHUNK_CHARS) return false;
  if (chunk.charCodeAt(n - 1) === 10) return true;
  if (n < 2 * CHUNK_CHARS) return false;
  return n >= 4 * CHUNK_CHARS || /\s/.test(chunk[n - 1]!);
}

/**
 * Most characters of one message event's text the transcript keeps: the rest is cut, and the
 * cut is said where it happened. The event itself (its first EVENT_DATA_KEEP characters, and
 * its full data while kept) is in the timeline.
 */
export const EVENT_TEXT_KEEP = 8 * 1024;
/**
 * Most characters the transcript keeps in all (a 50,000-event firehose run needs about 600,000):
 * history keeps it, and a conversation's turn shows it in one block.
 */
export const TRANSCRIPT_MAX_CHARS = 1_000_000;

/** The text of a run's messages, as sealed chunks and one open last chunk. */
export class Transcript {
  /** Only the last chunk ever changes; the array only grows. */
  readonly chunks: string[] = [''];
  /** Characters of message text not kept: cut from long events, or past TRANSCRIPT_MAX_CHARS. */
  cutChars = 0;
  private chars = 0;
  private full = false;

  get text(): string {
    return this.chunks.join('');
  }

  /**
   * Adds one message's text (of the `seq`th event) whole to the last chunk (a new one if that is
   * sealed), never split; only its first EVENT_TEXT_KEEP characters, and nothing once the
   * transcript holds TRANSCRIPT_MAX_CHARS, each cut said in the text.
   */
  append(text: string, seq?: number): void {
    if (this.full) {
      this.cutChars += text.length;
      return;
    }
    let kept = text;
    if (text.length > EVENT_TEXT_KEEP) {
      this.cutChars += text.length - EVENT_TEXT_KEEP;
      kept = `${detached(text.slice(0, EVENT_TEXT_KEEP))}\n[… ${formatCount(text.length - EVENT_TEXT_KEEP)} more characters${seq === undefined ? '' : ` of event ${seq}`} cut: the transcript keeps ${formatCount(EVENT_TEXT_KEEP)} of each event; the timeline has the event]\n`;
    }
    if (this.chars + kept.length > TRANSCRIPT_MAX_CHARS) {
      this.full = true;
      this.cutChars += text.length;
      kept = `\n[The transcript stops here: it keeps at most ${formatCount(TRANSCRIPT_MAX_CHARS)} characters. Every event is in the timeline.]\n`;
    }
    this.chars += kept.length;
    let last = this.chunks.length - 1;
    if (sealed(this.chunks[last]!)) {
      this.chunks.push('');
      last++;
    }
    this.chunks[last] += kept;
  }

  /**
   * Takes `tail` off the end when the transcript ends with it: a message's text is never split
   * across chunks, so the last message is wholly in the last chunk. Says whether it did.
   */
  dropTail(tail: string): boolean {
    const last = this.chunks.length - 1;
    if (!tail || !this.chunks[last]!.endsWith(tail)) return false;
    this.chunks[last] = this.chunks[last]!.slice(0, -tail.length);
    this.chars -= tail.length;
    return true;
  }
}
