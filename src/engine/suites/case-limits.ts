/**
 * What bounds a suite's case whatever a server does: a deadline for its run, and how much of
 * its stream the runner keeps. A server that sends only keep-alives kept a case running past
 * 40 s; one that sends events without end grew the CLI past its heap (145 → 296 MB in 30 s)
 * until it died. Now a case past its deadline is stopped and fails saying so, and the events
 * kept (per case, and in all for the suite run) and the answers' text kept in all are bounded:
 * past them events are counted but not kept, and the result says what was dropped.
 */

import { formatCount } from '../../lib/format';
import type { HistoryEntry } from '../history-entry';
import type { KeepLimit, StreamLog } from '../stream-log';
import type { AssertionResult } from './assertions';

/** A case's deadline when neither it nor the run (`--case-timeout-ms`) names one: the longest a durable case was followed. */
export const DEFAULT_CASE_DEADLINE_MS = 300_000;
/** A deadline a case or the CLI may set: from 100 ms to a day. */
export const MIN_CASE_DEADLINE_MS = 100;
export const MAX_CASE_DEADLINE_MS = 86_400_000;

/** Events one case keeps at most, and characters of their data. */
export const CASE_KEEP = { events: 10_000, chars: 8_000_000 } as const;
/** Events all the cases of a suite run keep at most, and characters of their data. */
export const SUITE_KEEP = { events: 200_000, chars: 64_000_000 } as const;
/** Characters of answers (transcripts) all the results of a suite run keep at most; each case's is bounded by the transcript's own limit. */
export const SUITE_ANSWER_CHARS = 64_000_000;

/** What is left to keep in a suite run: drawn from by each case's stream and answer. */
export class SuiteKeep {
  readonly events = { events: SUITE_KEEP.events, chars: SUITE_KEEP.chars };
  answerChars = SUITE_ANSWER_CHARS;

  /** The bound of one case's log: its own, and what is left of the suite's. */
  limitFor(): KeepLimit {
    return { ...CASE_KEEP, shared: this.events };
  }

  /** The entry with its answer cut to what the suite may still keep, saying so; the judging saw it whole. */
  keepAnswer(entry: HistoryEntry, notes: string[]): HistoryEntry {
    const chars = entry.transcript.length;
    if (chars <= this.answerChars) {
      this.answerChars -= chars;
      return entry;
    }
    const kept = Math.max(0, this.answerChars);
    this.answerChars = 0;
    notes.push(`The answer's last ${formatCount(chars - kept)} of ${formatCount(chars)} characters are not kept in this result: a suite run keeps ${formatCount(SUITE_ANSWER_CHARS)} characters of answers in all (the assertions were judged on the whole answer).`);
    return { ...entry, transcript: entry.transcript.slice(0, kept) };
  }
}

/** What a bounded log did not keep, in words, when it dropped anything. */
export function droppedNote(log: StreamLog | undefined): string | undefined {
  if (!log?.droppedEvents) return undefined;
  return `${formatCount(log.droppedEvents)} of ${formatCount(log.eventCount)} events are not kept (a case keeps ${formatCount(CASE_KEEP.events)} events and ${formatCount(CASE_KEEP.chars)} characters of their data, a suite run ${formatCount(SUITE_KEEP.events)} and ${formatCount(SUITE_KEEP.chars)} in all): they are counted, and their text is in the answer.`;
}

/** The failure of a case its deadline stopped: whatever its assertions say of what came before, it did not end in time. */
export function deadlineResult(deadlineMs: number, entry: HistoryEntry): AssertionResult {
  return {
    assertion: { kind: 'duration-within', ms: deadlineMs },
    pass: false,
    expected: `the run ends within the case’s deadline (${formatCount(deadlineMs)} ms)`,
    actual: `not ended when the deadline passed (${formatCount(entry.eventCount)} ${entry.eventCount === 1 ? 'event' : 'events'} by then): the suite stopped it`,
  };
}

/** The entry of a run its deadline stopped, saying so (not "Stopped by you", nor a wait's own timeout). */
export function pastDeadline(entry: HistoryEntry, deadlineMs: number): HistoryEntry {
  // A durable run's says how far it got; a stream's or a wait's, stopped here, would say "Stopped by you" or speak of a wait's own timeout.
  const stopped = entry.request.mode === 'durable' ? 'the suite stopped following it and asked the service to cancel it' : 'the suite stopped it';
  const why = entry.status !== 'stopped' && entry.problem ? entry.problem : `The case’s deadline (${formatCount(deadlineMs)} ms) passed before its run ended: ${stopped}.`;
  return { ...entry, note: why, problem: why };
}
