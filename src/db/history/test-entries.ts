/** Entries for history's tests: a run, a conversation's turn, events of a given size. */
import type { HistoryEntry } from '../../engine/history-entry';
import { runRequest } from '../../engine/run-request';
import type { TimelineEntry } from '../../engine/stream-event';
import { replyRequest } from '../../engine/thread';

const user = (text: string) => ({ role: 'USER' as const, content: [{ type: 'text' as const, text }] });

export function entry(id: string, startedAt: number, patch: Partial<HistoryEntry> = {}): HistoryEntry {
  return {
    id,
    startedAt,
    request: runRequest('platform', 'stream', { id: 'echo-assistant', name: 'Echo Assistant' }, { messages: [user(id)] }),
    target: { profileId: 'reference', profileLabel: 'Reference service', mode: 'same-origin', baseUrl: '' },
    status: 'done',
    durationMs: 10,
    eventCount: 0,
    bytes: 20,
    transcript: 'Hi',
    ...patch,
  };
}

/** A conversation's turn (its first, asking `question`). */
export function turn(id: string, threadId: string, startedAt: number, question = 'q', patch: Partial<HistoryEntry> = {}): HistoryEntry {
  return entry(id, startedAt, { request: replyRequest({ id: threadId, agentId: 'echo-assistant' }, undefined, question, { flavour: 'platform', mode: 'stream' }), ...patch });
}

/** `n` stream events of `size` characters of data each. */
export function events(n: number, size: number): TimelineEntry[] {
  return Array.from({ length: n }, (_, i) => ({ seq: i + 1, id: String(i), event: 'message', at: i, gap: 1, bytes: size, data: 'x'.repeat(size) }));
}
