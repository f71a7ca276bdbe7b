/**
 * Runs a suite: each case (or row) is one run sent through the console's own senders
 * (run-senders: the one POST of each kind), its state changed only by the run state machine's
 * reducer, a durable run followed by reading it and its approvals answered by the case's
 * policy; then judged by the assertions. The page's Suites view and `npm run suite` both run
 * suites here; they differ only in what they give it (the page's stream reader or Node's, how
 * results are kept and shown).
 *
 * Suite runs never enter History: a thousand cases would push out everything a user kept.
 */

import { platformCancellationsPath, platformResponsesPath, platformRunPath } from '../../contract/run-paths';
import type { DurableRunAnswer } from '../../contract/durable-runs';
import { apiRequest, ApiError, type ApiResponse } from '../../lib/api-client';
import type { Connection } from '../../lib/connection';
import type { EventReader } from '../../lib/sse';
import { redactDeep, secretsOf } from '../../lib/redact';
import { nextPollMs } from '../durable-follow';
import type { HistoryDetails, HistoryEntry } from '../history-entry';
import type { Schedule } from '../render-throttle';
import { initialRunState, isFollowed, isTerminal, runReducer, type RunAction } from '../run-machine';
import { detailsOf, historyEntryOf, metaOf, type RunRecord, type RunTarget } from '../run-record';
import type { RunRequest } from '../run-request';
import { sendDurable, sendStream, sendWait, type SendContext, type StopReason } from '../run-senders';
import { StreamLog } from '../stream-log';
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
}

const noFrames: Schedule = () => undefined;

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

function sleep(ms: number, stops: StopFan): Promise<void> {
  return new Promise((resolve) => {
    let off = () => {};
    const done = () => {
      clearTimeout(t);
      off();
      resolve();
    };
    const t = setTimeout(done, ms);
    off = stops.on(done);
  });
}

/** A suite reads a durable run often at first (a case should not wait a second for each state), then as the console does. */
export function suitePollMs(run: DurableRunAnswer['run'], reads: number): number | false {
  const usual = nextPollMs(run, reads);
  if (usual === false) return false;
  return reads < 20 ? Math.min(usual, 200) : usual;
}

/** Reads that say the run will never be readable with this connection. */
const UNREADABLE = [401, 403, 404];

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
 * One run of a request, to its end: the one POST, then (durable) reading it and answering its
 * approvals by the policy, until it ends, the suite stops (a durable run is asked to cancel)
 * or the deadline passes.
 */
export async function runOnce(request: RunRequest, env: RunnerEnv, stops: StopFan, policy?: SuiteItem['case']['policy']): Promise<Ran> {
  const signal = stops.signal;
  const startedAt = Date.now();
  let record: RunRecord = {
    id: `suite_run_${startedAt.toString(36)}_${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36)}`,
    origin: 'sent',
    request,
    target: env.target,
    startedAt,
    state: runReducer(initialRunState, { type: 'send', at: startedAt }),
    ...(request.mode === 'stream' && { log: new StreamLog(request.flavour, undefined, env.schedule ?? noFrames) }),
  };
  const dispatch = (action: RunAction, patch: Partial<Pick<RunRecord, 'answer' | 'runId'>> = {}) => {
    record = { ...record, ...patch, state: runReducer(record.state, action) };
  };
  // The run's own controller: the suite's Stop aborts it; a wait's timeout too, saying why.
  const abort = new AbortController();
  const stopListening = stops.on(() => abort.abort({ kind: 'user' } satisfies StopReason));
  const deadline = request.mode === 'wait' && request.timeoutMs ? setTimeout(() => abort.abort({ kind: 'timeout', ms: request.timeoutMs! } satisfies StopReason), request.timeoutMs) : undefined;
  // The case's deadline, for a stream or a wait (a durable run is followed until env.durableDeadlineMs, which runItem sets to it).
  const caseMs = env.caseDeadlineMs ?? DEFAULT_CASE_DEADLINE_MS;
  let pastDeadlineMs: number | undefined;
  const caseDeadline = request.mode === 'durable' ? undefined : setTimeout(() => {
    pastDeadlineMs = caseMs;
    abort.abort({ kind: 'timeout', ms: caseMs } satisfies StopReason);
  }, caseMs);
  if (env.keep) record.log?.keepAtMost(env.keep.limitFor());
  const ctx: SendContext = { record, connection: env.connection as Connection, signal: abort.signal, dispatch, ...(env.reader && { reader: env.reader }) };
  const decisions: PolicyDecision[] = [];
  let rawBody: string | undefined;
  try {
    if (request.mode === 'stream') await sendStream(ctx, record.log!);
    else if (request.mode === 'wait') {
      await sendWait(ctx);
      rawBody = record.answer?.rawBody;
    } else {
      await sendDurable(ctx);
      rawBody = record.state.durable?.meta?.rawBody;
      rawBody = (await follow()) ?? rawBody;
    }
  } finally {
    clearTimeout(deadline);
    clearTimeout(caseDeadline);
    stopListening();
  }
  if (record.state.readError?.title === 'Deadline') pastDeadlineMs = caseMs;
  const stoppedBySuite = signal.aborted && !isTerminalOutcome(record);
  return { record, rawBody, decisions, stoppedBySuite, ...(!stoppedBySuite && pastDeadlineMs !== undefined && { pastDeadlineMs }) };

  function observed(answer: ApiResponse<DurableRunAnswer>): void {
    const at = Date.now();
    const run = answer.data?.run;
    if (run) dispatch({ type: 'observe', at, snapshot: { run, requestId: answer.data.request_id, readAt: at, meta: answer }, meta: metaOf(answer) });
  }

  /** Follows a durable run to its end; answers the last read's body. */
  async function follow(): Promise<string | undefined> {
    const runId = record.runId;
    if (!runId) return undefined;
    const agentId = request.agentId;
    const until = Date.now() + (env.durableDeadlineMs ?? 300_000);
    let last: string | undefined;
    let reads = 0;
    let answered = '';
    while (isFollowed(record.state.status)) {
      if (signal.aborted) {
        // A suite stopped leaves nothing running at the service: the run is asked to cancel (once, whatever it answers).
        try {
          const answer = await apiRequest<DurableRunAnswer>(env.connection, platformCancellationsPath(agentId), { method: 'POST', body: { run_id: runId } });
          dispatch({ type: 'cancel-requested', at: Date.now() });
          observed(answer);
          last = answer.rawBody;
        } catch {
          // Already over, or not cancellable now: the case is stopped all the same.
        }
        return last;
      }
      if (Date.now() > until) {
        dispatch({ type: 'read-failed', at: Date.now(), error: new ApiError('network', 0, 'Deadline', `The run was still ${record.state.status} after ${Math.round((env.durableDeadlineMs ?? 300_000) / 1000)} s; the suite stopped following it.`, undefined, undefined) });
        return last;
      }
      const run = record.state.durable?.run;
      const pending = run?.pending_interactions ?? [];
      const batch = pending.map((p) => p.interaction_id).join(' ');
      if (record.state.status === 'REQUIRES_INPUT' && pending.length && batch !== answered) {
        answered = batch;
        const chosen = decide(policy, pending);
        decisions.push(...chosen);
        try {
          const answer = await apiRequest<DurableRunAnswer>(env.connection, platformResponsesPath(agentId), {
            method: 'POST',
            body: { run_id: runId, responses: chosen.map((d) => ({ interaction_id: d.interactionId, decision: d.decision })) },
          });
          dispatch({ type: 'decided', at: Date.now(), decisions: chosen.map((d) => ({ name: d.name, ...(d.tool !== d.name && { toolId: d.tool }), decision: d.decision })) });
          observed(answer);
          last = answer.rawBody;
          reads = 0;
          continue;
        } catch {
          // A 409: the run moved on; it is read again below.
        }
      }
      const wait = run ? suitePollMs(run, reads) : 200;
      await sleep(wait === false ? 0 : wait, stops);
      if (signal.aborted) continue;
      try {
        const answer = await apiRequest<DurableRunAnswer>(env.connection, platformRunPath(agentId, runId));
        observed(answer);
        last = answer.rawBody;
      } catch (err) {
        const error = err instanceof ApiError ? err : new ApiError('network', 0, 'No answer', String(err), undefined, undefined);
        dispatch({ type: 'read-failed', at: Date.now(), error });
        if (UNREADABLE.includes(error.status)) return last;
      }
      reads++;
    }
    return last;
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
  const shared = new SharedLoads(env);
  const stops = new StopFan(signal);
  const results: (CaseResult | undefined)[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (!signal.aborted && next < items.length) {
      const i = next++;
      const item = items[i]!;
      options.onStart?.(item);
      const result = await runItem(item, env, stops, shared);
      results[i] = result;
      options.onResult?.(result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results.filter((r): r is CaseResult => r !== undefined);
}
