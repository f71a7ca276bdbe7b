/**
 * Conversations: a messages agent's runs, turn after turn. The console carries the
 * conversation (a durable run starts fresh each turn), so every turn is one run whose request
 * holds the whole conversation so far: the turn it follows' messages, that turn's answer
 * messages as received, and the new USER message.
 *
 * A thread is not stored beside its runs: it is the runs whose request names it
 * (`request.thread`), each naming the turn it follows. Turns that follow the same turn are
 * branches (an edited question, a retry); the thread shows one path from the first turn to a
 * leaf. Everything here is pure; history and the run store hold the runs.
 */

import type { Message } from '../contract/agents';
import type { HistoryEntry } from './history-entry';
import { isTerminal, type RunStatus } from './run-machine';
import { partsOf, runRequest, type Flavour, type Mode, type RunRequest } from './run-request';

/** A turn as the thread shows it: what history keeps of its run, or the run as it is now. */
export type Turn = HistoryEntry;

/** Up to this many answer messages are kept per turn: a run that sends more cannot be replied to whole. */
export const MAX_ANSWER_MESSAGES = 5_000;

export function newThreadId(): string {
  return `thread_${Date.now().toString(36)}_${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36)}`;
}

export function userMessage(text: string): Message {
  return { role: 'USER', content: [{ type: 'text', text }] };
}

/** The request's messages, or none when it has no messages array. */
export function requestMessages(request: RunRequest): Message[] {
  const m = partsOf(request).messages;
  return Array.isArray(m) ? m : [];
}

/** The answer messages of a turn: its GLEAN_AI messages, content as received, in order. */
export function answerMessages(messages: unknown): Message[] {
  if (!Array.isArray(messages)) return [];
  return messages.filter((m): m is Message => typeof m === 'object' && m !== null && (m as Message).role === 'GLEAN_AI');
}

/** The messages of the turn that follows `turn`: its request's, its answer's, and the new question. */
export function nextMessages(turn: Pick<Turn, 'request' | 'answerMessages'> | undefined, text: string): Message[] {
  if (!turn) return [userMessage(text)];
  return [...requestMessages(turn.request), ...(turn.answerMessages ?? []), userMessage(text)];
}

/** The messages a turn's question was asked after: what it sent, without its own last USER message. */
export function contextOf(request: RunRequest): Message[] {
  const messages = requestMessages(request);
  return messages.at(-1)?.role === 'USER' ? messages.slice(0, -1) : messages;
}

/** The question a turn asked: its last USER message's text blocks, joined. */
export function questionOf(request: RunRequest): string {
  const last = [...requestMessages(request)].reverse().find((m) => m.role === 'USER');
  return last ? textOfMessage(last) : '';
}

export function textOfMessage(m: Message): string {
  return Array.isArray(m.content) ? m.content.map((b) => (b && b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('') : '';
}

/** Whether a turn ended in a way that can be replied to (it answered), rather than retried. */
export function answered(turn: Pick<Turn, 'status'>): boolean {
  return turn.status === 'done' || turn.status === 'SUCCEEDED';
}

/** Whether a turn ended without an answer to carry on from: it can be retried with the same messages. */
export function retryable(turn: Pick<Turn, 'status'>): boolean {
  return isTerminal(turn.status as RunStatus) && !answered(turn);
}

export interface TurnSend {
  flavour: Flavour;
  mode: Mode;
  timeoutMs?: number;
}

/** How a turn was sent: the next one goes the same way unless the user changes it. */
export function sendOf(request: RunRequest): TurnSend {
  return { flavour: request.flavour, mode: request.mode, ...(request.timeoutMs !== undefined && { timeoutMs: request.timeoutMs }) };
}

/** The request of a reply to `parent` (or of a thread's first turn), in `send`'s API and mode. */
export function replyRequest(thread: { id: string; agentId: string; agentName?: string }, parent: Turn | undefined, text: string, send: TurnSend): RunRequest {
  // An agent that takes input besides messages gets the same complete input again.
  const input = parent && partsOf(parent.request).input;
  const request = runRequest(send.flavour, send.mode, { id: thread.agentId, name: thread.agentName }, { ...(input && { input }), messages: nextMessages(parent, text) }, send.timeoutMs);
  return { ...request, thread: { id: thread.id, ...(parent && { parentId: parent.id }) } };
}

/** A turn asked again: the same messages after the same turn, in `send`'s API and mode. */
export function retryRequest(turn: Turn, send: TurnSend): RunRequest {
  const request = runRequest(send.flavour, send.mode, { id: turn.request.agentId, name: turn.request.agentName }, partsOf(turn.request), send.timeoutMs);
  return { ...request, ...(turn.request.thread && { thread: turn.request.thread }) };
}

/** An earlier question edited: a new branch from the turn that question followed. */
export function editRequest(turn: Turn, text: string, send: TurnSend): RunRequest {
  const { input } = partsOf(turn.request);
  const parts = { ...(input && { input }), messages: [...contextOf(turn.request), userMessage(text)] };
  const request = runRequest(send.flavour, send.mode, { id: turn.request.agentId, name: turn.request.agentName }, parts, send.timeoutMs);
  return { ...request, ...(turn.request.thread && { thread: turn.request.thread }) };
}

/** One conversation: its turns, in the order they were sent. */
export interface Thread {
  id: string;
  agentId: string;
  agentName?: string;
  turns: readonly Turn[];
}

/** Groups runs into threads (newest thread first); runs outside any thread are left out. */
export function threadsOf(entries: readonly Turn[]): Thread[] {
  const byId = new Map<string, Turn[]>();
  for (const e of entries) {
    const id = e.request.thread?.id;
    if (!id) continue;
    const list = byId.get(id) ?? [];
    list.push(e);
    byId.set(id, list);
  }
  return [...byId.entries()]
    .map(([id, turns]) => {
      const sorted = [...turns].sort((a, b) => a.startedAt - b.startedAt);
      const first = sorted[0]!;
      return { id, agentId: first.request.agentId, agentName: sorted.findLast((t) => t.request.agentName)?.request.agentName, turns: sorted };
    })
    .sort((a, b) => lastAt(b) - lastAt(a));
}

export function lastAt(thread: Thread): number {
  return thread.turns.at(-1)?.startedAt ?? 0;
}

/** The turns that follow `parentId` (undefined: the first turns), oldest first: branches at that point. */
export function childrenOf(thread: Thread, parentId: string | undefined): Turn[] {
  const ids = new Set(thread.turns.map((t) => t.id));
  // A turn whose parent is not in the thread (history let it go) starts the thread anew.
  return thread.turns.filter((t) => {
    const p = t.request.thread?.parentId;
    return parentId === undefined ? p === undefined || !ids.has(p) : p === parentId;
  });
}

/**
 * The path shown: from the first turn to `leafId`, or to the newest turn when no leaf is
 * chosen (or the chosen one is not in the thread).
 */
export function pathTo(thread: Thread, leafId?: string): Turn[] {
  const byId = new Map(thread.turns.map((t) => [t.id, t]));
  const leaf = (leafId && byId.get(leafId)) || thread.turns.at(-1);
  // Walked from the leaf up, then turned round: linear in the branch (1,000 turns are a file's limit).
  const path: Turn[] = [];
  const seen = new Set<Turn>();
  for (let t = leaf; t && !seen.has(t); t = t.request.thread?.parentId ? byId.get(t.request.thread.parentId) : undefined) {
    seen.add(t);
    path.push(t);
  }
  return path.reverse();
}

/** The newest turn at the end of any path through `turn`: where switching to that branch goes. */
export function newestLeafUnder(thread: Thread, turn: Turn): Turn {
  let leaf = turn;
  // Turns that loop back (a file refused at import cannot make one, but history is not a file) end the walk.
  for (const seen = new Set<string>([turn.id]); ; ) {
    const next = childrenOf(thread, leaf.id).at(-1);
    if (!next || seen.has(next.id)) return leaf;
    seen.add(next.id);
    leaf = next;
  }
}

/** Where a turn sits among its siblings: "branch 2 of 3" at that point of the conversation. */
export function branchOf(thread: Thread, turn: Turn): { index: number; count: number; siblings: Turn[] } {
  const siblings = childrenOf(thread, turn.request.thread?.parentId && thread.turns.some((t) => t.id === turn.request.thread?.parentId) ? turn.request.thread.parentId : undefined);
  return { index: siblings.indexOf(turn), count: siblings.length, siblings };
}

/** How many branches a thread has: its turns that no other turn follows (1 for a straight conversation). */
export function branchCount(thread: Thread): number {
  const followed = new Set(thread.turns.map((t) => t.request.thread?.parentId));
  return thread.turns.filter((t) => !followed.has(t.id)).length;
}

/** A thread's size in words: "3 turns", or "4 turns in 2 branches" once it has branched. */
export function sizeOf(thread: Thread): string {
  return sizeText(thread.turns.length, branchCount(thread));
}

export function sizeText(turnCount: number, branches: number): string {
  const turns = `${turnCount} ${turnCount === 1 ? 'turn' : 'turns'}`;
  return branches > 1 ? `${turns} in ${branches} branches` : turns;
}

/** A thread's title: its first question. */
export function titleOf(thread: Thread): string {
  const first = pathTo(thread, thread.turns[0]?.id)[0];
  return (first && questionOf(first.request).trim()) || '(no question)';
}

/** Whether a thread's text (questions, answers, agent) contains `query`, ignoring case. */
export function matches(thread: Thread, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  if ((thread.agentName ?? thread.agentId).toLowerCase().includes(q) || thread.agentId.toLowerCase().includes(q)) return true;
  return thread.turns.some((t) => questionOf(t.request).toLowerCase().includes(q) || t.transcript.toLowerCase().includes(q));
}

/** The address that reopens a thread. */
export function threadPath(thread: Pick<Thread, 'id' | 'agentId'>): string {
  return `/runs/${encodeURIComponent(thread.agentId)}/thread/${encodeURIComponent(thread.id)}`;
}
