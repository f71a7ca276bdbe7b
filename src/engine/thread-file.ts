/**
 * A conversation as one JSON file (docs/thread-file.schema.json, docs/thread-file.md): what
 * each turn sent and answered, events summarized, timings. Written from what history keeps,
 * which by construction holds no token; the request is its method, path and body only.
 */

import type { Message } from '../contract/agents';
import { compileSchemaCheck, type SchemaCheck } from '../lib/schema-check';
import { joinFragments } from './answer-messages';
import type { HistoryEntry } from './history-entry';
import { isInFlight, type RunStatus } from './run-machine';
import { runRequest } from './run-request';
import { MAX_ANSWER_MESSAGES, titleOf, type Thread } from './thread';
import { exportFileName } from '../lib/download';

export const THREAD_FILE_FORMAT = 'metadata-agents-console/thread';

/** An import reads at most this much: a file of a conversation is far smaller. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;
/** At most this many turns in a file (every branch together). */
export const MAX_TURNS = 1_000;
export { MAX_ANSWER_MESSAGES };

/** What a turn in flight is written as: a file is read later, when its run can no longer end. */
export const EXPORTED_IN_FLIGHT = 'Exported while this turn was in flight: the file has what had arrived by then.';

/** Why a file of `bytes` is not read, if it is not. */
export function sizeProblem(bytes: number): string | undefined {
  if (bytes <= MAX_FILE_BYTES) return undefined;
  // In bytes: a file just over the limit was "20.0 MB", beside "at most 20 MB".
  return `The file is ${bytes.toLocaleString('en-US')} bytes; a conversation file may be at most ${MAX_FILE_BYTES / 1024 / 1024} MB (${MAX_FILE_BYTES.toLocaleString('en-US')} bytes; docs/thread-file.md).`;
}

export interface ThreadFileTurn {
  id: string;
  parentId?: string;
  startedAt: string;
  request: { api: 'platform' | 'legacy'; mode: 'stream' | 'wait' | 'durable'; method: 'POST'; path: string; body: Record<string, unknown>; timeoutMs?: number };
  status: string;
  runId?: string;
  durationMs: number;
  firstEventMs?: number;
  events: { count: number; bytes: number };
  answer: { messages: Message[]; text: string; truncated?: boolean };
  failure?: { title: string; detail: string; code?: string };
  problem?: string;
  response?: { status?: number; requestId?: string };
}

export interface ThreadFile {
  format: typeof THREAD_FILE_FORMAT;
  version: 1;
  exportedAt: string;
  thread: { id: string; title: string; agent: { id: string; name?: string } };
  turns: ThreadFileTurn[];
}

function fileTurn(t: HistoryEntry): ThreadFileTurn {
  const { request } = t;
  const inFlight = isInFlight(t.status as RunStatus) || t.status === 'idle';
  return {
    id: t.id,
    ...(request.thread?.parentId && { parentId: request.thread.parentId }),
    startedAt: new Date(t.startedAt).toISOString(),
    request: { api: request.flavour, mode: request.mode, method: 'POST', path: request.path, body: request.body, ...(request.timeoutMs !== undefined && { timeoutMs: request.timeoutMs }) },
    // A turn in flight can never end once written down: it is written as interrupted, and says why.
    status: inFlight ? 'interrupted' : t.status,
    ...(t.runId && { runId: t.runId }),
    durationMs: t.durationMs,
    ...(t.firstEventMs !== undefined && { firstEventMs: t.firstEventMs }),
    events: { count: t.eventCount, bytes: t.bytes },
    answer: { messages: t.answerMessages ?? [], text: t.transcript, ...(t.answerTruncated && { truncated: true }) },
    ...(t.failure && { failure: { title: t.failure.title, detail: t.failure.detail, ...(t.failure.code && { code: t.failure.code }) } }),
    ...((inFlight || t.problem) && { problem: inFlight ? EXPORTED_IN_FLIGHT : t.problem }),
    ...(t.meta && { response: { status: t.meta.status, ...(t.meta.requestId && { requestId: t.meta.requestId }) } }),
  };
}

/** The file of a thread: every branch, the turns in the order they were sent. */
/** A conversation's file as Export conversation downloads it: everything history kept of it, never a token. */
export function threadExport(thread: Thread): { name: string; text: string } {
  return { name: exportFileName('conversation', thread.agentId, thread.turns[0]?.startedAt ?? Date.now(), thread.id), text: JSON.stringify(threadFileOf(thread), null, 2) };
}

export function threadFileOf(thread: Thread, now = new Date()): ThreadFile {
  return {
    format: THREAD_FILE_FORMAT,
    version: 1,
    exportedAt: now.toISOString(),
    thread: { id: thread.id, title: titleOf(thread), agent: { id: thread.agentId, ...(thread.agentName && { name: thread.agentName }) } },
    turns: thread.turns.map(fileTurn),
  };
}

export type ParsedThreadFile = { ok: true; file: ThreadFile } | { ok: false; error: string };

/** Reads a file as a thread, or says, in words, why it is not one. */
export async function parseThreadFile(text: string): Promise<ParsedThreadFile> {
  let json: unknown;
  try {
    // A byte order mark some editors write is not the JSON's.
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    return { ok: false, error: `The file is not JSON (${err instanceof Error ? err.message : String(err)}).` };
  }
  if (typeof json !== 'object' || json === null || (json as { format?: unknown }).format !== THREAD_FILE_FORMAT) {
    // History's "Export JSON" of one run is the file people most often pick here by mistake.
    const run = json as { request?: unknown; startedAt?: unknown; status?: unknown } | null;
    if (run && typeof run === 'object' && 'request' in run && typeof run.startedAt === 'number' && typeof run.status === 'string') {
      return {
        ok: false,
        error:
          'The file is one run’s record (History › Export JSON, or Export last turn in a conversation), which is for reading, not importing. Import conversation… reads the files of Export conversation.',
      };
    }
    return { ok: false, error: `The file is not a conversation exported by this console: it needs "format": "${THREAD_FILE_FORMAT}".` };
  }
  const schema = (await import('../../docs/thread-file.schema.json')).default as Record<string, unknown>;
  let errors: ReturnType<SchemaCheck>;
  try {
    errors = compileSchemaCheck(schema)(json);
  } catch (err) {
    // A value nested past what the check walks is refused by a throw: said like any other problem.
    return { ok: false, error: `The file does not match the conversation format (docs/thread-file.schema.json): ${err instanceof Error ? err.message : String(err)}.` };
  }
  if (errors.length) {
    const shown = errors.slice(0, 3).map((e) => `${e.instancePath || '(the file)'} ${e.message}`);
    return { ok: false, error: `The file does not match the conversation format (docs/thread-file.schema.json): ${shown.join('; ')}${errors.length > 3 ? `; and ${errors.length - 3} more` : ''}.` };
  }
  const file = json as ThreadFile;
  const ids = new Set(file.turns.map((t) => t.id));
  if (ids.size !== file.turns.length) return { ok: false, error: 'The file names two turns with the same id.' };
  const unknown = file.turns.find((t) => t.parentId !== undefined && !ids.has(t.parentId));
  if (unknown) return { ok: false, error: `Turn ${unknown.id} follows turn ${unknown.parentId}, which the file does not have.` };
  const cycle = cycleOf(file.turns);
  if (cycle) return { ok: false, error: `The turns do not form a tree: turn ${cycle[0]} follows itself (${cycle.join(' → ')}). Each turn must follow an earlier one, or none.` };
  return { ok: true, file };
}

/**
 * A loop in the turns' parentIds, as the ids around it, if there is one (linear: each turn is
 * walked once). A file with one would make switching branches walk for ever.
 */
export function cycleOf(turns: readonly Pick<ThreadFileTurn, 'id' | 'parentId'>[]): string[] | undefined {
  const parent = new Map(turns.map((t) => [t.id, t.parentId]));
  const done = new Set<string>();
  for (const t of turns) {
    const path: string[] = [];
    const onPath = new Set<string>();
    let id: string | undefined = t.id;
    while (id !== undefined && !done.has(id)) {
      if (onPath.has(id)) return [...path.slice(path.indexOf(id)), id];
      onPath.add(id);
      path.push(id);
      id = parent.get(id);
    }
    for (const p of path) done.add(p);
  }
  return undefined;
}

/**
 * The history entries of an imported file: a thread of its own (new ids, so importing a
 * thread into the browser it came from adds a copy rather than mixing the two), marked
 * imported, on no profile.
 */
export function entriesOfFile(file: ThreadFile, importedAt: number, fileName?: string): HistoryEntry[] {
  const suffix = `${importedAt.toString(36)}_${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36)}`;
  const threadId = `imported_${suffix}`;
  const idOf = (id: string) => `imported_${suffix}_${id}`;
  return file.turns.map((t) => {
    const base = runRequest(t.request.api, t.request.mode, { id: file.thread.agent.id, name: file.thread.agent.name }, { messages: t.request.body.messages as Message[] }, t.request.timeoutMs);
    const parsedAt = Date.parse(t.startedAt);
    // A turn written while in flight (by an older version) can never end here: it is interrupted.
    const cutOff = isInFlight(t.status as RunStatus) || t.status === 'idle';
    // A stream's answer is the messages its fragments form (older files kept one per event).
    const messages = t.request.mode === 'stream' ? joinFragments(t.answer.messages) : t.answer.messages;
    return {
      id: idOf(t.id),
      startedAt: Number.isFinite(parsedAt) ? parsedAt : importedAt,
      request: { ...base, path: t.request.path, body: t.request.body, thread: { id: threadId, ...(t.parentId && { parentId: idOf(t.parentId) }) } },
      ...(t.runId && { runId: t.runId }),
      target: { profileLabel: 'imported file', mode: 'same-origin', baseUrl: '' },
      status: cutOff ? 'interrupted' : t.status,
      durationMs: t.durationMs,
      ...(t.firstEventMs !== undefined && { firstEventMs: t.firstEventMs }),
      eventCount: t.events.count,
      bytes: t.events.bytes,
      transcript: t.answer.text,
      answerMessages: messages,
      ...(t.answer.truncated && { answerTruncated: true }),
      ...(t.failure && { failure: t.failure }),
      ...((cutOff || t.problem) && { problem: cutOff ? EXPORTED_IN_FLIGHT : t.problem }),
      imported: { at: importedAt, ...(fileName && { fileName }) },
    } satisfies HistoryEntry;
  });
}
