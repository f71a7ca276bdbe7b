import { randomBytes } from 'node:crypto';
import type { Message } from '../../contract/agents.ts';
import { isActiveState, type RunConflictReason, type Decision, type ApprovalResponse, type DurableRunError, type ToolApproval } from '../../contract/durable-runs.ts';
import { planRun, type AgentDefinition } from '../agents.ts';
import { clip, listText } from '../problem-list.ts';
import type { RunRequest } from '../runs.ts';
import { Slice } from '../turns.ts';
import { every, systemClock, type Clock, type Timer } from './clock.ts';
import type { ScriptFailure, ScriptStep, ScriptTool, DurableScript } from './script.ts';
import { DurableRunStore, pendingOf, runJson, type RunRow, type StoredInteraction, type StoredRequest } from './store.ts';

/** The platform's documented defaults: a 30-minute execution timeout plus 10 minutes of grace. */
export const DEFAULT_DURABLE_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_DURABLE_GRACE_MS = 10 * 60_000;

/** Terminal runs are deleted this long after they ended (`--durable-retention`). */
export const DEFAULT_DURABLE_RETENTION_MS = 24 * 3_600_000;

/**
 * The clean-up sweep runs once per retention period, but never more often than every
 * SWEEP_MIN_PERIOD_MS (a 1 ms retention would otherwise sweep a thousand times a second,
 * taking CPU while idle) nor less often than every SWEEP_MAX_PERIOD_MS. A read of a run past
 * its retention deletes it at once, so a floor costs no correctness.
 */
export const SWEEP_MIN_PERIOD_MS = 1_000;
export const SWEEP_MAX_PERIOD_MS = 60_000;

export function sweepPeriodMs(retentionMs: number): number {
  return Math.max(SWEEP_MIN_PERIOD_MS, Math.min(retentionMs, SWEEP_MAX_PERIOD_MS));
}

/** A run's output text is bounded: past this many UTF-8 bytes it fails (reference choice). */
export const DEFAULT_DURABLE_MAX_OUTPUT_BYTES = 1024 * 1024;

/** When a token at its durable-run cap may try again: durable runs last seconds to minutes, or wait for a decision. */
export const DURABLE_LIMIT_RETRY_AFTER_S = 30;

/** Output is written at most this often while a turn produces it without pausing. */
const OUTPUT_WRITE_INTERVAL_MS = 200;

export interface DurableOptions {
  /** Execution deadline of each active turn, from its acceptance. */
  timeoutMs?: number;
  /** Time after the deadline before a read marks a still-active run FAILED. */
  graceMs?: number;
  /** Runs not over (active or waiting for decisions) one token may have; 0 for no cap. */
  maxRunsPerToken?: number;
  /** How long a terminal run is kept before it is deleted. */
  retentionMs?: number;
  /** The bound on a run's output text, in UTF-8 bytes. */
  maxOutputBytes?: number;
  clock?: Clock;
}

/** A 409's `reason` member says which rule refused the request. */
export type Outcome = { ok: true; run: string } | { ok: false; reason: RunConflictReason; detail: string };

export type Created = { ok: true; run: string } | { ok: false; limit: number };

/** One unit of a turn's work: wait (the work itself), then output, fail, pause or vanish. */
interface WorkStep {
  delayMs: number;
  cancellable: boolean;
  text?: string;
  /** The text extends the turn's last message (a request-bound script's fragments) instead of adding one. */
  fragment?: boolean;
  fail?: ScriptFailure;
  /** The worker disappears without recording anything, as a crashed one would. */
  vanish?: boolean;
  pause?: { cursor: number; tools: ScriptTool[] };
}

/**
 * The in-process side of a run a worker holds: its cancellation registration and its stop
 * signal. What the run is, the database says; a worker learns it there before writing.
 */
interface Worker {
  lease: string;
  /** Cooperative cancellation was asked for. */
  cancel: AbortController;
  /** Past the deadline, failed by expiry, or the service is stopping: the worker stops without writing. */
  halt: AbortController;
  cancellable: boolean;
}

const AI_MESSAGE_PARTS = JSON.stringify({ role: 'GLEAN_AI', content: [{ type: 'text', text: '\u0000' }] } satisfies Message).split(JSON.stringify('\u0000')) as [string, string];
const aiMessageJson = (text: string) => AI_MESSAGE_PARTS[0] + JSON.stringify(text) + AI_MESSAGE_PARTS[1];

function* expand(step: ScriptStep): Generator<WorkStep> {
  const times = step.repeat ?? 1;
  for (let n = 1; n <= times; n++) {
    yield {
      delayMs: step.delayMs ?? 0,
      cancellable: step.cancellable !== false,
      ...(step.text !== undefined && { text: step.text.replaceAll('{{n}}', String(n)) }),
      ...(step.fail && { fail: step.fail }),
    };
    if (step.fail) return;
  }
}

/** A scripted turn: the decided tools' branches, then the main steps from `from` up to the next pause. */
function* scriptTurn(script: DurableScript, from: number, branches: ScriptStep[][]): Generator<WorkStep> {
  for (const branch of branches) for (const step of branch) yield* expand(step);
  for (let i = from; i < script.steps.length; i++) {
    const step = script.steps[i]!;
    yield* expand(step);
    if (step.fail) return;
    if (step.approval) {
      yield { delayMs: 0, cancellable: true, pause: { cursor: i, tools: step.approval } };
      return;
    }
  }
}

/** An agent without a durable script: its request-bound script, its fragments growing one message. */
function* planTurn(agent: AgentDefinition, request: StoredRequest): Generator<WorkStep> {
  for (const step of planRun(agent, request.input, request.messages)) {
    if (step.drop) yield { delayMs: step.delayMs, cancellable: true, vanish: true };
    else if (step.failure) yield { delayMs: step.delayMs, cancellable: true, fail: { code: step.failure.code, message: step.failure.detail } };
    else yield { delayMs: step.delayMs, cancellable: true, text: step.text ?? '', fragment: true };
  }
}

/**
 * A run's output as JSON, grown message by message: the messages before the last stay
 * serialized, so writing the output does not serialize the whole run again each time.
 */
class OutputJson {
  /** The serialized messages before `open`, comma-separated. */
  private closed: string;
  /** The text of the turn's last message while fragments still extend it. */
  private open: string | undefined;
  bytes: number;

  constructor(stored: string, bytes: number) {
    this.closed = stored.slice(1, -1);
    this.bytes = bytes;
  }

  /** Adds `text`, unless it would take the output past `max` bytes: then false, and nothing is added. */
  add(text: string, fragment: boolean, max: number): boolean {
    const size = Buffer.byteLength(text);
    if (this.bytes + size > max) return false;
    this.bytes += size;
    if (fragment && this.open !== undefined) {
      this.open += text;
      return true;
    }
    this.close();
    if (fragment) this.open = text;
    else this.closed += (this.closed ? ',' : '') + aiMessageJson(text);
    return true;
  }

  private close(): void {
    if (this.open === undefined) return;
    this.closed += (this.closed ? ',' : '') + aiMessageJson(this.open);
    this.open = undefined;
  }

  json(): string {
    if (this.open === undefined) return `[${this.closed}]`;
    return `[${this.closed}${this.closed ? ',' : ''}${aiMessageJson(this.open)}]`;
  }
}

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const iso = (ms: number) => new Date(ms).toISOString();
const TERMINAL_PATCH = { expires_at: null, overdue_at: null } as const;

/**
 * Durable runs: persisted, executed in the background (not tied to any HTTP request), paused
 * for tool approvals, cooperatively cancelled, expired when read past their deadline, and
 * deleted a retention period after they ended.
 *
 * The database row is the only state of a run. Every change is a guarded write (`UPDATE …
 * WHERE state IN (…)`, and for a worker `AND lease = <its own>`), so a terminal state is
 * final and a worker that lost its run (expired, cancelled while paused, or held by another)
 * writes nothing. Workers live in this process only: after a restart an active run is not
 * resumed, and has no cancellation registration.
 */
export class DurableRuns {
  readonly store: DurableRunStore;
  readonly timeoutMs: number;
  readonly graceMs: number;
  readonly maxRunsPerToken: number;
  readonly retentionMs: number;
  readonly maxOutputBytes: number;
  readonly clock: Clock;
  private readonly workers = new Map<string, Worker>();
  private stopped = false;
  /** Settles when a run's worker has finished, for tests and a clean shutdown. */
  private readonly running = new Map<string, Promise<void>>();
  /** Workers that could do something now (not waiting on the clock): see `quiescent`. */
  private busy = 0;
  private readonly sweeper: Timer;

  constructor(store: DurableRunStore, options: DurableOptions = {}) {
    this.store = store;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_DURABLE_TIMEOUT_MS;
    this.graceMs = options.graceMs ?? DEFAULT_DURABLE_GRACE_MS;
    this.maxRunsPerToken = options.maxRunsPerToken ?? 0;
    this.retentionMs = options.retentionMs ?? DEFAULT_DURABLE_RETENTION_MS;
    this.maxOutputBytes = options.maxOutputBytes ?? DEFAULT_DURABLE_MAX_OUTPUT_BYTES;
    this.clock = options.clock ?? systemClock;
    // Ended runs go even when nobody reads or creates any (a read of one also deletes it, below).
    this.sweep();
    this.sweeper = every(this.clock, sweepPeriodMs(this.retentionMs), () => this.sweep());
  }

  /**
   * Persists a new run, answers its first snapshot, and starts it in the background; refused when
   * the owner is at the cap. `clientRunId` (X-Sandbox-Client-Run-Id) is kept to find it by.
   */
  create(owner: string, run: RunRequest, clientRunId?: string): Created {
    const now = this.clock.now();
    this.sweep();
    if (this.maxRunsPerToken > 0 && this.store.liveCount(owner, now) >= this.maxRunsPerToken) return { ok: false, limit: this.maxRunsPerToken };
    const request: StoredRequest = {
      ...(run.input !== undefined && { input: run.input }),
      ...(run.messages !== undefined && { messages: run.messages }),
      ...(run.metadata !== undefined && { metadata: run.metadata }),
    };
    const script = run.agent.behaviour.durable;
    const row: RunRow = {
      run_id: newId('run'),
      agent_id: run.agent.agent_id,
      owner,
      state: 'QUEUED',
      created_at: iso(now),
      updated_at: iso(now),
      expires_at: iso(now + this.timeoutMs),
      overdue_at: iso(now + this.timeoutMs + this.graceMs),
      request: JSON.stringify(request),
      script: script ? JSON.stringify(script) : null,
      cursor: -1,
      turn: 0,
      output: '[]',
      output_bytes: 0,
      pending: '[]',
      error: null,
      lease: newId('wrk'),
      ended_ms: null,
      client_run_id: clientRunId ?? null,
    };
    this.store.insert(row);
    this.startWorker(row, script ?? null, script ? scriptTurn(script, 0, []) : planTurn(run.agent, request));
    return { ok: true, run: runJson(row) };
  }

  /**
   * The caller's run, or undefined for an unknown run, another owner's, another agent's, or
   * one past its retention: all look the same from outside (404). Reading it applies
   * read-triggered expiry.
   */
  find(owner: string, agentId: string, runId: string): RunRow | undefined {
    const row = this.store.get(runId);
    if (!row || row.owner !== owner || row.agent_id !== agentId) return undefined;
    if (row.ended_ms !== null && row.ended_ms + this.retentionMs <= this.clock.now()) {
      this.store.delete(runId);
      return undefined;
    }
    return this.expireIfOverdue(row);
  }

  /** The owner's runs started with `clientRunId`, newest first (an ended run past its retention is gone, as for `find`). */
  findByClient(owner: string, clientRunId: string): RunRow[] {
    const now = this.clock.now();
    return this.store.byClient(owner, clientRunId).filter((row) => {
      if (row.ended_ms === null || row.ended_ms + this.retentionMs > now) return true;
      this.store.delete(row.run_id);
      return false;
    });
  }

  snapshot(row: RunRow): string {
    return runJson(row);
  }

  cancel(row: RunRow): Outcome {
    const { run_id: id, state } = row;
    if (state === 'REQUIRES_INPUT') {
      // Paused: nothing runs, so it is cancelled at once, without resuming.
      if (this.store.write(id, ['REQUIRES_INPUT'], { state: 'CANCELLED', pending: '[]', ...TERMINAL_PATCH }, this.clock.now())) return this.current(id);
      return this.cancel(this.store.get(id)!);
    }
    if (state === 'CANCELLING' || !isActiveState(state)) return { ok: true, run: runJson(row) };
    const worker = this.workers.get(id);
    if (!worker || worker.lease !== row.lease || worker.halt.signal.aborted) {
      return {
        ok: false,
        reason: 'not_cancellable',
        detail:
          `Run ${id} is ${state} but no worker of this service holds it (the service restarted, or the run passed its execution deadline), ` +
          'so there is no cancellation registration. It becomes FAILED at the first read after its deadline and grace.',
      };
    }
    if (!worker.cancellable) {
      return {
        ok: false,
        reason: 'not_cancellable',
        detail: `Run ${id} is in a step that cannot be interrupted (a tool call in flight); try again when that step is over.`,
      };
    }
    if (!this.store.write(id, ['QUEUED', 'RUNNING'], { state: 'CANCELLING' }, this.clock.now(), { lease: worker.lease })) {
      return this.cancel(this.store.get(id)!);
    }
    worker.cancel.abort();
    return this.current(id);
  }

  respond(row: RunRow, responses: ApprovalResponse[]): Outcome {
    const id = row.run_id;
    const ids = responses.map((r) => r.interaction_id);
    // A set, not indexOf per id: 23,000 ids took the event loop for a second and more.
    const unique = new Set<string>();
    const dup = ids.find((x) => unique.size === unique.add(x).size);
    if (dup !== undefined) {
      return { ok: false, reason: 'duplicate_interaction', detail: `Interaction ${clip(dup)} appears more than once; send one decision per interaction.` };
    }
    const accepted = new Map(this.store.decisions(id).map((d) => [d.interaction_id, d]));
    const repeated = responses.filter((r) => accepted.has(r.interaction_id));
    if (repeated.length) {
      const changed = repeated.find((r) => accepted.get(r.interaction_id)!.decision !== r.decision);
      if (changed) {
        const before = accepted.get(changed.interaction_id)!.decision;
        return {
          ok: false,
          reason: 'conflicting_decision',
          detail: `Interaction ${clip(changed.interaction_id)} was already answered ${before}; ${changed.decision} conflicts with it.`,
        };
      }
      const turn = accepted.get(repeated[0]!.interaction_id)!.turn;
      const batch = [...accepted.values()].filter((d) => d.turn === turn);
      const identical = repeated.length === responses.length && batch.length === responses.length && responses.every((r) => accepted.get(r.interaction_id)!.turn === turn);
      if (identical) return { ok: true, run: runJson(row) };
      return {
        ok: false,
        reason: 'stale_decision',
        detail: `Interaction(s) ${listText(repeated.map((r) => r.interaction_id))} were already answered in another batch; send the pending batch as it is.`,
      };
    }
    if (row.state !== 'REQUIRES_INPUT') {
      return {
        ok: false,
        reason: 'not_pending',
        detail: `Run ${id} is ${row.state}, not waiting for approvals: interaction(s) ${listText(ids)} are not pending.`,
      };
    }
    const stored = pendingOf(row);
    const pending = new Map(stored.map((p) => [p.approval.interaction_id, p]));
    const unknown = ids.filter((x) => !pending.has(x));
    if (unknown.length) {
      return { ok: false, reason: 'not_pending', detail: `Interaction(s) ${listText(unknown)} are not pending on run ${id}.` };
    }
    const missing = [...pending.keys()].filter((x) => !unique.has(x));
    if (missing.length) {
      return {
        ok: false,
        reason: 'incomplete_decisions',
        detail: `Send one decision per pending interaction; missing: ${missing.join(', ')}.`,
      };
    }
    const now = this.clock.now();
    const expired = stored.find((p) => p.approval.expires_at !== undefined && Date.parse(p.approval.expires_at) <= now);
    if (expired) {
      return {
        ok: false,
        reason: 'approval_expired',
        detail: `The approval ${expired.approval.interaction_id} expired at ${expired.approval.expires_at}; the run can only be cancelled now.`,
      };
    }
    return this.resume(row, stored, new Map(responses.map((r) => [r.interaction_id, r.decision])), now);
  }

  /** Stops every worker; nothing is written after this (the database is about to close). */
  stop(): void {
    this.stopped = true;
    this.sweeper.cancel();
    for (const w of this.workers.values()) w.halt.abort();
  }

  /** Settles when the run's current worker, if any, has finished. */
  settled(runId: string): Promise<void> {
    return this.running.get(runId) ?? Promise.resolve();
  }

  /**
   * Resolves once no worker could do anything without the clock moving on: each has finished
   * or waits for a time on the clock. With a clock a test drives, the runs are then at rest.
   */
  async quiescent(): Promise<void> {
    while (this.busy > 0) await new Promise((resolve) => setImmediate(resolve));
  }

  private current(id: string): Outcome {
    return { ok: true, run: runJson(this.store.get(id)!) };
  }

  private sweep(): void {
    this.store.sweep(this.clock.now() - this.retentionMs);
  }

  private resume(row: RunRow, stored: StoredInteraction[], decisions: Map<string, Decision>, now: number): Outcome {
    const script = JSON.parse(row.script!) as DurableScript;
    const tools = script.steps[row.cursor]!.approval!;
    const branches = stored.map((p) => {
      const tool = tools[p.tool]!;
      return decisions.get(p.approval.interaction_id) === 'APPROVE' ? tool.onApprove : tool.onReject;
    });
    const turn = row.turn + 1;
    const lease = newId('wrk');
    // Each accepted continuation starts a fresh execution deadline.
    const expiresAt = iso(now + this.timeoutMs);
    const accepted = this.store.transaction(() => {
      const moved = this.store.write(
        row.run_id,
        ['REQUIRES_INPUT'],
        { state: 'RUNNING', turn, pending: '[]', lease, expires_at: expiresAt, overdue_at: iso(now + this.timeoutMs + this.graceMs) },
        now,
        { turn: row.turn },
      );
      if (moved) {
        const batch = stored.map((p) => ({ interaction_id: p.approval.interaction_id, decision: decisions.get(p.approval.interaction_id)! }));
        this.store.addDecisions(row.run_id, turn, batch, iso(now));
      }
      return moved;
    });
    const fresh = this.store.get(row.run_id)!;
    if (!accepted) {
      return { ok: false, reason: 'not_pending', detail: `Run ${row.run_id} is ${fresh.state}, no longer waiting for these approvals.` };
    }
    this.startWorker(fresh, script, scriptTurn(script, row.cursor + 1, branches));
    return { ok: true, run: runJson(fresh) };
  }

  private expireIfOverdue(row: RunRow): RunRow {
    const now = this.clock.now();
    if (!isActiveState(row.state) || row.overdue_at === null || now <= Date.parse(row.overdue_at)) return row;
    const worker = this.workers.get(row.run_id);
    if (worker?.lease === row.lease) worker.halt.abort();
    const minutes = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms} ms`);
    const error: DurableRunError = {
      code: 'execution_deadline_exceeded',
      message:
        `The run was still ${row.state} past its execution deadline (${minutes(this.timeoutMs)}) plus ${minutes(this.graceMs)} of grace, ` +
        'so it was marked FAILED when read. This does not prove that external tool work has stopped.',
    };
    this.store.write(row.run_id, [row.state], { state: 'FAILED', error: JSON.stringify(error), ...TERMINAL_PATCH }, now);
    return this.store.get(row.run_id)!;
  }

  /** Waits `ms` on the clock, or less when one of `signals` fires; the worker counts as waiting meanwhile. */
  private nap(ms: number, signals: AbortSignal[]): Promise<void> {
    if (signals.some((s) => s.aborted)) return Promise.resolve();
    this.busy--;
    return new Promise((resolve) => {
      let done = false;
      const wake = () => {
        if (done) return;
        done = true;
        timer.cancel();
        for (const s of signals) s.removeEventListener('abort', wake);
        this.busy++;
        resolve();
      };
      const timer = this.clock.setTimer(wake, ms);
      for (const s of signals) s.addEventListener('abort', wake, { once: true });
    });
  }

  private startWorker(row: RunRow, script: DurableScript | null, steps: Iterator<WorkStep>): void {
    const worker: Worker = { lease: row.lease!, cancel: new AbortController(), halt: new AbortController(), cancellable: true };
    this.workers.set(row.run_id, worker);
    this.busy++;
    // The worker gives up at the execution deadline without recording anything, as a lost
    // one would: the stored run stays active until a read past the grace marks it FAILED.
    const deadline = this.clock.setTimer(() => worker.halt.abort(), Math.max(0, Date.parse(row.expires_at!) - this.clock.now()));
    const done = this.work(row.run_id, script, steps, worker)
      .catch((err: unknown) => {
        if (!this.stopped) console.error(`[reference-service] durable run ${row.run_id}: ${(err as Error).message}`);
      })
      .finally(() => {
        this.busy--;
        deadline.cancel();
        if (this.workers.get(row.run_id) === worker) this.workers.delete(row.run_id);
        if (this.running.get(row.run_id) === done) this.running.delete(row.run_id);
      });
    this.running.set(row.run_id, done);
  }

  private async work(id: string, script: DurableScript | null, steps: Iterator<WorkStep>, worker: Worker): Promise<void> {
    const { cancel, halt } = worker;
    const lease = { lease: worker.lease };
    const stepSignals = [cancel.signal, halt.signal];
    // Picked up when the scheduler gets to it: until then the run stays QUEUED.
    await this.nap(0, stepSignals);
    if (halt.signal.aborted) return;
    const start = this.store.get(id);
    if (!start || start.lease !== worker.lease) return;
    if (start.state === 'QUEUED' && !this.store.write(id, ['QUEUED'], { state: 'RUNNING' }, this.clock.now(), lease)) {
      return this.afterRefusedWrite(id, script, worker);
    }
    // A cancellation may have arrived before the worker's first turn: then it never runs.
    if (cancel.signal.aborted) return this.afterRefusedWrite(id, script, worker);

    const output = new OutputJson(start.output, start.output_bytes);
    let dirty = false;
    let lastWrite = this.clock.now();
    // The same fair share of the event loop as request-bound runs, whatever the agent.
    const slice = new Slice();
    /** Writes the output; false when the worker no longer holds a run it may write to. */
    const flush = (at = this.clock.now()): boolean => {
      if (!dirty) return true;
      dirty = false;
      lastWrite = at;
      return this.store.write(id, ['RUNNING', 'CANCELLING'], { output: output.json(), output_bytes: output.bytes }, at, lease);
    };
    /** Ends the turn with `patch` (from RUNNING only), its output written first; a cancellation that came first wins. */
    const finish = (patch: Parameters<DurableRunStore['write']>[2], at = this.clock.now()): Promise<void> | undefined => {
      if (!flush(at)) return undefined;
      if (this.store.write(id, ['RUNNING'], patch, at, lease)) return undefined;
      return this.afterRefusedWrite(id, script, worker);
    };

    for (let next = steps.next(); !next.done; next = steps.next()) {
      const step = next.value;
      if (cancel.signal.aborted) break;
      worker.cancellable = step.cancellable;
      if (step.delayMs > 0) {
        if (!flush()) return;
        await this.nap(step.delayMs, stepSignals);
        slice.restart();
      } else if (slice.spent) {
        // A run of instant steps (the firehose) must not hold the event loop. Its output is
        // still written at most every OUTPUT_WRITE_INTERVAL_MS below.
        await slice.yield();
      }
      if (halt.signal.aborted) return;
      if (cancel.signal.aborted) break;
      if (step.vanish) {
        flush();
        return;
      }
      if (step.fail) return finish({ state: 'FAILED', error: JSON.stringify(step.fail), ...TERMINAL_PATCH });
      if (step.text !== undefined) {
        if (!output.add(step.text, step.fragment === true, this.maxOutputBytes)) {
          const error: DurableRunError = {
            code: 'output_limit_exceeded',
            message:
              `The run's output reached the reference service's bound of ${this.maxOutputBytes.toLocaleString('en-US')} bytes of text, ` +
              'so it was stopped and marked FAILED; the output kept is what it had produced before.',
          };
          return finish({ state: 'FAILED', error: JSON.stringify(error), ...TERMINAL_PATCH });
        }
        dirty = true;
        if (step.delayMs > 0 || this.clock.now() - lastWrite >= OUTPUT_WRITE_INTERVAL_MS) {
          if (!flush()) return;
        }
      }
      if (step.pause) {
        const pausedAt = this.clock.now();
        const pending: StoredInteraction[] = step.pause.tools.map((tool, i) => {
          const approval: ToolApproval = {
            interaction_id: newId('int'),
            type: 'TOOL_APPROVAL',
            ...(tool.tool_id !== undefined && { tool_id: tool.tool_id }),
            display_name: tool.display_name,
            description: tool.description,
            arguments: tool.arguments,
            ...(tool.expiresInMs !== undefined && { expires_at: iso(pausedAt + tool.expiresInMs) }),
          };
          return { approval, tool: i };
        });
        // Paused runs have no execution deadline and never expire; no worker holds them.
        return finish({ state: 'REQUIRES_INPUT', pending: JSON.stringify(pending), cursor: step.pause.cursor, lease: null, ...TERMINAL_PATCH }, pausedAt);
      }
    }
    if (cancel.signal.aborted) {
      if (!flush()) return;
      return this.afterRefusedWrite(id, script, worker);
    }
    return finish({ state: 'SUCCEEDED', ...TERMINAL_PATCH });
  }

  /**
   * The run is not RUNNING under this worker any more. If it is CANCELLING under this
   * worker's lease, the worker cleans up and records CANCELLED; otherwise the run is no
   * longer its own (expired, or ended) and it stops without writing.
   */
  private async afterRefusedWrite(id: string, script: DurableScript | null, worker: Worker): Promise<void> {
    const row = this.store.get(id);
    if (!row || row.lease !== worker.lease || row.state !== 'CANCELLING') return;
    const cleanup = script?.cancelDelayMs ?? 0;
    // Clean-up is not interrupted by the cancellation it answers, only by the deadline or a stop.
    if (cleanup > 0) await this.nap(cleanup, [worker.halt.signal]);
    if (worker.halt.signal.aborted) return;
    this.store.write(id, ['CANCELLING'], { state: 'CANCELLED', ...TERMINAL_PATCH }, this.clock.now(), { lease: worker.lease });
  }
}
