import { describe, expect, it } from 'vitest';
import type { Message } from '../contract/agents';
import type { HistoryEntry } from './history-entry';
import { joinFragments } from './answer-messages';
import { StreamLog } from './stream-log';
import { historyEntryOf, summaryOf, type RunRecord } from './run-record';
import { initialRunState, runReducer } from './run-machine';
import {
  branchCount,
  branchOf,
  editRequest,
  matches,
  newestLeafUnder,
  pathTo,
  questionOf,
  replyRequest,
  retryRequest,
  retryable,
  sizeOf,
  threadsOf,
  titleOf,
  type Thread,
  type Turn,
} from './thread';

const ai = (text: string): Message => ({ role: 'GLEAN_AI', content: [{ type: 'text', text }] });
const user = (text: string): Message => ({ role: 'USER', content: [{ type: 'text', text }] });
const thread0 = { id: 'thread_1', agentId: 'echo-assistant', agentName: 'Echo Assistant' };
const stream = { flavour: 'platform', mode: 'stream' } as const;

let clock = 1_000;
/** A turn as history keeps it once its run ended. */
function turn(id: string, request: HistoryEntry['request'], answer: Message[], status = 'done'): Turn {
  return {
    id,
    startedAt: clock++,
    request,
    target: { profileLabel: 'p', mode: 'same-origin', baseUrl: '' },
    status,
    durationMs: 5,
    eventCount: answer.length,
    bytes: 0,
    transcript: answer.map((m) => (m.content[0] as { text: string }).text).join(''),
    answerMessages: answer,
  };
}

describe('a conversation, turn by turn', () => {
  it('sends the last request’s messages, then its answer as received, then the new question', () => {
    const r1 = replyRequest(thread0, undefined, 'first?', stream);
    expect(r1.body).toEqual({ messages: [user('first?')], stream: true });
    expect(r1.thread).toEqual({ id: 'thread_1' });
    const t1 = turn('t1', r1, [ai('You '), ai('asked.')]);
    const r2 = replyRequest(thread0, t1, 'second?', { flavour: 'platform', mode: 'wait' });
    expect(r2.body).toEqual({ messages: [user('first?'), ai('You '), ai('asked.'), user('second?')], stream: false });
    expect(r2.thread).toEqual({ id: 'thread_1', parentId: 't1' });
    const t2 = turn('t2', r2, [ai('Again.')]);
    const r3 = replyRequest(thread0, t2, 'third?', { flavour: 'legacy', mode: 'stream' });
    expect(r3.path).toBe('/rest/api/v1/agents/runs/stream');
    expect(r3.body).toEqual({ agent_id: 'echo-assistant', messages: [user('first?'), ai('You '), ai('asked.'), user('second?'), ai('Again.'), user('third?')] });
    const r4 = replyRequest(thread0, turn('t3', r3, [ai('x')]), 'fourth?', { flavour: 'platform', mode: 'durable' });
    expect(r4.body).toMatchObject({ execution_mode: 'DURABLE' });
    expect((r4.body.messages as Message[]).map((m) => m.role)).toEqual(['USER', 'GLEAN_AI', 'GLEAN_AI', 'USER', 'GLEAN_AI', 'USER', 'GLEAN_AI', 'USER']);
  });

  it('retries a failed turn with exactly the messages it sent, after the same turn', () => {
    const t1 = turn('t1', replyRequest(thread0, undefined, 'q1', stream), [ai('a1')]);
    const failed = turn('t2', replyRequest(thread0, t1, 'q2', stream), [], 'failed');
    expect(retryable(failed)).toBe(true);
    expect(retryable(t1)).toBe(false);
    const again = retryRequest(failed, { flavour: 'platform', mode: 'wait' });
    expect(again.body.messages).toEqual(failed.request.body.messages);
    expect(again.thread).toEqual({ id: 'thread_1', parentId: 't1' });
    expect(again.mode).toBe('wait');
  });

  it('branches from an edited question; the old branch stays and the path follows the chosen leaf', () => {
    const t1 = turn('t1', replyRequest(thread0, undefined, 'q1', stream), [ai('a1')]);
    const t2 = turn('t2', replyRequest(thread0, t1, 'q2', stream), [ai('a2')]);
    const t3 = turn('t3', replyRequest(thread0, t2, 'q3', stream), [ai('a3')]);
    const edited = editRequest(t2, 'q2, edited', stream);
    expect(edited.body.messages).toEqual([user('q1'), ai('a1'), user('q2, edited')]);
    expect(edited.thread).toEqual({ id: 'thread_1', parentId: 't1' });
    const t2b = turn('t2b', edited, [ai('a2b')]);
    const thread: Thread = { ...thread0, turns: [t1, t2, t3, t2b] };
    expect(pathTo(thread).map((t) => t.id)).toEqual(['t1', 't2b']);
    expect(pathTo(thread, 't3').map((t) => t.id)).toEqual(['t1', 't2', 't3']);
    expect(branchOf(thread, t2)).toMatchObject({ index: 0, count: 2 });
    expect(branchOf(thread, t2b)).toMatchObject({ index: 1, count: 2 });
    expect(branchOf(thread, t1)).toMatchObject({ index: 0, count: 1 });
    expect(newestLeafUnder(thread, t2).id).toBe('t3');
    // History counts every turn, and says they are in two branches (the one on screen has two turns).
    expect(sizeOf(thread)).toBe('4 turns in 2 branches');
    expect(sizeOf({ ...thread, turns: [t1, t2, t3] })).toBe('3 turns');
    expect(sizeOf({ ...thread, turns: [t1] })).toBe('1 turn');
    // Editing the first question starts a branch with no turn before it.
    const e1 = editRequest(t1, 'q1 again', stream);
    expect(e1.body.messages).toEqual([user('q1 again')]);
    expect(e1.thread).toEqual({ id: 'thread_1' });
    const t1b = turn('t1b', e1, [ai('b')]);
    const two: Thread = { ...thread, turns: [...thread.turns, t1b] };
    expect(branchOf(two, t1b)).toMatchObject({ index: 1, count: 2 });
    expect(pathTo(two).map((t) => t.id)).toEqual(['t1b']);
    expect(branchCount(two)).toBe(3);
  });

  it('groups runs into threads, newest first, titled by their first question and searchable', () => {
    const a1 = turn('a1', replyRequest({ ...thread0, id: 'A' }, undefined, 'Hello there', stream), [ai('hi')]);
    const lone = turn('lone', { agentId: 'hr-policy-form', flavour: 'platform', mode: 'stream', path: '/x', body: { input: {} } }, []);
    const b1 = turn('b1', replyRequest({ ...thread0, id: 'B' }, undefined, 'Other', stream), [ai('answer with Zebra')]);
    const a2 = turn('a2', replyRequest({ ...thread0, id: 'A' }, a1, 'More', stream), [ai('ok')]);
    const threads = threadsOf([b1, lone, a2, a1]);
    expect(threads.map((t) => [t.id, t.turns.map((x) => x.id)])).toEqual([
      ['A', ['a1', 'a2']],
      ['B', ['b1']],
    ]);
    expect(titleOf(threads[0]!)).toBe('Hello there');
    expect(matches(threads[1]!, 'zebra')).toBe(true);
    expect(matches(threads[0]!, 'zebra')).toBe(false);
    expect(matches(threads[0]!, 'MORE')).toBe(true);
    expect(questionOf(a2.request)).toBe('More');
  });

  it('a turn whose parent history let go starts the path anew instead of vanishing', () => {
    const orphan = turn('t5', { ...replyRequest(thread0, undefined, 'q5', stream), thread: { id: 'thread_1', parentId: 'gone' } }, [ai('a5')]);
    const thread: Thread = { ...thread0, turns: [orphan] };
    expect(pathTo(thread).map((t) => t.id)).toEqual(['t5']);
    expect(branchOf(thread, orphan)).toMatchObject({ index: 0, count: 1 });
  });
});

describe('a turn’s answer messages, whatever the kind of run', () => {
  const base = (request: HistoryEntry['request'], patch: Partial<RunRecord>): RunRecord => ({
    id: 'r1',
    origin: 'sent',
    request,
    target: { profileId: 'p', profileLabel: 'p', mode: 'same-origin', target: '', baseUrl: '', fingerprint: 'f' },
    startedAt: 0,
    state: runReducer(initialRunState, { type: 'send', at: 0 }),
    ...patch,
  });

  it('a stream’s message events are fragments of its answer: they go back as the one message they form, also once its log is let go', () => {
    const request = replyRequest(thread0, undefined, 'q', stream);
    const log = new StreamLog('platform', 0, () => () => {}, true);
    // The platform's own example stream (createRun in src/contract/spec/platform.json).
    log.event({ id: '1', event: 'message', data: JSON.stringify({ messages: [ai('Hello')] }) }, 1);
    log.event({ id: '2', event: 'message', data: JSON.stringify({ messages: [ai(', I can help with HR policy questions.')] }) }, 2);
    log.event({ id: '3', event: 'run.failed', data: '{}' }, 3);
    expect(historyEntryOf(base(request, { log })).answerMessages).toEqual([ai('Hello, I can help with HR policy questions.')]);
    expect(historyEntryOf(base(request, { summary: summaryOf(log) })).answerMessages).toEqual([ai('Hello, I can help with HR policy questions.')]);
  });

  it('joins fragments of one role in order, concatenating text parts, and keeps other parts where they came', () => {
    const image = { type: 'image', url: 'https://example.test/a.png' } as unknown as Message['content'][number];
    const fragments: Message[] = [ai('One '), { role: 'GLEAN_AI', content: [{ type: 'text', text: 'two ' }, image, { type: 'text', text: 'three' }] }, ai(' four'), user('next'), ai('five')];
    expect(joinFragments(fragments)).toEqual([
      { role: 'GLEAN_AI', content: [{ type: 'text', text: 'One two ' }, image, { type: 'text', text: 'three four' }] },
      user('next'),
      ai('five'),
    ]);
    // The fragments themselves are left as they were.
    expect(fragments[0]).toEqual(ai('One '));
  });

  it('joins adjacent text parts of the first fragment too, as of every later one', () => {
    const image = { type: 'image', url: 'https://example.test/a.png' } as unknown as Message['content'][number];
    const first: Message = { role: 'GLEAN_AI', content: [{ type: 'text', text: 'Hel' }, { type: 'text', text: 'lo' }, image, { type: 'text', text: ' a' }, { type: 'text', text: 'nd' }] };
    expect(joinFragments([first, ai(' more')])).toEqual([{ role: 'GLEAN_AI', content: [{ type: 'text', text: 'Hello' }, image, { type: 'text', text: ' and more' }] }]);
    expect(first.content.map((b) => (b.type === 'text' ? b.text : b.type))).toEqual(['Hel', 'lo', 'image', ' a', 'nd']);
    // The stream's log forms them alike, from the first event on.
    const log = new StreamLog('platform', 0, () => () => {}, true);
    log.event({ id: '1', event: 'message', data: JSON.stringify({ messages: [first] }) }, 1);
    expect(log.answerMessages).toEqual([{ role: 'GLEAN_AI', content: [{ type: 'text', text: 'Hello' }, image, { type: 'text', text: ' and' }] }]);
  });

  it('a run outside a conversation keeps no messages (a firehose would fill memory)', () => {
    const log = new StreamLog('platform', 0, () => () => {});
    log.event({ id: '1', event: 'message', data: JSON.stringify({ messages: [ai('x')] }) }, 1);
    expect(log.answerMessages).toBeUndefined();
    const request = { agentId: 'a', flavour: 'platform', mode: 'stream', path: '/x', body: { messages: [user('q')] } } as const;
    expect(historyEntryOf(base(request, { log })).answerMessages).toBeUndefined();
  });

  it('a legacy stream whose last message is its error does not send that error back as an answer', () => {
    const log = new StreamLog('legacy', 0, () => () => {}, true);
    log.event({ id: '1', event: 'message', data: JSON.stringify({ messages: [ai('partial ')] }) }, 1);
    log.event({ id: '2', event: 'message', data: JSON.stringify({ messages: [ai('Error: something went wrong (request abc)')] }) }, 2);
    expect(log.finish()?.title).toMatch(/error/);
    expect(log.answerMessages).toEqual([ai('partial ')]);
    const whole = new StreamLog('legacy', 0, () => () => {}, true);
    whole.event({ id: '1', event: 'message', data: JSON.stringify({ messages: [ai('Error: something went wrong (request abc)')] }) }, 1);
    whole.finish();
    expect(whole.answerMessages).toEqual([]);
  });

  it('a wait answer and a durable run’s output give their GLEAN_AI messages', () => {
    const wait = replyRequest(thread0, undefined, 'q', { flavour: 'platform', mode: 'wait' });
    const answer = { data: { run: { agent_id: 'a', status: 'success' as const }, messages: [user('q'), ai('a1'), ai('a2')] } } as RunRecord['answer'];
    expect(historyEntryOf(base(wait, { answer })).answerMessages).toEqual([ai('a1'), ai('a2')]);
    const durable = replyRequest(thread0, undefined, 'q', { flavour: 'platform', mode: 'durable' });
    const run = { run_id: 'x', agent_id: 'a', state: 'SUCCEEDED', created_at: '', updated_at: '', pending_interactions: [], output: { messages: [ai('done')] } };
    const state = runReducer(runReducer(initialRunState, { type: 'send', at: 0 }), { type: 'observe', at: 1, snapshot: { run, requestId: 'r', readAt: 1 } });
    expect(historyEntryOf(base(durable, { state })).answerMessages).toEqual([ai('done')]);
  });
});
