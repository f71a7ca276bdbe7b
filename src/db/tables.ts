/**
 * The rows of the console's browser database (console-db), apart from the database itself so
 * what derives from them (the items middleware) and what reads them import no database.
 */

import type { HistoryDetails, HistoryEntry } from '../engine/history-entry';
import type { TimelineEntry } from '../engine/stream-event';
import type { CaseResult } from '../engine/suites/runner';
import type { Flavour } from '../engine/run-request';
import type { SuiteSummary } from '../engine/suites/summary';

/** A run as the database keeps it: history's entry, the item it belongs to and its size. */
export interface StoredRun extends HistoryEntry {
  /** The history item: its conversation's id, or its own id for a run outside any conversation. */
  item: string;
  /** What it takes in the database, in bytes (its entry, answer and events), for retention by size. */
  size: number;
  /** Of which its details (answer, events). */
  detailsBytes: number;
}

/** A run's answer, apart from its entry so listing history never loads it. */
export interface StoredDetails {
  id: string;
  /** Wait mode: the answer's body; durable: the run as last read. */
  result?: unknown;
  /** Wait mode: the answer's body as received (parsed when read). */
  resultText?: string;
  /** How many slices of events the run's stream has in `events`. */
  eventRecords: number;
}

/** Events are kept in slices: one structured clone of 50,000 events would block the page. */
export interface EventSlice {
  id: string;
  slice: number;
  events: TimelineEntry[];
}

/**
 * What retention counts: a conversation, or a run outside any. Derived from the runs by the
 * items middleware (items.ts), the one place that writes it, but for `pinned`, the user's.
 */
export interface HistoryItem {
  id: string;
  kind: 'thread' | 'run';
  /** What history names it by: a conversation's first question, a run's agent. */
  title: string;
  /** Its oldest run's start (whose question names a conversation); absent on items of earlier versions. */
  firstAt?: number;
  /** Its newest run's start, or when it was imported. */
  lastAt: number;
  /** Its runs' sizes, summed. */
  bytes: number;
  /** How many runs it has; absent on items of earlier versions. */
  runs?: number;
  /** Its newest run (by start), which History lists it by, and that run's start; absent on items of earlier versions. */
  lastRunId?: string;
  lastRunAt?: number;
  /** Its runs another of its runs follows (a conversation's turns replied to), sorted: its branches are its runs less these. */
  parents?: string[];
  /** Pinned by the user: never let go by retention, and not counted against its limits. */
  pinned?: boolean;
}

/** Runs and items taken out by Clear history, kept until Undo, the next Clear or a day later. */
export interface ClearedHistory {
  id: string;
  at: number;
  runs: StoredRun[];
  items: HistoryItem[];
}

/** A suite run as kept: where it ran, how far it got, what it came to. Its results are rows of their own. */
export interface StoredSuiteRun {
  id: string;
  suiteId: string;
  suiteName: string;
  startedAt: number;
  endedAt?: number;
  /** `running` while a tab runs it; `interrupted` when its tab closed first. */
  status: 'running' | 'done' | 'stopped' | 'interrupted';
  /** Where it ran: the profile (never its token), and what it changed for every case. */
  target: { profileId: string; profileLabel: string; api?: Flavour; agentId?: string };
  concurrency: number;
  /** Runs the suite makes (cases and rows). */
  total: number;
  summary?: SuiteSummary;
}

/** One case's (or row's) result in a suite run, without its run's events and answer (`caseDetails`). */
export interface StoredCaseResult extends Omit<CaseResult, 'details'> {
  /** `${suiteRunId}:${key}` */
  id: string;
  suiteRunId: string;
  /** Its place in the suite, to list results in the suite's order. */
  index: number;
}

export interface StoredCaseDetails extends HistoryDetails {
  id: string;
}

export interface MetaRow {
  key: string;
  value: unknown;
}

