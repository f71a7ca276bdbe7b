import type { Message } from '../../../contract/agents';
import { formatCount } from '../../../lib/format';
import type { Turn } from '../../../engine/thread';

/** Text blocks run together as one paragraph (a stream sends a word per message); anything else is shown as its JSON. */
function MessageBlocks({ messages }: { messages: readonly Message[] }) {
  const parts: ({ kind: 'text'; text: string } | { kind: 'json'; value: unknown })[] = [];
  for (const m of messages) {
    for (const block of Array.isArray(m.content) ? m.content : [m.content]) {
      if (block && typeof block === 'object' && (block as { type?: unknown }).type === 'text' && typeof (block as { text?: unknown }).text === 'string') {
        const last = parts.at(-1);
        if (last?.kind === 'text') last.text += (block as { text: string }).text;
        else parts.push({ kind: 'text', text: (block as { text: string }).text });
      } else parts.push({ kind: 'json', value: block });
    }
  }
  return (
    <>
      {parts.map((p, i) =>
        p.kind === 'text' ? (
          <div key={i} className="turn-text">
            {p.text}
          </div>
        ) : (
          <pre key={i} className="raw" aria-label="Content that is not text">
            {JSON.stringify(p.value, null, 2)}
          </pre>
        ),
      )}
    </>
  );
}

/** Most of an answer's text a turn shows in place; the rest is in its run's details and its export. */
const TURN_TEXT_CHARS = 100_000;

/** A turn's answer as readable blocks: its messages as received, else the text history kept. */
export function answerOf(turn: Turn) {
  if (turn.answerMessages?.length) return <MessageBlocks messages={turn.answerMessages} />;
  if (!turn.transcript) return null;
  if (turn.transcript.length <= TURN_TEXT_CHARS) return <div className="turn-text">{turn.transcript}</div>;
  return (
    <>
      <div className="turn-text">{turn.transcript.slice(0, TURN_TEXT_CHARS)}</div>
      <p className="muted">
        Shown are the first {formatCount(TURN_TEXT_CHARS)} of {formatCount(turn.transcript.length)} characters; the whole answer is in its raw answer below and in
        Export.
      </p>
    </>
  );
}
