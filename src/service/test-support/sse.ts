import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** What an event stream carried, in order: dispatched events and comment lines. */
export type SseItem = { kind: 'event'; event: EventSourceMessage } | { kind: 'comment'; text: string };

function collector() {
  const items: SseItem[] = [];
  const parser = createParser({
    onEvent: (event) => items.push({ kind: 'event', event }),
    onComment: (text) => items.push({ kind: 'comment', text }),
    onError: (err) => {
      throw err;
    },
  });
  return { items, parser };
}

/** Parses a whole event-stream text with the independent parser. */
export function parseSseText(text: string): SseItem[] {
  const { items, parser } = collector();
  parser.feed(text);
  return items;
}

export function eventsOf(items: readonly SseItem[]): EventSourceMessage[] {
  return items.flatMap((i) => (i.kind === 'event' ? [i.event] : []));
}

export interface SseRead {
  items: SseItem[];
  /** Every byte received, decoded. */
  raw: string;
  /** True when the server ended the stream; false when `until` stopped the reading. */
  ended: boolean;
}

/**
 * Reads an event-stream body chunk by chunk through eventsource-parser. `until` is asked
 * after every chunk; when it says stop, reading stops (the caller aborts the request).
 */
export async function readSse(
  body: ReadableStream<Uint8Array> | null,
  until?: (items: readonly SseItem[]) => boolean,
): Promise<SseRead> {
  if (!body) throw new Error('The response has no body.');
  const { items, parser } = collector();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let raw = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const text = decoder.decode(value, { stream: true });
    raw += text;
    parser.feed(text);
    if (until?.(items)) {
      reader.releaseLock();
      return { items, raw, ended: false };
    }
  }
  const rest = decoder.decode();
  raw += rest;
  parser.feed(rest);
  return { items, raw, ended: true };
}

/** The answer text of `message` events: their text blocks joined in order. */
export function answerText(events: readonly EventSourceMessage[]): string {
  return events
    .filter((e) => e.event === 'message')
    .map((e) => (JSON.parse(e.data) as { messages: { content: { text: string }[] }[] }).messages)
    .flatMap((messages) => messages.flatMap((m) => m.content.map((b) => b.text)))
    .join('');
}
