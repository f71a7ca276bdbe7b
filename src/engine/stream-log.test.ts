import { describe, expect, it } from 'vitest';
import { EVENT_DATA_KEEP, fullDataOf, previewOf } from './stream-event';
import { MAX_ANSWER_BYTES, MAX_FULL_DATA_BYTES, StreamLog } from './stream-log';
import { EVENT_TEXT_KEEP, TRANSCRIPT_MAX_CHARS } from './transcript';

const msg = (text: string) => JSON.stringify({ messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text }] }] });
const manual = () => {
  const queue: (() => void)[] = [];
  const delays: number[] = [];
  return {
    schedule: (fn: () => void, delayMs: number) => {
      queue.push(fn);
      delays.push(delayMs);
    },
    flush: () => queue.splice(0).forEach((f) => f()),
    queue,
    delays,
  };
};

function session(flavour: 'legacy' | 'platform' = 'platform') {
  const frames = manual();
  const s = new StreamLog(flavour, 0, frames.schedule);
  s.open({ method: 'POST', url: '/x', status: 200, durationMs: 5, headers: [], receivedAt: 0 });
  return { s, frames };
}

describe('stream event handling', () => {
  it('concatenates text blocks in order and counts events and bytes', () => {
    const { s } = session();
    s.event({ id: '1', event: 'message', data: msg('Hello') }, 10);
    s.event({ id: '2', event: 'message', data: msg(', world') }, 25);
    expect(s.finish()).toBeUndefined();
    expect(s.transcriptText).toBe('Hello, world');
    expect(s.events.map((e) => [e.seq, e.id, e.at, e.gap])).toEqual([
      [1, '1', 10, 10],
      [2, '2', 25, 15],
    ]);
    expect(s.bytes).toBe(msg('Hello').length + msg(', world').length);
    expect(s.firstEventMs).toBe(10);
  });

  it('notifies listeners once per frame however many events arrive', () => {
    const { s, frames } = session();
    let renders = 0;
    s.subscribe(() => renders++);
    for (let i = 0; i < 1000; i++) s.event({ id: String(i), event: 'message', data: msg('x') }, i);
    expect(renders).toBe(0);
    expect(frames.queue).toHaveLength(1);
    frames.flush();
    expect(renders).toBe(1);
    expect(s.events).toHaveLength(1000);
  });

  it('spaces renders out while events flood in, and not for a slower stream', () => {
    const { s, frames } = session();
    let renders = 0;
    s.subscribe(() => renders++);
    s.event({ id: '1', event: 'message', data: msg('x') }, 1);
    frames.flush();
    // A few events a frame, as a model's tokens: the next frame, no wait.
    for (let i = 0; i < 5; i++) s.event({ id: String(i), event: 'message', data: msg('x') }, i);
    frames.flush();
    s.event({ id: 'a', event: 'message', data: msg('x') }, 10);
    expect(frames.delays.at(-1)).toBe(0);
    frames.flush();
    // Hundreds in one frame: the next render waits about 100 ms.
    for (let i = 0; i < 500; i++) s.event({ id: String(i), event: 'message', data: msg('x') }, 20);
    frames.flush();
    s.event({ id: 'b', event: 'message', data: msg('x') }, 30);
    expect(frames.delays.at(-1)).toBeGreaterThan(50);
    expect(frames.delays.at(-1)).toBeLessThanOrEqual(100);
    frames.flush();
    expect(renders).toBe(5);
    expect(s.events).toHaveLength(508);
  });

  it('seals transcript chunks where a line ends, else after whitespace, so a split rarely shows', () => {
    const { s } = session();
    const line = 'word '.repeat(60) + '\n'; // 301 characters
    for (let i = 0; i < 20; i++) s.event({ id: String(i), event: 'message', data: msg(line) }, i);
    expect(s.transcript.slice(0, -1).every((c) => c.endsWith('\n') && c.length >= 1024 && c.length < 2048)).toBe(true);
    const { s: t } = session();
    for (let i = 0; i < 2000; i++) t.event({ id: String(i), event: 'message', data: msg(`token ${i} `) }, i);
    expect(t.transcript.length).toBeGreaterThan(2);
    expect(t.transcript.slice(0, -1).every((c) => c.endsWith(' ') && c.length >= 2048 && c.length < 2100)).toBe(true);
    expect(t.transcriptText).toBe(Array.from({ length: 2000 }, (_, i) => `token ${i} `).join(''));
  });

  it('keeps the transcript in bounded chunks so only the last one changes', () => {
    const { s } = session();
    for (let i = 0; i < 3000; i++) s.event({ id: String(i), event: 'message', data: msg('abcd') }, i);
    expect(s.transcript.length).toBeGreaterThan(2);
    expect(s.transcript.slice(0, -1).every((c) => c.length === 4096)).toBe(true);
    expect(s.transcriptText).toBe('abcd'.repeat(3000));
  });

  it('fails the run on a platform run.failed event with its problem details', () => {
    const { s } = session();
    s.event({ id: '1', event: 'message', data: msg('partial') }, 1);
    s.event({
      id: '2',
      event: 'run.failed',
      data: JSON.stringify({ error: { type: 't', title: 'Spend Limit Exceeded', status: 403, detail: 'limit', code: 'spend_limit_exceeded', request_id: 'req_1', documentation_url: 'https://d' } }),
    }, 2);
    expect(s.finish()).toEqual({ title: 'Spend Limit Exceeded', detail: 'limit', code: 'spend_limit_exceeded', requestId: 'req_1', documentationUrl: 'https://d', status: 403 });
    expect(s.transcriptText).toBe('partial');
  });

  it('fails a legacy run whose last message carries an error', () => {
    const { s } = session('legacy');
    s.event({ id: '1', event: 'message', data: msg('Working. ') }, 1);
    s.event({ id: '2', event: 'message', data: msg('Error: Spend Limit Exceeded: limit (spend_limit_exceeded)') }, 2);
    expect(s.finish()).toMatchObject({ title: 'the agent’s last message is an error', detail: 'Error: Spend Limit Exceeded: limit (spend_limit_exceeded)' });
    // Told once, as the failure: not glued to the answer's text.
    expect(s.transcriptText).toBe('Working. ');
  });

  it('does not call a platform run failed for text that merely starts with Error', () => {
    const { s } = session('platform');
    s.event({ id: '1', event: 'message', data: msg('Error handling is explained below.') }, 1);
    expect(s.finish()).toBeUndefined();
  });

  it('shows malformed data raw with a warning and keeps reading', () => {
    const { s } = session();
    s.event({ id: '1', event: 'message', data: '{not json' }, 1);
    s.event({ id: '2', event: 'surprise', data: '{}' }, 2);
    s.event({ id: '3', event: 'message', data: JSON.stringify({ messages: 'nope' }) }, 3);
    s.event({ id: '4', event: 'message', data: msg('still fine') }, 4);
    expect(s.finish()).toBeUndefined();
    expect(s.warnings).toBe(3);
    expect(s.events[0]!.warning).toMatch(/not JSON/);
    expect(s.events[0]!.data).toBe('{not json');
    expect(s.events[1]!.warning).toMatch(/surprise/);
    expect(s.transcriptText).toBe('still fine');
  });

  it('tells listeners at once when the stream opens and when it is over, without waiting for a frame', () => {
    const frames = manual();
    const s = new StreamLog('platform', 0, frames.schedule);
    let renders = 0;
    s.subscribe(() => renders++);
    s.open({ method: 'POST', url: '/x', status: 200, durationMs: 5, headers: [], receivedAt: 0 });
    expect(renders).toBe(1);
    s.finish();
    expect(renders).toBe(2);
    expect(frames.queue).toHaveLength(0);
  });
});

describe('message events', () => {
  it('counts message events apart from the others, for progress against a requested count', () => {
    const { s } = session();
    s.event({ id: '1', event: 'message', data: msg('a') }, 1);
    s.event({ id: '2', event: 'agent.thinking', data: '{}' }, 2);
    s.event({ id: '3', event: 'message', data: '{not json' }, 3);
    expect([s.events.length, s.messageEvents]).toEqual([3, 2]);
  });
});

describe('what one event, and the whole stream, may keep (issue 27)', () => {
  const MB = 1024 * 1024;
  const big = (n: number) => msg(`Event ${n} begins. ${'lorem ipsum '.repeat(Math.ceil(MB / 12))}`);

  it('keeps the beginning of a 1 MB event, says it was cut and keeps its full data apart', async () => {
    const { s } = session();
    const data = big(1);
    s.event({ id: '1', event: 'message', data }, 10);
    const [entry] = s.events;
    expect(entry!.data).toBe(data.slice(0, EVENT_DATA_KEEP));
    expect(entry!.cut).toEqual({ chars: data.length });
    expect(entry!.bytes).toBe(data.length);
    expect(previewOf(entry!)).toMatch(/^Event 1 begins\. lorem ipsum/);
    const full = fullDataOf(entry!);
    expect(full?.size).toBe(data.length);
    expect(await full!.text()).toBe(data);
    expect(s.transcriptText).toMatch(/^Event 1 begins\. lorem ipsum/);
    expect(s.transcriptText).toContain(`characters of event 1 cut`);
    expect(s.transcriptText.length).toBeLessThan(EVENT_TEXT_KEEP + 200);
    expect(s.transcriptCut).toBeGreaterThan(MB - EVENT_TEXT_KEEP - 100);
  });

  it('keeps the full data of cut events up to its budget, then only their beginning', () => {
    const { s } = session();
    const data = big(0);
    const fits = Math.floor(MAX_FULL_DATA_BYTES / data.length);
    for (let i = 1; i <= fits + 2; i++) s.event({ id: String(i), event: 'message', data }, i);
    expect(s.events.filter((e) => fullDataOf(e) !== undefined)).toHaveLength(fits);
    expect(fullDataOf(s.events.at(-1)!)).toBeUndefined();
    expect(s.events.every((e) => e.data.length === EVENT_DATA_KEEP)).toBe(true);
    expect(s.bytes).toBe(data.length * (fits + 2));
  });

  it('stops the transcript at its limit, saying so, and counts every event on', () => {
    const { s } = session();
    const text = 'x'.repeat(EVENT_TEXT_KEEP);
    const n = Math.ceil(TRANSCRIPT_MAX_CHARS / EVENT_TEXT_KEEP) + 5;
    for (let i = 1; i <= n; i++) s.event({ id: String(i), event: 'message', data: msg(text) }, i);
    expect(s.transcriptText.length).toBeLessThanOrEqual(TRANSCRIPT_MAX_CHARS);
    expect(s.transcriptText).toContain('The transcript stops here');
    expect(s.events).toHaveLength(n);
  });

  it('does not keep a conversation’s answer past its size: it is marked as not sent back whole', () => {
    const frames = manual();
    const s = new StreamLog('platform', 0, frames.schedule, true);
    for (let i = 1; i <= 3; i++) s.event({ id: String(i), event: 'message', data: msg('y'.repeat(MAX_ANSWER_BYTES / 2)) }, i);
    expect(s.answerTruncated).toBe(true);
    expect(s.answerMessages).toEqual([]);
  });

  it('bounded (a suite run’s), keeps at most its events and characters, and the shared total, and counts every event on', () => {
    const shared = { events: 7, chars: 1_000_000 };
    const { s } = session();
    s.keepAtMost({ events: 5, chars: 1_000_000, shared });
    for (let i = 1; i <= 8; i++) s.event({ id: String(i), event: 'message', data: msg(`w${i} `) }, i);
    expect(s.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(s.droppedEvents).toBe(3);
    expect(s.eventCount).toBe(8);
    expect(s.transcriptText).toBe('w1 w2 w3 w4 w5 w6 w7 w8 ');
    // A second log draws on what the first left of the total.
    const other = session().s;
    other.keepAtMost({ events: 5, chars: 1_000_000, shared });
    for (let i = 1; i <= 4; i++) other.event({ id: String(i), event: 'message', data: msg('x') }, i);
    expect(other.events).toHaveLength(2);
    expect(shared.events).toBe(0);
    // By characters: a cut megabyte event is kept as its beginning, and no full data apart.
    const big = session().s;
    big.keepAtMost({ events: 100, chars: EVENT_DATA_KEEP * 2 });
    for (let i = 1; i <= 3; i++) big.event({ id: String(i), event: 'message', data: msg('z'.repeat(1_000_000)) }, i);
    expect(big.events).toHaveLength(2);
    expect(fullDataOf(big.events[0]!)).toBeUndefined();
    expect(big.eventCount).toBe(3);
  });
});
