/**
 * Runs a suite: each case (or row) is one run in the engine's RunSession (the one POST of each
 * kind, its state changed only by the run state machine's reducer, every request paced by the
 * suite's one Pacer: 429, 503 and Retry-After kept to), a durable run followed and its approvals
 * answered by the case's policy, every case within its deadline; then judged by the assertions.
 * The page's Suites view and `npm run suite` both run suites here; they differ only in what they
 * give it (the page's stream reader or Node's, how results are kept and shown).
 *
 * Suite runs never enter History: a thousand cases would push out everything a user kept.
 */

import type { Connection } from '../../lib/connection';
import type { EventReader } from '../../lib/sse';
import { redactDeep, secretsOf } from '../../lib/redact';
import type { HistoryDetails, HistoryEntry } from '../history-entry';
import { Pacer } from '../pacing';
import type { Schedule } from '../render-throttle';
import { isTerminal } from '../run-machine';
import { detailsOf, historyEntryOf, type RunRecord, type RunTarget } from '../run-record';
import type { RunRequest } from '../run-request';
import type { StopReason } from '../run-senders';
import { newRunRecord, RunSession } from '../session';
import { judgeAll, observationOf, type AssertionResult, type JudgeContext, type LensChecker } from './assertions';
import { deadlineResult, DEFAULT_CASE_DEADLINE_MS, droppedNote, pastDeadline, type SuiteKeep } from './case-limits';
import { judgePatterns, type PatternJudge } from './pattern-judge';
import { decide, type PolicyDecision } from './policy';
import { itemRequest, SharedLoads } from './shared-loads';
import { assertionsFor, itemName, type Assertion, type Row, type RunOverrides, type SuiteItem } from './suite';

export { SharedLoads } from './shared-loads';

export type Verdict = 'passed' | 'failed' | 'stopped';

/** One case's (or row's) run and how it fared. Never a token: the entry is what history would keep. */
export interface CaseResult {
  key: string;
  caseId: string;
  name: string;
  rowIndex?: number;
  row?: Row;
  verdict: Verdict;
  assertions: AssertionResult[];
  entry: HistoryEntry;
  details: HistoryDetails;
  /** A durable run's approvals, as the policy answered them. */
  decisions?: PolicyDecision[];
  /** What the result should say besides its assertions: what was not kept, how a row's cells were typed. */
  notes?: string[];
}

export interface RunnerEnv {
  connection: Pick<Connection, 'baseUrl' | 'token' | 'problem'>;
  /** Where the runs went, as results say it (a profile's label, a base URL; never a token). */
  target: RunTarget;
  overrides?: RunOverrides;
  /** Reads a stream: the page's by default; Node's for `npm run suite`. */
  reader?: EventReader;
  /** Loads the spec lens, when a case asks for it. */
  loadLens?: () => Promise<LensChecker>;
  /** When a stream's log tells its listeners (a suite run has none: by default never). */
  schedule?: Schedule;
  /** How long a durable case is followed before it counts as failed (default 5 minutes). */
  durableDeadlineMs?: number;
  /** How long a case may run when it names no deadline of its own (`--case-timeout-ms`; default DEFAULT_CASE_DEADLINE_MS). */
  caseDeadlineMs?: number;
  /** Judges `answer-matches` off this thread, within a budget (a Worker in the page, worker_threads in Node); without it, here. */
  patterns?: PatternJudge;
  /** What the suite run may still keep of streams (runItem gives the suite's); none: a log keeps everything. */
  keep?: SuiteKeep;
  /** Paces every request of the suite to its connection (one per suite run: runSuite makes it). */
  pacer?: Pacer;
}

const noFrames: Schedule = () => undefined;

/** How long a stopped suite's request to cancel a durable case may wait its turn (a Retry-After) and its answer. */
export const STOP_CANCEL_WAIT_MS = 5_000;

/**
 * One listener on the suite's signal, which tells every run: a listener per run (and per wait
 * of a durable run) on the one signal would be sixteen and more at once, which Node reports as
 * a leak on every suite run.
 */
export class StopFan {
  private readonly listeners = new Set<() => void>();

  constructor(readonly signal: AbortSignal) {
    signal.addEventListener('abort', () => {
      for (const l of [...this.listeners]) l();
    }, { once: true });
  }

  /** Calls `fn` when the suite stops (at once if it has); answers how to stop listening. */
  on(fn: () => void): () => void {
    if (this.signal.aborted) {
      fn();
      return () => undefined;
    }
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}

interface Ran {
  record: RunRecord;
  /** The answer's body as received, for the spec lens (a wait's or a durable run's last read). */
  rawBody?: string;
  decisions: PolicyDecision[];
  stoppedBySuite: boolean;
  /** The case's deadline, when it passed before the run ended. */
  pastDeadlineMs?: number;
}

/**
 * One run of a request, to its end, in one RunSession: the one POST (sent again only when the
 * service refused it for now), then (durable) following it and answering its approvals by the
 * policy, until it ends, the suite stops or the case's deadline passes (a durable run is then
 * asked to cancel, so nothing is left running at the service).
 */
export async function runOnce(request: RunRequest, env: RunnerEnv, stops: StopFan, policy?: SuiteItem['case']['policy']): Promise<Ran> {
  const pacer = env.pacer ?? new Pacer();
  const record = newRunRecord(request, env.target, { idPrefix: 'suite_run', schedule: env.schedule ?? noFrames });
  if (env.keep) record.log?.keepAtMost(env.keep.limitFor());
  const session = new RunSession(record, { connection: env.connection, pacer, resendRefused: true, ...(env.reader && { reader: env.reader }) });
  // The run's own controller: the suite's Stop aborts it; a wait's timeout too, saying why.
  const abort = new AbortController();
  const stopListening = stops.on(() => abort.abort({ kind: 'user' } satisfies StopReason));
  const deadline = request.mode === 'wait' && request.timeoutMs ? setTimeout(() => abort.abort({ kind: 'timeout', ms: request.timeoutMs! } satisfies StopReason), request.timeoutMs) : undefined;
  // The case's deadline, for a stream or a wait (a durable run is followed until env.durableDeadlineMs, which runItem sets to it).
  const caseMs = env.caseDeadlineMs ?? DEFAULT_CASE_DEADLINE_MS;
  let pastDeadlineMs: number | undefined;
  const caseDeadline =
    request.mode === 'durable'
      ? undefined
      : setTimeout(() => {
          pastDeadlineMs = caseMs;
          abort.abort({ kind: 'timeout', ms: caseMs } satisfies StopReason);
        }, caseMs);
  const decisions: PolicyDecision[] = [];
  try {
    // A durable POST is never cut off mid-way (the run may be made without its id reaching here): it is
    // only not sent again once the service's wait would pass the case's deadline, and its refusal stands.
    await session.send(abort.signal, request.mode === 'durable' ? { until: Date.now() + caseMs } : {});
    if (request.mode === 'durable') await follow();
  } finally {
    clearTimeout(deadline);
    clearTimeout(caseDeadline);
    stopListening();
  }
  const ended = session.record;
  const rawBody = request.mode === 'wait' ? ended.answer?.rawBody : request.mode === 'durable' ? ended.state.durable?.meta?.rawBody : undefined;
  const stoppedBySuite = stops.signal.aborted && !isTerminalOutcome(ended);
  return { record: ended, rawBody, decisions, stoppedBySuite, ...(!stoppedBySuite && pastDeadlineMs !== undefined && { pastDeadlineMs }) };

  async function follow(): Promise<void> {
    if (!session.record.runId) return;
    const deadlineMs = env.durableDeadlineMs ?? DEFAULT_CASE_DEADLINE_MS;
    const end = await session.follow({
      signal: stops.signal,
      until: Date.now() + deadlineMs,
      onPaused: async (run) => {
        const chosen = decide(policy, run.pending_interactions ?? []);
        try {
          await session.decide(
            chosen.map((d) => ({ interactionId: d.interactionId, decision: d.decision, name: d.name, ...(d.tool !== d.name && { toolId: d.tool }) })),
            stops.signal,
          );
        } catch {
          // Refused (a 409: the run moved on; or still refused after the pacer's tries): it is read again, and decided again if it still asks.
          return false;
        }
        // One by one: an instance may ask for any number of approvals, past what spread arguments take.
        for (const d of chosen) decisions.push(d);
        return true;
      },
    });
    if (end === 'deadline') pastDeadlineMs = deadlineMs;
    // A suite stopped, or a case past its deadline, leaves nothing running at the service: the run is asked to cancel (once, whatever it answers).
    // A stopped suite (Ctrl+C, a CI's SIGTERM) waits out a Retry-After for it only so long: its reports are still to be written.
    if (end === 'stopped' || end === 'deadline') await session.cancel(end === 'stopped' ? AbortSignal.timeout(STOP_CANCEL_WAIT_MS) : undefined).catch(() => undefined);
  }
}

/** Whether the run reached an outcome of its own (not one the suite's Stop gave it). */
function isTerminalOutcome(record: RunRecord): boolean {
  return isTerminal(record.state.status) && record.state.status !== 'stopped';
}

/** The result of a run that ended without an outcome the assertions can judge: why, as an entry says it. */
function unfinished(entry: HistoryEntry, record: RunRecord): HistoryEntry {
  const why = record.state.readError?.detail;
  if (isTerminal(record.state.status) || !why) return entry;
  return { ...entry, problem: why, note: why };
}

/** A case with no assertion still asks its run to end well: one refused, or failed, is no pass. */
const IMPLICIT: Assertion[] = [{ kind: 'outcome', expect: 'success' }];

/** Runs one item of a suite and judges it. Nothing of the result holds the connection's token, whatever the server echoed. */
export async function runItem(item: SuiteItem, env: RunnerEnv, stops: StopFan, shared = new SharedLoads(env)): Promise<CaseResult> {
  const notes: string[] = [];
  const request = await itemRequest(item, env.overrides, shared, notes);
  const deadlineMs = item.case.deadlineMs ?? env.caseDeadlineMs ?? DEFAULT_CASE_DEADLINE_MS;
  const ran = await runOnce(request, { ...env, caseDeadlineMs: deadlineMs, durableDeadlineMs: deadlineMs, keep: shared.keep }, stops, item.case.policy);
  const ended = unfinished(historyEntryOf(ran.record), ran.record);
  const judgedEntry = ran.pastDeadlineMs === undefined ? ended : pastDeadline(ended, ran.pastDeadlineMs);
  const details = detailsOf(ran.record);
  const assertions = assertionsFor(item.case.assertions.length ? item.case.assertions : IMPLICIT, item.row);
  const observation = observationOf(judgedEntry, details, ran.rawBody);
  const ctx: JudgeContext = {};
  if (assertions.some((a) => a.kind === 'spec-lens')) {
    const lens = await shared.loadLens();
    if (lens) ctx.lens = lens;
  }
  if (assertions.some((a) => a.kind === 'answer-schema' && !a.schema)) ctx.outputSchema = await shared.outputSchema(request.flavour, request.agentId);
  // A stopped case is not judged: its patterns are not worth a worker's budget while the suite stops.
  const patterns = ran.stoppedBySuite ? undefined : await judgePatterns(assertions.flatMap((a) => (a.kind === 'answer-matches' ? [a.pattern] : [])), observation.answer, env.patterns);
  if (patterns) ctx.patterns = patterns;
  const results = judgeAll(assertions, observation, ctx);
  if (ran.pastDeadlineMs !== undefined) results.push(deadlineResult(ran.pastDeadlineMs, judgedEntry));
  const verdict: Verdict = ran.stoppedBySuite ? 'stopped' : results.every((r) => r.pass) ? 'passed' : 'failed';
  const dropped = droppedNote(ran.record.log);
  if (dropped) notes.push(dropped);
  const entry = shared.keep.keepAnswer(judgedEntry, notes);
  const result: CaseResult = {
    key: item.key,
    caseId: item.case.id,
    name: itemName(item),
    ...(item.rowIndex !== undefined && { rowIndex: item.rowIndex, row: item.row }),
    verdict,
    assertions: results,
    entry,
    details,
    ...(ran.decisions.length && { decisions: ran.decisions }),
    ...(notes.length && { notes }),
  };
  return redactDeep(result, secretsOf(env.connection.token));
}

export interface SuiteRunOptions {
  /** Runs at once (default 4). */
  concurrency?: number;
  signal?: AbortSignal;
  /** Told as each item starts. */
  onStart?(item: SuiteItem): void;
  /** Told as each item ends, in the order they end. */
  onResult?(result: CaseResult): void;
  /** Requests a second at most (`--max-rps`); with none, the service's 429s and Retry-After pace the suite. */
  maxRps?: number;
}

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 64;

/**
 * Runs every item, `concurrency` at a time, and answers their results in the suite's order.
 * Once the signal aborts, runs in flight are stopped and items not started are not sent; they
 * are not among the results.
 */
export async function runSuite(items: readonly SuiteItem[], env: RunnerEnv, options: SuiteRunOptions = {}): Promise<CaseResult[]> {
  const signal = options.signal ?? new AbortController().signal;
  const concurrency = Math.max(1, Math.min(MAX_CONCURRENCY, Math.floor(options.concurrency ?? DEFAULT_CONCURRENCY)));
  // One pacer for the suite's one connection: a 429 holds every case's requests, not only the refused one's.
  // Each case has at most a POST (a stream's, open as long as it streams) and one other request under way.
  const paced: RunnerEnv = { ...env, pacer: env.pacer ?? new Pacer({ maxInFlight: 2 * concurrency, ...(options.maxRps && { maxRps: options.maxRps }) }) };
  const shared = new SharedLoads({ ...paced, signal });
  const stops = new StopFan(signal);
  const results: (CaseResult | undefined)[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (!signal.aborted && next < items.length) {
      const i = next++;
      const item = items[i]!;
      options.onStart?.(item);
      const result = await runItem(item, paced, stops, shared);
      results[i] = result;
      options.onResult?.(result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results.filter((r): r is CaseResult => r !== undefined);
}
