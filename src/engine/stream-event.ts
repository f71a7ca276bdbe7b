import type { Message } from '../contract/agents';
import { isProblemDetail, type ProblemDetail } from '../contract/problem';
import { MESSAGE_EVENT, RUN_FAILED_EVENT } from '../contract/sse';
import type { SseEvent } from '../lib/sse';
import type { RunFailure } from './run-machine';

export interface TimelineEntry {
  seq: number;
  id: string;
  event: string;
  /** ms since the POST was sent */
  at: number;
  /** ms since the previous event */
  gap: number;
  bytes: number;
  /** The event's data as received, or its first EVENT_DATA_KEEP characters when `cut`. */
  data: string;
  /** Why the event could not be read as the contract says, if it could not. */
  warning?: string;
  /** Set when `data` is only the beginning of the event's data: how many characters it had. */
  cut?: { chars: number };
  /** A cut event's one-line preview, made from its whole data before the cut. */
  preview?: string;
}

/**
 * Most characters of one event's data kept in memory and shown (timeline, event detail,
 * history): an instance may send events of megabytes, and two hundred of them filled the heap.
 * The full data of a cut event may be kept apart, outside the JS heap (stream-log).
 */
export const EVENT_DATA_KEEP = 64 * 1024;

const fullData = new WeakMap<TimelineEntry, Blob>();

/** Keeps the full data of a cut event, as a Blob: outside the JS heap, and never in history. */
export function keepFullData(entry: TimelineEntry, data: string): void {
  fullData.set(entry, new Blob([data], { type: 'text/plain' }));
}

/** The full data of a cut event, while its run's log keeps it. */
export function fullDataOf(entry: TimelineEntry): Blob | undefined {
  return fullData.get(entry);
}

/**
 * A string of its own, not a slice: V8 makes a slice of a long string a view that keeps the
 * whole string alive, which is what cutting is meant to let go.
 */
export const detached = (s: string): string => (s.length > 12 ? structuredClone(s) : s);

/** One event as the contract reads it: its timeline entry, and what it adds to the run. */
export interface ReadEvent {
  entry: TimelineEntry;
  /** A message event's text, for the transcript. */
  text?: string;
  /** A message event's messages, as received. */
  messages?: unknown[];
  /** What a run.failed event reported. */
  failure?: RunFailure;
}

const NOT_ASCII = /[^ -~\t\n\r]/;

/** The event's size on the wire, without encoding it (a TextEncoder per event costs more). */
export function utf8Length(s: string): number {
  // A long ASCII string (a megabyte event) is its length: the engine's own scan says so at once.
  if (s.length > 4096 && !NOT_ASCII.test(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The text blocks of `messages`, joined; undefined when it is not a messages array. */
export function textOf(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  let out = '';
  for (const m of messages as Message[]) {
    if (!m || !Array.isArray(m.content)) return undefined;
    for (const block of m.content) if (block && block.type === 'text' && typeof block.text === 'string') out += block.text;
  }
  return out;
}

export function failureOf(p: ProblemDetail): RunFailure {
  return { title: p.title, detail: p.detail, code: p.code, requestId: p.request_id, documentationUrl: p.documentation_url, status: p.status };
}

/**
 * Reads one event, `seq`th of the stream, `at` ms after the POST and `gap` ms after the one
 * before. Data that is not what the contract says is kept as received, with a warning.
 */
export function readEvent(e: SseEvent, seq: number, at: number, gap: number): ReadEvent {
  const entry: TimelineEntry = { seq, id: e.id, event: e.event, at, gap, bytes: utf8Length(e.data), data: e.data };
  const read = readData(e, entry);
  if (e.data.length > EVENT_DATA_KEEP) {
    // A message's text is at hand: the data is not parsed a second time for its preview.
    entry.preview = detached(read.text ? oneLine(read.text) : previewOf(entry));
    entry.data = detached(e.data.slice(0, EVENT_DATA_KEEP));
    entry.cut = { chars: e.data.length };
  }
  return read;
}

function readData(e: SseEvent, entry: TimelineEntry): ReadEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(e.data);
  } catch {
    entry.warning = 'The data is not JSON; shown as received.';
    return { entry };
  }
  if (e.event === MESSAGE_EVENT) {
    const messages = (parsed as { messages?: unknown } | null)?.messages;
    const text = textOf(messages);
    if (text === undefined) entry.warning = 'A message event without messages[].content[] text blocks.';
    return { entry, text, ...(Array.isArray(messages) && { messages }) };
  }
  if (e.event === RUN_FAILED_EVENT) {
    const error = (parsed as { error?: unknown } | null)?.error;
    if (isProblemDetail(error)) return { entry, failure: failureOf(error) };
    entry.warning = 'A run.failed event without problem details.';
    return { entry, failure: { title: 'Run failed', detail: e.data } };
  }
  entry.warning = `An event this console does not know ("${e.event}").`;
  return { entry };
}

/** Long enough to fill the widest data column; the row cuts the rest with an ellipsis. */
export const PREVIEW_CHARS = 200;

function oneLine(s: string): string {
  return s.slice(0, 4 * PREVIEW_CHARS).replace(/\s+/g, ' ').trim().slice(0, PREVIEW_CHARS);
}

function preview(entry: TimelineEntry): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(entry.data);
  } catch {
    return oneLine(entry.data);
  }
  if (entry.event === MESSAGE_EVENT) {
    const text = textOf((parsed as { messages?: unknown } | null)?.messages);
    if (text) return oneLine(text);
  } else if (entry.event === RUN_FAILED_EVENT) {
    const error = (parsed as { error?: unknown } | null)?.error;
    if (isProblemDetail(error)) return oneLine(error.detail ? `${error.title}: ${error.detail}` : error.title);
  }
  return oneLine(JSON.stringify(parsed));
}

// Computed for the rows on screen only, once each: the timeline re-renders them every frame.
const previews = new WeakMap<TimelineEntry, string>();

/**
 * The event's data on one line, for its timeline row: a message's text, a failure's title and
 * detail, other JSON compacted, anything else as received; whitespace runs become one space.
 */
export function previewOf(entry: TimelineEntry): string {
  let p = entry.preview ?? previews.get(entry);
  if (p === undefined) {
    p = preview(entry);
    previews.set(entry, p);
  }
  return p;
}
