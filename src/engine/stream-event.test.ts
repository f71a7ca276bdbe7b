import { describe, expect, it } from 'vitest';
import { previewOf, PREVIEW_CHARS, readEvent, textOf, utf8Length } from './stream-event';

const msg = (...texts: string[]) => JSON.stringify({ messages: [{ role: 'GLEAN_AI', content: texts.map((text) => ({ type: 'text', text })) }] });

describe('readEvent', () => {
  it('reads a message event: its text blocks joined, its size in UTF-8 bytes, its timing', () => {
    const data = msg('Grüße ', '👋');
    const { entry, text, failure } = readEvent({ id: '7', event: 'message', data }, 3, 40, 12);
    expect(text).toBe('Grüße 👋');
    expect(failure).toBeUndefined();
    expect(entry).toEqual({ seq: 3, id: '7', event: 'message', at: 40, gap: 12, bytes: new TextEncoder().encode(data).length, data });
  });

  it('reads a run.failed event’s problem details as the failure', () => {
    const error = { type: 't', title: 'Spend Limit Exceeded', status: 403, detail: 'limit', code: 'spend_limit_exceeded', request_id: 'req_1', documentation_url: 'https://d' };
    const { entry, failure, text } = readEvent({ id: '', event: 'run.failed', data: JSON.stringify({ error }) }, 1, 1, 1);
    expect(failure).toEqual({ title: 'Spend Limit Exceeded', detail: 'limit', code: 'spend_limit_exceeded', requestId: 'req_1', documentationUrl: 'https://d', status: 403 });
    expect(text).toBeUndefined();
    expect(entry.warning).toBeUndefined();
  });

  it('keeps what it cannot read as received, with a warning saying why', () => {
    const cases: [string, string, RegExp][] = [
      ['message', '{not json', /not JSON/],
      ['message', JSON.stringify({ messages: 'nope' }), /without messages\[\]\.content\[\] text blocks/],
      ['message', 'null', /without messages/],
      ['run.failed', JSON.stringify({ error: 'boom' }), /without problem details/],
      ['agent.thinking', '{}', /does not know \("agent\.thinking"\)/],
    ];
    for (const [event, data, warning] of cases) {
      const read = readEvent({ id: '1', event, data }, 1, 0, 0);
      expect(read.entry.warning, data).toMatch(warning);
      expect(read.entry.data).toBe(data);
      expect(read.text).toBeUndefined();
    }
    expect(readEvent({ id: '1', event: 'run.failed', data: '{"error":1}' }, 1, 0, 0).failure).toEqual({ title: 'Run failed', detail: '{"error":1}' });
  });
});

describe('textOf and utf8Length', () => {
  it('skips blocks that are not text, and refuses what is not a messages array', () => {
    expect(textOf([{ role: 'GLEAN_AI', content: [{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }] }])).toBe('ab');
    expect(textOf({})).toBeUndefined();
    expect(textOf([{ role: 'GLEAN_AI' }])).toBeUndefined();
  });

  it('counts bytes as the wire does, surrogate pairs as four', () => {
    for (const s of ['', 'abc', 'é', '€', '👋', 'a€👋é\u0000']) expect(utf8Length(s), s).toBe(new TextEncoder().encode(s).length);
  });
});

describe('previewOf', () => {
  const entry = (event: string, data: string) => readEvent({ id: '1', event, data }, 1, 0, 0).entry;

  it('shows a message event as its text on one line', () => {
    expect(previewOf(entry('message', msg('token 12 ')))).toBe('token 12');
    expect(previewOf(entry('message', msg('First line\n\n  second\tline')))).toBe('First line second line');
  });

  it('shows a failure as its title and detail, other JSON compacted, and anything else as received', () => {
    expect(previewOf(entry('run.failed', JSON.stringify({ error: { title: 'Internal Error', status: 500, detail: 'The agent failed.' } })))).toBe('Internal Error: The agent failed.');
    expect(previewOf(entry('agent.thinking', '{\n  "step": "planning",\n  "n": [1, 2]\n}'))).toBe('{"step":"planning","n":[1,2]}');
    expect(previewOf(entry('message', msg('')))).toBe('{"messages":[{"role":"GLEAN_AI","content":[{"type":"text","text":""}]}]}');
    expect(previewOf(entry('message', '{"messages": [unterminated'))).toBe('{"messages": [unterminated');
  });

  it('is bounded however long the data, and computed once per entry', () => {
    const big = entry('message', msg('word '.repeat(100_000)));
    const p = previewOf(big);
    expect(p.length).toBe(PREVIEW_CHARS);
    expect(p.startsWith('word word')).toBe(true);
    expect(previewOf(big)).toBe(p);
  });
});
