import { describe, expect, it } from 'vitest';
import type { Message } from '../contract/agents';
import type { HistoryEntry } from '../engine/history-entry';
import { replyRequest, type Turn } from '../engine/thread';
import { itemsOf, type StoredRun } from './console-db';
import { evictable, HISTORY_LIMIT } from './history';

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

describe('history’s limit', () => {
  const stored = (entries: HistoryEntry[]): StoredRun[] => entries.map((e) => ({ ...e, item: e.request.thread?.id ?? e.id, size: 1, detailsBytes: 0 }));
  const gone = (entries: HistoryEntry[], keep = new Set<string>()) =>
    evictable(itemsOf(stored(entries)), keep, { items: HISTORY_LIMIT, bytes: Infinity }, 0)
      .map((i) => i.id)
      .sort();

  it('keeps a conversation whole: its turns stay or go together, counted as one item', () => {
    const runs: HistoryEntry[] = Array.from({ length: HISTORY_LIMIT + 2 }, (_, i) =>
      turn(`r${i}`, { agentId: 'a', flavour: 'platform', mode: 'stream', path: '/x', body: {} }, [], { startedAt: 1000 + i }),
    );
    const long = Array.from({ length: 30 }, (_, i) => turn(`c${i}`, { ...replyRequest(thread0, undefined, 'q', { flavour: 'platform', mode: 'stream' }) }, [], { startedAt: 500 + i }));
    // 52 runs and one conversation: the three oldest items go, the conversation (oldest) whole.
    expect(gone([...runs, ...long])).toEqual([thread0.id, 'r0', 'r1'].sort());
    const recent = long.map((e) => ({ ...e, startedAt: e.startedAt + 10_000 }));
    expect(gone([...runs, ...recent])).toEqual(['r0', 'r1', 'r2']);
  });

  it('never lets go of an item kept (on screen) or pinned, and lets go of the next oldest instead', () => {
    const runs: HistoryEntry[] = Array.from({ length: HISTORY_LIMIT + 1 }, (_, i) =>
      turn(`r${i}`, { agentId: 'a', flavour: 'platform', mode: 'stream', path: '/x', body: {} }, [], { startedAt: 1000 + i }),
    );
    expect(gone(runs, new Set(['r0']))).toEqual(['r1']);
    const items = itemsOf(stored(runs)).map((i) => (i.id === 'r0' || i.id === 'r1' ? { ...i, pinned: true } : i));
    expect(evictable(items, new Set(), { items: HISTORY_LIMIT, bytes: Infinity }, 0).map((i) => i.id)).toEqual(['r2']);
  });

  it('lets go of the oldest items past the size limit too, and says why', () => {
    const runs: HistoryEntry[] = Array.from({ length: 4 }, (_, i) => turn(`r${i}`, { agentId: 'a', flavour: 'platform', mode: 'stream', path: '/x', body: {} }, [], { startedAt: 1000 + i }));
    const items = itemsOf(runs.map((e) => ({ ...e, item: e.id, size: 100, detailsBytes: 0 })));
    expect(evictable(items, new Set(), { items: 50, bytes: 250 }, 0)).toEqual([
      { id: 'r0', kind: 'run', title: expect.any(String), reason: 'size' },
      { id: 'r1', kind: 'run', title: expect.any(String), reason: 'size' },
    ]);
  });
});

