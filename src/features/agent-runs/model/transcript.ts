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

/** The text of a run's messages, as sealed chunks and one open last chunk. */
export class Transcript {
  /** Only the last chunk ever changes; the array only grows. */
  readonly chunks: string[] = [''];

  get text(): string {
    return this.chunks.join('');
  }

  /** Adds one message's text whole to the last chunk (a new one if that is sealed), never split. */
  append(text: string): void {
    let last = this.chunks.length - 1;
    if (sealed(this.chunks[last]!)) {
      this.chunks.push('');
      last++;
    }
    this.chunks[last] += text;
  }

  /**
   * Takes `tail` off the end when the transcript ends with it: a message's text is never split
   * across chunks, so the last message is wholly in the last chunk. Says whether it did.
   */
  dropTail(tail: string): boolean {
    const last = this.chunks.length - 1;
    if (!tail || !this.chunks[last]!.endsWith(tail)) return false;
    this.chunks[last] = this.chunks[last]!.slice(0, -tail.length);
    return true;
  }
}
