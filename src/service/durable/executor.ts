import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Message } from '../../contract/agents.ts';
import { isActiveState, type RunConflictReason, type Decision, type ApprovalResponse, type DurableRun, type ToolApproval } from '../../contract/durable-runs.ts';
import { planRun, sleep, type AgentDefinition } from '../agents.ts';
import { Slice, type RunRequest } from '../runs.ts';
import type { ScriptFailure, ScriptStep, ScriptTool, DurableScript } from './script.ts';
import { DurableRunStore, wireRun, type RunRecord, type StoredInteraction } from './store.ts';

/** The platform's documented defaults: a 30-minute execution timeout plus 10 minutes of grace. */
export const DEFAULT_DURABLE_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_DURABLE_GRACE_MS = 10 * 60_000;

export interface DurableOptions {
  /** Execution deadline of each active turn, from its acceptance. */
  timeoutMs?: number;
  /** Time after the deadline before a read marks a still-active run FAILED. */
  graceMs?: number;
}

/** A 409's `reason` member says which rule refused the request. */
export type Outcome = { ok: true; run: DurableRun } | { ok: false; reason: RunConflictReason; detail: string };

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

interface Worker {
  controller: AbortController;
  cancellable: boolean;
  cancelRequested: boolean;
  /** Past its deadline, or the run was failed by expiry: it stops without writing. */
  abandoned: boolean;
}

const aiMessage = (text: string): Message => ({ role: 'GLEAN_AI', content: [{ type: 'text', text }] });

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
function* planTurn(agent: AgentDefinition, request: RunRecord['request']): Generator<WorkStep> {
  for (const step of planRun(agent, request.input, request.messages)) {
    if (step.drop) yield { delayMs: step.delayMs, cancellable: true, vanish: true };
    else if (step.failure) yield { delayMs: step.delayMs, cancellable: true, fail: { code: step.failure.code, message: step.failure.detail } };
    else yield { delayMs: step.delayMs, cancellable: true, text: step.text ?? '', fragment: true };
  }
}

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Durable runs: persisted, executed in the background (not tied to any HTTP request), paused
 * for tool approvals, cooperatively cancelled, and expired when read past their deadline.
 * Workers live in this process only: after a restart an active run is not resumed.
 */
export class DurableRuns {
  readonly store: DurableRunStore;
  readonly timeoutMs: number;
  readonly graceMs: number;
  private readonly workers = new Map<string, Worker>();
  private stopped = false;
  private readonly stopController = new AbortController();
  /** Settles when a run's worker has finished, for tests and a clean shutdown. */
  private readonly running = new Map<string, Promise<void>>();

  constructor(store: DurableRunStore, options: DurableOptions = {}) {
    this.store = store;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_DURABLE_TIMEOUT_MS;
    this.graceMs = options.graceMs ?? DEFAULT_DURABLE_GRACE_MS;
  }

  /** Persists a new run, answers its first snapshot, and starts it on the next turn of the event loop. */
  create(owner: string, run: RunRequest): DurableRun {
    const now = Date.now();
    const record: RunRecord = {
      run_id: newId('run'),
      agent_id: run.agent.agent_id,
      owner,
      state: 'QUEUED',
      created_at: iso(now),
      updated_at: iso(now),
      expires_at: iso(now + this.timeoutMs),
      overdue_at: iso(now + this.timeoutMs + this.graceMs),
      request: {
        ...(run.input !== undefined && { input: run.input }),
        ...(run.messages !== undefined && { messages: run.messages }),
        ...(run.metadata !== undefined && { metadata: run.metadata }),
      },
      script: run.agent.behaviour.durable ?? null,
      cursor: -1,
      turn: 0,
      output: [],
      pending: [],
      error: null,
    };
    this.store.insert(record);
    const steps = record.script ? scriptTurn(record.script, 0, []) : planTurn(run.agent, record.request);
    this.startWorker(record, steps);
    return wireRun(record);
  }

  /**
   * The caller's run, or undefined for an unknown run, another owner's, or another agent's:
   * all three look the same from outside (404). Reading it applies read-triggered expiry.
   */
  find(owner: string, agentId: string, runId: string): RunRecord | undefined {
    const record = this.store.get(runId);
    if (!record || record.owner !== owner || record.agent_id !== agentId) return undefined;
    return this.expireIfOverdue(record);
  }

  snapshot(record: RunRecord): DurableRun {
    return wireRun(record);
  }

  cancel(record: RunRecord): Outcome {
    const { run_id: id, state } = record;
    if (state === 'REQUIRES_INPUT') {
      // Paused: nothing runs, so it is cancelled at once, without resuming.
      return { ok: true, run: this.write(record, { state: 'CANCELLED', pending: [], expires_at: null, overdue_at: null }) };
    }
    if (state === 'CANCELLING' || !isActiveState(state)) return { ok: true, run: wireRun(record) };
    const worker = this.workers.get(id);
    if (!worker || worker.abandoned) {
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
    worker.cancelRequested = true;
    const run = this.write(record, { state: 'CANCELLING' });
    worker.controller.abort();
    return { ok: true, run };
  }

  respond(record: RunRecord, responses: ApprovalResponse[]): Outcome {
    const id = record.run_id;
    const ids = responses.map((r) => r.interaction_id);
    const dup = ids.find((x, i) => ids.indexOf(x) !== i);
    if (dup !== undefined) {
      return { ok: false, reason: 'duplicate_interaction', detail: `Interaction ${dup} appears more than once; send one decision per interaction.` };
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
          detail: `Interaction ${changed.interaction_id} was already answered ${before}; ${changed.decision} conflicts with it.`,
        };
      }
      const turn = accepted.get(repeated[0]!.interaction_id)!.turn;
      const batch = [...accepted.values()].filter((d) => d.turn === turn);
      const identical = repeated.length === responses.length && batch.length === responses.length && responses.every((r) => accepted.get(r.interaction_id)!.turn === turn);
      if (identical) return { ok: true, run: wireRun(record) };
      return {
        ok: false,
        reason: 'stale_decision',
        detail: `Interaction(s) ${repeated.map((r) => r.interaction_id).join(', ')} were already answered in another batch; send the pending batch as it is.`,
      };
    }
    if (record.state !== 'REQUIRES_INPUT') {
      return {
        ok: false,
        reason: 'not_pending',
        detail: `Run ${id} is ${record.state}, not waiting for approvals: interaction(s) ${ids.join(', ')} are not pending.`,
      };
    }
    const pending = new Map(record.pending.map((p) => [p.approval.interaction_id, p]));
    const unknown = ids.filter((x) => !pending.has(x));
    if (unknown.length) {
      return { ok: false, reason: 'not_pending', detail: `Interaction(s) ${unknown.join(', ')} are not pending on run ${id}.` };
    }
    const missing = [...pending.keys()].filter((x) => !ids.includes(x));
    if (missing.length) {
      return {
        ok: false,
        reason: 'incomplete_decisions',
        detail: `Send one decision per pending interaction; missing: ${missing.join(', ')}.`,
      };
    }
    const now = Date.now();
    const expired = record.pending.find((p) => p.approval.expires_at !== undefined && Date.parse(p.approval.expires_at) <= now);
    if (expired) {
      return {
        ok: false,
        reason: 'approval_expired',
        detail: `The approval ${expired.approval.interaction_id} expired at ${expired.approval.expires_at}; the run can only be cancelled now.`,
      };
    }
    return { ok: true, run: this.resume(record, new Map(responses.map((r) => [r.interaction_id, r.decision]))) };
  }

  /** Stops every worker; nothing is written after this (the database is about to close). */
  stop(): void {
    this.stopped = true;
    this.stopController.abort();
    for (const w of this.workers.values()) w.controller.abort();
  }

  /** Settles when the run's current worker, if any, has finished. */
  settled(runId: string): Promise<void> {
    return this.running.get(runId) ?? Promise.resolve();
  }

  private resume(record: RunRecord, decisions: Map<string, Decision>): DurableRun {
    const now = Date.now();
    const script = record.script!;
    const tools = script.steps[record.cursor]!.approval!;
    const branches = record.pending.map((p: StoredInteraction) => {
      const tool = tools[p.tool]!;
      return decisions.get(p.approval.interaction_id) === 'APPROVE' ? tool.onApprove : tool.onReject;
    });
    const turn = record.turn + 1;
    let run!: DurableRun;
    this.store.transaction(() => {
      this.store.addDecisions(record.run_id, turn, record.pending.map((p) => ({ interaction_id: p.approval.interaction_id, decision: decisions.get(p.approval.interaction_id)! })), iso(now));
      // Each accepted continuation starts a fresh execution deadline.
      run = this.write(record, { state: 'RUNNING', turn, pending: [], expires_at: iso(now + this.timeoutMs), overdue_at: iso(now + this.timeoutMs + this.graceMs) }, now);
    });
    this.startWorker(record, scriptTurn(script, record.cursor + 1, branches));
    return run;
  }

  private expireIfOverdue(record: RunRecord): RunRecord {
    if (!isActiveState(record.state) || record.overdue_at === null || Date.now() <= Date.parse(record.overdue_at)) return record;
    const worker = this.workers.get(record.run_id);
    if (worker) {
      worker.abandoned = true;
      worker.controller.abort();
    }
    const minutes = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms} ms`);
    this.write(record, {
      state: 'FAILED',
      expires_at: null,
      overdue_at: null,
      error: {
        code: 'execution_deadline_exceeded',
        message:
          `The run was still ${record.state} past its execution deadline (${minutes(this.timeoutMs)}) plus ${minutes(this.graceMs)} of grace, ` +
          'so it was marked FAILED when read. This does not prove that external tool work has stopped.',
      },
    });
    return record;
  }

  /** Persists a change to the run (and to `record`, which stays the current copy) and answers the new snapshot. */
  private write(record: RunRecord, patch: Partial<RunRecord>, at = Date.now()): DurableRun {
    const updated_at = iso(Math.max(at, Date.parse(record.updated_at)));
    Object.assign(record, patch, { updated_at });
    this.store.update(record.run_id, { ...patch, updated_at });
    return wireRun(record);
  }

  private startWorker(record: RunRecord, steps: Iterator<WorkStep>): void {
    const worker: Worker = { controller: new AbortController(), cancellable: true, cancelRequested: false, abandoned: false };
    this.workers.set(record.run_id, worker);
    // The worker gives up at the execution deadline without recording anything, as a lost
    // one would: the stored run stays active until a read past the grace marks it FAILED.
    const deadline = setTimeout(() => {
      worker.abandoned = true;
      worker.controller.abort();
    }, Math.max(0, Date.parse(record.expires_at!) - Date.now()));
    const done = this.work(record, steps, worker)
      .catch((err: unknown) => {
        if (!this.stopped) console.error(`[reference-service] durable run ${record.run_id}: ${(err as Error).message}`);
      })
      .finally(() => {
        clearTimeout(deadline);
        if (this.workers.get(record.run_id) === worker) this.workers.delete(record.run_id);
        if (this.running.get(record.run_id) === done) this.running.delete(record.run_id);
      });
    this.running.set(record.run_id, done);
  }

  private async work(record: RunRecord, steps: Iterator<WorkStep>, worker: Worker): Promise<void> {
    await nextTurn();
    const gone = () => this.stopped || worker.abandoned;
    if (gone()) return;
    const messages = [...record.output];
    let fragmentOpen = false;
    let dirty = false;
    let lastWrite = Date.now();
    // The same fair share of the event loop as request-bound runs, whatever the agent.
    const slice = new Slice();
    const flush = () => {
      if (!dirty) return;
      this.write(record, { output: messages });
      dirty = false;
      lastWrite = Date.now();
    };
    // A cancellation may have arrived before the worker's first turn: then it never runs.
    if (record.state === 'QUEUED' && !worker.cancelRequested) this.write(record, { state: 'RUNNING' });

    for (let next = steps.next(); !next.done; next = steps.next()) {
      const step = next.value;
      if (worker.cancelRequested) break;
      worker.cancellable = step.cancellable;
      if (step.delayMs > 0) {
        flush();
        await sleep(step.delayMs, worker.controller.signal);
        slice.restart();
      } else if (slice.spent) {
        // A run of instant steps (the firehose) must not hold the event loop. Its output is
        // still written at most every 200 ms below: rewriting a growing output on every
        // yield would turn the slices into database writes.
        await slice.yield();
      }
      if (gone()) return;
      if (worker.cancelRequested) break;
      if (step.vanish) {
        flush();
        worker.abandoned = true;
        return;
      }
      if (step.fail) {
        flush();
        this.write(record, { state: 'FAILED', error: step.fail, expires_at: null, overdue_at: null });
        return;
      }
      if (step.text !== undefined) {
        if (step.fragment && fragmentOpen) {
          const last = messages[messages.length - 1]!;
          messages[messages.length - 1] = aiMessage(last.content[0]!.text + step.text);
        } else {
          messages.push(aiMessage(step.text));
          fragmentOpen = step.fragment === true;
        }
        dirty = true;
        if (step.delayMs > 0 || Date.now() - lastWrite >= 200) flush();
      }
      if (step.pause) {
        flush();
        const pausedAt = Date.now();
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
        // Paused runs have no execution deadline and never expire.
        this.write(record, { state: 'REQUIRES_INPUT', pending, cursor: step.pause.cursor, expires_at: null, overdue_at: null }, pausedAt);
        return;
      }
    }
    flush();
    if (worker.cancelRequested) {
      const cleanup = record.script?.cancelDelayMs ?? 0;
      if (cleanup > 0) await sleep(cleanup, this.stopController.signal);
      if (this.stopped) return;
      this.write(record, { state: 'CANCELLED', expires_at: null, overdue_at: null });
      return;
    }
    this.write(record, { state: 'SUCCEEDED', expires_at: null, overdue_at: null });
  }
}
