import { describe, expect, it } from 'vitest';
import type { Message } from '../contract/agents';
import type { HistoryEntry } from './history-entry';
import { replyRequest, threadsOf, pathTo, type Turn } from './thread';
import { cycleOf, entriesOfFile, EXPORTED_IN_FLIGHT, MAX_FILE_BYTES, parseThreadFile, sizeProblem, threadFileOf } from './thread-file';

const ai = (text: string): Message => ({ role: 'GLEAN_AI', content: [{ type: 'text', text }] });
const thread0 = { id: 'thread_x', agentId: 'echo-assistant', agentName: 'Echo Assistant' };
let clock = 1_700_000_000_000;

function turn(id: string, request: HistoryEntry['request'], answer: Message[], patch: Partial<Turn> = {}): Turn {
  return {
    id,
    startedAt: clock++,
    request,
    target: { profileId: 'p1', profileLabel: 'Work', mode: 'direct', baseUrl: 'https://example.test' },
    status: 'done',
    durationMs: 12,
    eventCount: answer.length,
    bytes: 99,
    transcript: answer.map((m) => (m.content[0] as { text: string }).text).join(''),
    answerMessages: answer,
    meta: { method: 'POST', url: 'https://example.test/api/agents/echo-assistant/runs', status: 200, durationMs: 5, requestId: 'req_1', headers: [['x-secret-header', 'v']], receivedAt: 0 },
    ...patch,
  };
}

function conversation() {
  const t1 = turn('t1', replyRequest(thread0, undefined, 'hello', { flavour: 'platform', mode: 'stream' }), [ai('Hi '), ai('there')]);
  const t2 = turn('t2', replyRequest(thread0, t1, 'more', { flavour: 'legacy', mode: 'wait' }), [ai('More.')]);
  const t2b = turn('t2b', replyRequest(thread0, t1, 'other', { flavour: 'platform', mode: 'durable' }), [], { status: 'FAILED', runId: 'run_9', failure: { title: 'boom', detail: 'it broke', code: 'x' } });
  return threadsOf([t1, t2, t2b])[0]!;
}

describe('a conversation file', () => {
  it('holds every turn of every branch with its request, answer, summarized events and timings, and no token or header', async () => {
    const thread = conversation();
    const file = threadFileOf(thread, new Date('2026-11-25T00:00:00Z'));
    expect(file).toMatchObject({ format: 'metadata-agents-console/thread', version: 1, thread: { id: 'thread_x', title: 'hello', agent: { id: 'echo-assistant', name: 'Echo Assistant' } } });
    expect(file.turns.map((t) => [t.id, t.parentId, t.request.api, t.request.mode, t.status])).toEqual([
      ['t1', undefined, 'platform', 'stream', 'done'],
      ['t2', 't1', 'legacy', 'wait', 'done'],
      ['t2b', 't1', 'platform', 'durable', 'FAILED'],
    ]);
    expect(file.turns[1]!.request).toMatchObject({ method: 'POST', path: '/rest/api/v1/agents/runs/wait', body: { agent_id: 'echo-assistant' } });
    expect(file.turns[0]!.answer).toEqual({ messages: [ai('Hi '), ai('there')], text: 'Hi there' });
    expect(file.turns[0]!).toMatchObject({ durationMs: 12, events: { count: 2, bytes: 99 }, response: { status: 200, requestId: 'req_1' } });
    const text = JSON.stringify(file);
    expect(text).not.toMatch(/authorization|bearer|x-secret-header|example\.test|Work/i);
    expect(await parseThreadFile(text)).toEqual({ ok: true, file });
  });

  it('refuses one run’s export (History › Export JSON) saying what it is and which file to pick, and any other JSON by the format it needs', async () => {
    const run = conversation().turns[0]!;
    expect(await parseThreadFile(JSON.stringify(run, null, 2))).toEqual({
      ok: false,
      error:
        'The file is one run’s record (History › Export JSON, or Export last turn in a conversation), which is for reading, not importing. Import conversation… reads the files of Export conversation.',
    });
    expect(await parseThreadFile('{"format":"something-else"}')).toEqual({
      ok: false,
      error: 'The file is not a conversation exported by this console: it needs "format": "metadata-agents-console/thread".',
    });
  });

  it('refuses a conversation turn’s export by the name of the button that made it (History › Export last turn: a turn’s row has no Export JSON)', async () => {
    const turnOfConversation = conversation().turns[0]!;
    const parsed = await parseThreadFile(JSON.stringify(turnOfConversation, null, 2));
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatch(/Export last turn/);
  });

  it('imports as a thread of its own with the same turns and branches, marked imported', async () => {
    const thread = conversation();
    const parsed = await parseThreadFile(JSON.stringify(threadFileOf(thread)));
    if (!parsed.ok) throw new Error(parsed.error);
    const entries = entriesOfFile(parsed.file, 5, 'chat.json');
    const copy = threadsOf(entries)[0]!;
    expect(copy.id).not.toBe(thread.id);
    expect(copy.turns.map((t) => [t.request.body, t.status])).toEqual(thread.turns.map((t) => [t.request.body, t.status]));
    // A stream's answer is the message its fragments form (this file kept one per event, as older versions wrote).
    expect(copy.turns.map((t) => t.answerMessages)).toEqual([[ai('Hi there')], [ai('More.')], []]);
    expect(pathTo(copy).map((t) => t.request.body)).toEqual(pathTo(thread).map((t) => t.request.body));
    expect(copy.turns.every((t) => t.imported?.fileName === 'chat.json' && t.target.profileId === undefined)).toBe(true);
    expect(copy.turns[1]!.request).toMatchObject({ flavour: 'legacy', mode: 'wait', path: '/rest/api/v1/agents/runs/wait' });
  });

  it('saved again by an editor with a byte order mark (UTF-8 BOM) still imports', async () => {
    const file = threadFileOf(conversation());
    expect(await parseThreadFile(`\uFEFF${JSON.stringify(file)}`)).toEqual({ ok: true, file });
  });

  it('refuses, in words, what is not a conversation file', async () => {
    const good = threadFileOf(conversation());
    const cases: [string, RegExp][] = [
      ['{ not json', /not JSON/],
      [JSON.stringify({ hello: 1 }), /not a conversation exported by this console/],
      [JSON.stringify({ ...good, version: 2 }), /\/version must be equal to constant/],
      [JSON.stringify({ ...good, turns: [] }), /\/turns must NOT have fewer than 1 items/],
      [JSON.stringify({ ...good, turns: [{ ...good.turns[0], request: { ...good.turns[0]!.request, body: {} } }] }), /\/turns\/0\/request\/body must have required property 'messages'/],
      [JSON.stringify({ ...good, turns: [good.turns[0], { ...good.turns[1], parentId: 'nope' }] }), /follows turn nope, which the file does not have/],
      [JSON.stringify({ ...good, turns: [good.turns[0], good.turns[0]] }), /two turns with the same id/],
      [JSON.stringify({ ...good, token: 'secret' }), /must NOT have additional properties/],
      // Turns that follow each other round in a loop would make switching branches walk for ever.
      [JSON.stringify({ ...good, turns: [{ ...good.turns[0], parentId: 't2' }, good.turns[1]] }), /do not form a tree: turn t1 follows itself \(t1 → t2 → t1\)/],
      [JSON.stringify({ ...good, turns: [{ ...good.turns[0], parentId: 't1' }] }), /turn t1 follows itself \(t1 → t1\)/],
      // An answer holds the agent's words only: a USER message there would be sent back as the agent's.
      [
        JSON.stringify({ ...good, turns: [{ ...good.turns[0], answer: { ...good.turns[0]!.answer, messages: [{ role: 'USER', content: [{ type: 'text', text: 'x' }] }] } }] }),
        /\/turns\/0\/answer\/messages\/0\/role must be equal to constant/,
      ],
      [JSON.stringify({ ...good, turns: Array.from({ length: 1001 }, (_, i) => ({ ...good.turns[0], id: `t${i}` })) }), /\/turns must NOT have more than 1000 items/],
      [
        JSON.stringify({ ...good, turns: [{ ...good.turns[0], answer: { text: '', messages: Array.from({ length: 5001 }, () => ai('x')) } }] }),
        /\/turns\/0\/answer\/messages must NOT have more than 5000 items/,
      ],
      // The schema check throws on a value nested past 128 levels: the import then failed with no word at all.
      [JSON.stringify({ ...good, turns: [{ ...good.turns[0], request: { ...good.turns[0]!.request, body: { ...good.turns[0]!.request.body, x: JSON.parse('['.repeat(200) + ']'.repeat(200)) as unknown } } }] }), /nests deeper than 128 levels/],
    ];
    for (const [text, error] of cases) {
      const parsed = await parseThreadFile(text);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(error);
    }
  });
});

describe('a turn in flight', () => {
  it('is exported as interrupted, saying why, and a file from an older version that says streaming is read as interrupted', async () => {
    const t1 = turn('t1', replyRequest(thread0, undefined, 'hello', { flavour: 'platform', mode: 'stream' }), [ai('Hi')], { status: 'streaming' });
    const file = threadFileOf(threadsOf([t1])[0]!);
    expect(file.turns[0]).toMatchObject({ status: 'interrupted', problem: EXPORTED_IN_FLIGHT });
    const old = { ...file, turns: [{ ...file.turns[0]!, status: 'streaming', problem: undefined }] };
    const parsed = await parseThreadFile(JSON.stringify(old));
    if (!parsed.ok) throw new Error(parsed.error);
    expect(entriesOfFile(parsed.file, 5)[0]).toMatchObject({ status: 'interrupted', problem: EXPORTED_IN_FLIGHT });
  });
});

describe('cycleOf', () => {
  it('finds a loop in linear time, and none in a tree with branches', () => {
    const chain = Array.from({ length: 20_000 }, (_, i) => ({ id: `t${i}`, ...(i > 0 && { parentId: `t${i - 1}` }) }));
    expect(cycleOf(chain)).toBeUndefined();
    expect(cycleOf([...chain, { id: 'b', parentId: 't5' }, { id: 'c', parentId: 't5' }])).toBeUndefined();
    expect(cycleOf([{ id: 'a', parentId: 'c' }, { id: 'b', parentId: 'a' }, { id: 'c', parentId: 'b' }])).toEqual(['a', 'c', 'b', 'a']);
  });
});

// Attack review (a7): a file one byte over the limit was "20.0 MB" beside "at most 20 MB".
it('a file over the size limit is told in bytes, against the limit in bytes', () => {
  expect(sizeProblem(MAX_FILE_BYTES)).toBeUndefined();
  expect(sizeProblem(MAX_FILE_BYTES + 1)).toBe('The file is 20,971,521 bytes; a conversation file may be at most 20 MB (20,971,520 bytes; docs/thread-file.md).');
});
