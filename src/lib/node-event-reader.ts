/**
 * The event-stream reader of the headless suite runner (`npm run suite`): fetch-event-source
 * needs a page (it removes a `document` listener and clears a `window` timer when a stream
 * ends, whatever its options), so Node reads the stream with eventsource-parser instead, behind
 * the same EventReader contract. Everything else of a stream run is the page's: `streamRun`
 * opens, refuses and classifies it, and `boundedEvents` bounds each event at MAX_EVENT_BYTES.
 * No pacing: there are no frames to leave room for.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { EventReader } from './sse';
import { boundedEvents } from './sse-body';

export const nodeEventReader: EventReader = async (url, init, onopen, onmessage) => {
  const response = await fetch(url, { ...init, credentials: 'omit' });
  await onopen(response);
  if (!response.body) return;
  const events = boundedEvents(response.body)
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onmessage({ id: value.id ?? '', event: value.event ?? '', data: value.data });
    }
  } finally {
    reader.releaseLock();
  }
};
