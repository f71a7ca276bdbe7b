/**
 * Model-based test of durable runs: fast-check drives seeded random interleavings of create,
 * read, cancel, decisions (all kinds: approve, reject, incomplete, duplicate, unknown, stale,
 * conflicting, identical retries), the passing of time (execution deadlines, the grace
 * before read-triggered expiry, approval expiry, retention) and restarts (a new service on
 * the same SQLite data directory), against the real service over HTTP, and checks every
 * answer against a reference state machine.
 *
 * The reference machine is written from the official client's documentation
 * (@gleanwork/api-client 0.20.15: createRun with DURABLE, getRun, cancelRun, respondToRun;
 * quoted where it decides) and, where that is silent, from docs/api.md's reference choices
 * (409 reasons, the per-token cap, retention, the output bound). It does not import the
 * executor: it reads the agents' scripts (model-agents.json) on its own.
 *
 * Time is a clock the test moves in steps of 100 ms; the deadline, grace, retention and
 * approval expiry are chosen off that grid (…07, …10, …13, …50 ms) so no two events can
 * tie. After each command the test waits until every worker is idle on the clock, so what
 * the service did is exactly determined by the commands.
 */
import fc from 'fast-check';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { isTerminalState, type DurableRun } from '../../contract/durable-runs.ts';
import { platformCancellationsPath, platformResponsesPath, platformRunPath, platformRunsPath } from '../../contract/run-paths.ts';
import { AgentCatalog } from '../agents.ts';
import { assembleService, type Service } from '../app.ts';
import { listen } from '../node.ts';
import { seedIfEmpty } from '../seed.ts';
import { Store } from '../store.ts';
import { TOKENS } from '../test-http.ts';
import type { DurableScript, ScriptStep } from './script.ts';
import { DurableRunStore } from './store.ts';
import { clientModelErrors, ManualClock, USER_HI } from './test-support.ts';

const SEED = Number(process.env.DURABLE_MODEL_SEED ?? 0x0d0b1e);
const SEQUENCES = Number(process.env.DURABLE_MODEL_RUNS ?? 500);

const TIMEOUT = 10_007;
const GRACE = 5_003;
const RETENTION = 30_013;
const CAP = 3;
const MAX_OUTPUT = 400;
const CLOCK_START = Date.parse('2031-01-01T00:00:00.000Z');

const AGENTS_FILE = fileURLToPath(new URL('./model-agents.json', import.meta.url));
const SCRIPTS = new Map(
  (JSON.parse(readFileSync(AGENTS_FILE, 'utf8')) as { agents: { agent_id: string; behaviour: { durable: DurableScript } }[] }).agents.map((a) => [
    a.agent_id,
    a.behaviour.durable,
  ]),
);
const AGENT_IDS = [...SCRIPTS.keys()];
/** The two tokens runs belong to, by index. */
const tokenOf = (owner: number): string => (owner === 0 ? TOKENS.agents : TOKENS.everything);
const catalog = new AgentCatalog(AGENTS_FILE);

const iso = (ms: number) => new Date(ms).toISOString();
const bytes = (s: string) => Buffer.byteLength(s);

// --- The reference state machine ---------------------------------------------------------

type State = 'QUEUED' | 'RUNNING' | 'REQUIRES_INPUT' | 'SUCCEEDED' | 'FAILED' | 'CANCELLING' | 'CANCELLED';
type Decision = 'APPROVE' | 'REJECT';

/** One unit of work as the script describes it: wait `delay`, then write, fail or pause. */
interface Step {
  delay: number;
  cancellable: boolean;
  text?: string;
  fail?: string;
  pause?: number;
}

function stepsOf(step: ScriptStep): Step[] {
  return Array.from({ length: step.repeat ?? 1 }, (_, i) => ({
    delay: step.delayMs ?? 0,
    cancellable: step.cancellable !== false,
    ...(step.fail ? { fail: step.fail.code } : step.text !== undefined ? { text: step.text.replaceAll('{{n}}', String(i + 1)) } : {}),
  }));
}

/** A turn: the decided tools' branches, then the main steps from `from` to the next pause. */
function turnOf(script: DurableScript, from: number, branches: ScriptStep[][]): Step[] {
  const out = branches.flatMap((b) => b.flatMap(stepsOf));
  for (let i = from; i < script.steps.length; i++) {
    const s = script.steps[i]!;
    out.push(...stepsOf(s));
    if (s.fail) break;
    if (s.approval) {
      out.push({ delay: 0, cancellable: true, pause: i });
      break;
    }
  }
  return out;
}

interface Worker {
  steps: Step[];
  next: number;
  /** Picked up (QUEUED or just resumed), working, or cleaning up after a cancellation. */
  phase: 'pickup' | 'work' | 'cleanup';
  wakeAt: number;
  /** The next step's wait is over. */
  waited: boolean;
  /** Whether the step it waits in may be interrupted. */
  cancellable: boolean;
  /** "Each accepted continuation starts a fresh 30-minute execution timeout": past it the worker is gone. */
  deadline: number;
}

interface ModelRun {
  id: string;
  agent: string;
  owner: number;
  state: State;
  createdAt: number;
  output: string[];
  outputBytes: number;
  error?: string;
  expiresAt: number | null;
  overdueAt: number | null;
  endedAt: number | null;
  pending?: { cursor: number; ids?: string[]; expires: (number | undefined)[] };
  /** Accepted decisions, by interaction id, with the turn they resumed. */
  decisions: Map<string, { decision: Decision; turn: number }>;
  batches: { interaction_id: string; decision: Decision }[][];
  turn: number;
  worker?: Worker;
  deleted: boolean;
  /** Seen as terminal: the whole wire run then, which must never change. */
  frozen?: DurableRun;
  lastUpdatedAt?: string;
  /** For a snapshot of the run as it was answered: the run itself. */
  origin?: ModelRun;
}

type Expect = { status: 200 | 201; run: ModelRun } | { status: 404 } | { status: 409; reason: string } | { status: 429 };

class Model {
  now = CLOCK_START;
  runs: ModelRun[] = [];

  private script(r: ModelRun): DurableScript {
    return SCRIPTS.get(r.agent)!;
  }

  /** Reaching a terminal state: the run never changes again. */
  private end(r: ModelRun, state: State, error?: string): void {
    r.state = state;
    if (error) r.error = error;
    r.expiresAt = null;
    r.overdueAt = null;
    r.endedAt = this.now;
    r.worker = undefined;
  }

  /** "Durable execution continues after an HTTP disconnect": the worker goes on until it waits again. */
  private work(r: ModelRun): void {
    const w = r.worker!;
    if (w.phase === 'cleanup') return this.end(r, 'CANCELLED');
    if (w.phase === 'pickup') {
      w.phase = 'work';
      if (r.state === 'QUEUED') r.state = 'RUNNING';
    }
    for (;;) {
      const step = w.steps[w.next];
      if (!step) return this.end(r, 'SUCCEEDED');
      if (step.delay > 0 && !w.waited) {
        w.waited = true;
        w.cancellable = step.cancellable;
        w.wakeAt = this.now + step.delay;
        return;
      }
      w.waited = false;
      w.next++;
      if (step.fail) return this.end(r, 'FAILED', step.fail);
      if (step.text !== undefined) {
        // Reference choice (docs/api.md): the output text is bounded; past it the run fails.
        if (r.outputBytes + bytes(step.text) > MAX_OUTPUT) return this.end(r, 'FAILED', 'output_limit_exceeded');
        r.output.push(step.text);
        r.outputBytes += bytes(step.text);
      }
      if (step.pause !== undefined) {
        // "Paused runs are not expired": no deadline while waiting; no worker holds it.
        const tools = this.script(r).steps[step.pause]!.approval!;
        r.state = 'REQUIRES_INPUT';
        r.pending = { cursor: step.pause, expires: tools.map((t) => (t.expiresInMs === undefined ? undefined : this.now + t.expiresInMs)) };
        r.expiresAt = null;
        r.overdueAt = null;
        r.worker = undefined;
        return;
      }
    }
  }

  private start(r: ModelRun, steps: Step[]): void {
    r.expiresAt = this.now + TIMEOUT;
    r.overdueAt = this.now + TIMEOUT + GRACE;
    r.worker = { steps, next: 0, phase: 'pickup', wakeAt: this.now, waited: false, cancellable: true, deadline: r.expiresAt };
  }

  /** Time passes: workers wake and work, deadlines pass (the worker stops, recording nothing). */
  advance(ms: number): void {
    const target = this.now + ms;
    for (;;) {
      let due: { t: number; r: ModelRun; deadline: boolean } | undefined;
      for (const r of this.runs) {
        const w = r.worker;
        if (!w) continue;
        for (const [t, deadline] of [[w.wakeAt, false], [w.deadline, true]] as const) {
          if (t <= target && (!due || t < due.t)) due = { t, r, deadline };
        }
      }
      if (!due) break;
      this.now = Math.max(this.now, due.t);
      if (due.deadline) due.r.worker = undefined;
      else this.work(due.r);
    }
    this.now = target;
  }

  restart(): void {
    // "Not automatically resumed after a QE restart or crash."
    for (const r of this.runs) r.worker = undefined;
  }

  live(owner: number): number {
    return this.runs.filter(
      (r) => r.owner === owner && !r.deleted && !isTerminalState(r.state) && (r.overdueAt === null || r.overdueAt > this.now),
    ).length;
  }

  create(agent: string, owner: number): Expect {
    // Reference choice: a token may have CAP runs not yet over; more is 429 with Retry-After.
    if (this.live(owner) >= CAP) return { status: 429 };
    const r: ModelRun = {
      id: '',
      agent,
      owner,
      state: 'QUEUED',
      createdAt: this.now,
      output: [],
      outputBytes: 0,
      expiresAt: null,
      overdueAt: null,
      endedAt: null,
      decisions: new Map(),
      batches: [],
      turn: 0,
      deleted: false,
    };
    this.start(r, turnOf(this.script(r), 0, []));
    this.runs.push(r);
    return { status: 201, run: r };
  }

  /**
   * What every read does first: "Unknown runs, runs owned by another user … return 404";
   * a run past its retention is gone; "the next GET marks an overdue active turn FAILED".
   */
  private find(r: ModelRun, owner: number): ModelRun | undefined {
    if (r.deleted || r.owner !== owner) return undefined;
    if (r.endedAt !== null && r.endedAt + RETENTION <= this.now) {
      r.deleted = true;
      return undefined;
    }
    if ((r.state === 'QUEUED' || r.state === 'RUNNING' || r.state === 'CANCELLING') && this.now > r.overdueAt!) {
      this.end(r, 'FAILED', 'execution_deadline_exceeded');
    }
    return r;
  }

  get(r: ModelRun, owner: number): Expect {
    return this.find(r, owner) ? { status: 200, run: r } : { status: 404 };
  }

  cancel(r: ModelRun): Expect {
    if (!this.find(r, r.owner)) return { status: 404 };
    // "Paused runs become CANCELLED without resuming execution."
    if (r.state === 'REQUIRES_INPUT') {
      r.pending = undefined;
      this.end(r, 'CANCELLED');
      return { status: 200, run: r };
    }
    // "Repeated requests and requests for terminal runs return the current snapshot."
    if (r.state === 'CANCELLING' || isTerminalState(r.state)) return { status: 200, run: r };
    // "An active run without a cancellation registration returns 409" (no worker here, or a step that cannot stop).
    const w = r.worker;
    if (!w || !w.cancellable) return { status: 409, reason: 'not_cancellable' };
    r.state = 'CANCELLING';
    const cleanup = this.script(r).cancelDelayMs ?? 0;
    w.phase = 'cleanup';
    w.wakeAt = this.now + cleanup;
    const answer = { status: 200 as const, run: { ...r, output: [...r.output], origin: r } };
    if (cleanup === 0) this.work(r);
    return answer;
  }

  respond(r: ModelRun, responses: { interaction_id: string; decision: Decision }[]): Expect {
    if (!this.find(r, r.owner)) return { status: 404 };
    const ids = responses.map((x) => x.interaction_id);
    if (new Set(ids).size !== ids.length) return { status: 409, reason: 'duplicate_interaction' };
    const repeated = responses.filter((x) => r.decisions.has(x.interaction_id));
    if (repeated.length) {
      if (repeated.some((x) => r.decisions.get(x.interaction_id)!.decision !== x.decision)) return { status: 409, reason: 'conflicting_decision' };
      // "Identical accepted decisions return the current snapshot without another continuation."
      const turn = r.decisions.get(repeated[0]!.interaction_id)!.turn;
      const batch = [...r.decisions.values()].filter((d) => d.turn === turn);
      if (repeated.length === responses.length && batch.length === responses.length && repeated.every((x) => r.decisions.get(x.interaction_id)!.turn === turn)) {
        return { status: 200, run: r };
      }
      return { status: 409, reason: 'stale_decision' };
    }
    if (r.state !== 'REQUIRES_INPUT') return { status: 409, reason: 'not_pending' };
    const pendingIds = r.pending!.ids!;
    if (ids.some((x) => !pendingIds.includes(x))) return { status: 409, reason: 'not_pending' };
    if (pendingIds.some((x) => !ids.includes(x))) return { status: 409, reason: 'incomplete_decisions' };
    if (r.pending!.expires.some((e) => e !== undefined && e <= this.now)) return { status: 409, reason: 'approval_expired' };
    // "Acceptance persists the decisions before resuming the same run."
    const decided = new Map(responses.map((x) => [x.interaction_id, x.decision]));
    const tools = this.script(r).steps[r.pending!.cursor]!.approval!;
    const branches = pendingIds.map((id, i) => (decided.get(id) === 'APPROVE' ? tools[i]!.onApprove : tools[i]!.onReject));
    r.turn++;
    for (const id of pendingIds) r.decisions.set(id, { decision: decided.get(id)!, turn: r.turn });
    r.batches.push(pendingIds.map((id) => ({ interaction_id: id, decision: decided.get(id)! })));
    const cursor = r.pending!.cursor;
    r.pending = undefined;
    r.state = 'RUNNING';
    this.start(r, turnOf(this.script(r), cursor + 1, branches));
    return { status: 200, run: r };
  }
}

// --- The real service ------------------------------------------------------------------------

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

/** A real SQLite file, in memory-backed /dev/shm where there is one: 500 sequences of commits need no disk syncs. */
const DATA_ROOT = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

class Real {
  readonly dir = mkdtempSync(join(DATA_ROOT, 'durable-model-'));
  readonly clock = new ManualClock(CLOCK_START);
  service!: Service;
  private port = 0;
  private http?: { close(): Promise<void> };
  private agent = new Agent({ keepAlive: true });

  async start(): Promise<void> {
    const options = {
      dataDir: this.dir,
      rateLimitPerMinute: 0,
      durableTimeoutMs: TIMEOUT,
      durableGraceMs: GRACE,
      durableRetentionMs: RETENTION,
      durableMaxOutputBytes: MAX_OUTPUT,
      maxDurableRunsPerToken: CAP,
      clock: this.clock,
    };
    const store = new Store(options);
    seedIfEmpty(store);
    this.service = assembleService(store, catalog, options);
    const server = await listen(this.service, 0);
    this.http = server;
    this.port = Number(new URL(server.url).port);
  }

  async stop(): Promise<void> {
    await this.http?.close();
    this.service.close();
    this.agent.destroy();
    this.agent = new Agent({ keepAlive: true });
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  settle = () => this.service.durable.quiescent();

  send(method: string, path: string, token: string, body?: unknown): Promise<Reply> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          path,
          method,
          agent: this.agent,
          headers: { authorization: `Bearer ${token}`, ...(payload !== undefined && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (b: Buffer) => parts.push(b));
          res.on('end', () => {
            const text = Buffer.concat(parts).toString('utf8');
            resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text ? (JSON.parse(text) as unknown) : undefined });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Sends, then lets the workers settle: the next command sees everything this one set off. */
  async call(method: string, path: string, token: string, body?: unknown): Promise<Reply> {
    const reply = await this.send(method, path, token, body);
    await this.settle();
    return reply;
  }
}

// --- Checking an answer against the model -------------------------------------------------------

function texts(run: DurableRun): string[] {
  return (run.output?.messages ?? []).map((m) => m.content.map((b) => b.text).join(''));
}

function check(model: Model, expected: Expect, reply: Reply, what: string, learn?: (id: string) => void): void {
  const body = reply.json as { run?: DurableRun; code?: string; reason?: string };
  expect({ what, status: reply.status, body }).toMatchObject({ what, status: expected.status });
  if (expected.status === 404) {
    expect(body.code, what).toBe('resource_not_found');
    return;
  }
  if (expected.status === 409) {
    expect({ what, reason: body.reason }).toEqual({ what, reason: expected.reason });
    expect(clientModelErrors('PlatformProblemDetail', body), what).toBe('');
    return;
  }
  if (expected.status === 429) {
    expect(body.code, what).toBe('rate_limit_exceeded');
    expect(reply.headers['retry-after'], what).toBe('30');
    return;
  }
  expect(clientModelErrors('PlatformAgentRunResponse', body), what).toBe('');
  const wire = body.run!;
  const r = expected.run;
  if (learn) learn(wire.run_id);
  const shown = {
    run_id: wire.run_id,
    agent_id: wire.agent_id,
    state: wire.state,
    created_at: wire.created_at,
    expires_at: wire.expires_at,
    output: texts(wire),
    error: wire.error?.code,
    pending: wire.pending_interactions.map((p) => [p.display_name, p.expires_at]),
  };
  const tools = r.state === 'REQUIRES_INPUT' ? SCRIPTS.get(r.agent)!.steps[r.pending!.cursor]!.approval! : [];
  expect(shown, what).toEqual({
    run_id: r.id,
    agent_id: r.agent,
    state: r.state,
    created_at: iso(r.createdAt),
    expires_at: r.expiresAt === null ? undefined : iso(r.expiresAt),
    output: r.output,
    error: r.error,
    pending: tools.map((t, i) => [t.display_name, r.pending!.expires[i] === undefined ? undefined : iso(r.pending!.expires[i]!)]),
  });
  if (r.state === 'REQUIRES_INPUT') {
    const ids = wire.pending_interactions.map((p) => p.interaction_id);
    // The ids are the service's to choose; once seen they stay the same.
    if (r.pending!.ids) expect(ids, what).toEqual(r.pending!.ids);
    else r.pending!.ids = ids;
  }
  // updated_at never goes back, nor past now.
  expect(wire.updated_at >= (r.lastUpdatedAt ?? wire.created_at), what).toBe(true);
  expect(Date.parse(wire.updated_at) <= model.now, what).toBe(true);
  (r.origin ?? r).lastUpdatedAt = wire.updated_at;
  // No terminal state ever changes: once seen, the run is the same at every later read.
  if (r.frozen) expect(wire, `${what}: a terminal run changed`).toEqual(r.frozen);
  else if (isTerminalState(wire.state)) r.frozen = wire;
}

// --- Commands ---------------------------------------------------------------------------------

type Sys = { model: Model; real: Real };
type Cmd = fc.AsyncCommand<Model, Real>;

const pick = (m: Model, i: number) => m.runs[i % m.runs.length]!;

class Create implements Cmd {
  constructor(readonly agent: string, readonly owner: number) {}
  check = () => true;
  async run(m: Model, real: Real) {
    const expected = m.create(this.agent, this.owner);
    const reply = await real.call('POST', platformRunsPath(this.agent), tokenOf(this.owner), { execution_mode: 'DURABLE', messages: USER_HI });
    check(m, expected, reply, this.toString(), (id) => {
      if (expected.status === 201) expected.run.id = id;
    });
  }
  toString = () => `create(${this.agent}, owner ${this.owner})`;
}

class Read implements Cmd {
  constructor(readonly i: number, readonly asOther: boolean) {}
  check = (m: Readonly<Model>) => m.runs.length > 0;
  async run(m: Model, real: Real) {
    const r = pick(m, this.i);
    const owner = this.asOther ? 1 - r.owner : r.owner;
    const expected = m.get(r, owner);
    check(m, expected, await real.call('GET', platformRunPath(r.agent, r.id), tokenOf(owner)), this.toString());
  }
  toString = () => `read(#${this.i}${this.asOther ? ', as the other token' : ''})`;
}

class Cancel implements Cmd {
  constructor(readonly i: number) {}
  check = (m: Readonly<Model>) => m.runs.length > 0;
  async run(m: Model, real: Real) {
    const r = pick(m, this.i);
    const expected = m.cancel(r);
    check(m, expected, await real.call('POST', platformCancellationsPath(r.agent), tokenOf(r.owner), { run_id: r.id }), this.toString());
  }
  toString = () => `cancel(#${this.i})`;
}

const KINDS = ['batch', 'partial', 'duplicate', 'unknown', 'replay', 'flip', 'stale'] as const;
type Kind = (typeof KINDS)[number];

class Respond implements Cmd {
  constructor(readonly i: number, readonly kind: Kind, readonly bits: number) {}
  check = (m: Readonly<Model>) => m.runs.length > 0;
  async run(m: Model, real: Real) {
    // Mostly a paused run when there is one: decisions for runs that wait for them are the interesting ones.
    const paused = m.runs.filter((x) => x.state === 'REQUIRES_INPUT' && !x.deleted);
    const r = paused.length && this.i % 4 !== 0 ? paused[this.i % paused.length]! : pick(m, this.i);
    if (r.state === 'REQUIRES_INPUT' && !r.pending!.ids && !r.deleted) {
      // A client learns the interaction ids by reading the run first.
      check(m, m.get(r, r.owner), await real.call('GET', platformRunPath(r.agent, r.id), tokenOf(r.owner)), `${this.toString()}: read first`);
    }
    const responses = this.responses(r);
    const expected = m.respond(r, responses);
    const reply = await real.call('POST', platformResponsesPath(r.agent), tokenOf(r.owner), { run_id: r.id, responses });
    check(m, expected, reply, `${this.toString()} ${JSON.stringify(responses)}`);
  }

  private responses(r: ModelRun): { interaction_id: string; decision: Decision }[] {
    const decision = (i: number): Decision => ((this.bits >> i) & 1 ? 'REJECT' : 'APPROVE');
    const pending = r.state === 'REQUIRES_INPUT' && r.pending?.ids ? r.pending.ids : [];
    const last = r.batches.at(-1);
    const unknown = { interaction_id: 'int_unknown', decision: decision(0) };
    const batch = pending.length ? pending.map((id, i) => ({ interaction_id: id, decision: decision(i) })) : (last ?? [unknown]);
    switch (this.kind) {
      case 'batch':
        return batch;
      case 'partial':
        return batch.length > 1 ? batch.slice(0, 1) : [unknown];
      case 'duplicate':
        return [batch[0]!, ...batch];
      case 'unknown':
        return [...batch, { ...unknown, interaction_id: 'int_other' }];
      case 'replay':
        return last ? [...last].reverse() : batch;
      case 'flip':
        return last ? last.map((d, i) => (i === this.bits % last.length ? { ...d, decision: d.decision === 'APPROVE' ? 'REJECT' : 'APPROVE' } : d)) : batch;
      case 'stale':
        return last && last.length > 1 ? last.slice(1) : last ? [...last, ...(pending.length ? [{ interaction_id: pending[0]!, decision: decision(0) }] : [unknown])] : batch;
    }
  }
  toString = () => `respond(#${this.i}, ${this.kind}, ${this.bits})`;
}

class Advance implements Cmd {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(m: Model, real: Real) {
    m.advance(this.ms);
    await real.clock.advance(this.ms, real.settle);
  }
  toString = () => `advance(${this.ms} ms)`;
}

class Restart implements Cmd {
  check = () => true;
  async run(m: Model, real: Real) {
    m.restart();
    await real.restart();
  }
  toString = () => 'restart';
}

const create = fc.tuple(fc.constantFrom(...AGENT_IDS, 'm-approvals', 'm-approvals'), fc.nat(1)).map(([a, o]) => new Create(a, o));
const read = fc.tuple(fc.nat(), fc.boolean()).map(([i, other]) => new Read(i, other));
const cancel = fc.nat().map((i) => new Cancel(i));
const respond = fc.tuple(fc.nat(), fc.constantFrom(...KINDS), fc.nat(7)).map(([i, k, b]) => new Respond(i, k, b));
// 0 lets a queued run be picked up; the long steps reach deadlines (10 s), overdue (15 s) and retention (30 s).
const advance = fc.constantFrom(0, 100, 200, 300, 500, 700, 1_000, 2_000, 5_000, 10_000, 16_000).map((ms) => new Advance(ms));
const restart = fc.constant(new Restart());
/** fast-check picks among these evenly: repeats weigh the mix towards runs that live and move. */
const commands = [create, create, read, read, read, cancel, cancel, respond, respond, respond, advance, advance, advance, advance, restart];

/** The sequences of issue 14, always run first: each once broke a rule the random ones must keep. */
const EXAMPLES: Cmd[][] = [
  // Cancelled, read FAILED past the deadline and grace, read again after the clean-up would have ended: still FAILED.
  [new Create('m-long', 0), new Advance(0), new Advance(7_000), new Cancel(0), new Advance(10_000), new Read(0, false), new Advance(2_000), new Read(0, false)],
  // The clean-up outlives the deadline: the run stays CANCELLING (its worker gave up) until read overdue.
  [new Create('m-long', 0), new Advance(0), new Advance(7_000), new Cancel(0), new Advance(5_000), new Read(0, false), new Advance(5_000), new Read(0, false)],
  // More runs not yet over than the cap: the next is 429; a paused one cancelled frees a place.
  [
    new Create('m-approvals', 0), new Create('m-long', 0), new Create('m-steps', 0), new Create('m-fail', 0), new Advance(0), new Advance(1_000),
    new Create('m-steps', 1), new Read(0, false), new Cancel(0), new Create('m-fail', 0), new Respond(0, 'batch', 0),
  ],
  // A batch accepted, retried identically, contradicted, then answered stale; the next pause rejected into a failure.
  [
    new Create('m-approvals', 0), new Advance(0), new Advance(500), new Respond(0, 'batch', 2), new Respond(0, 'replay', 0), new Respond(0, 'flip', 0),
    new Respond(0, 'stale', 0), new Advance(1_000), new Respond(0, 'batch', 1), new Advance(200), new Read(0, false), new Advance(16_000), new Advance(16_000), new Read(0, false),
  ],
];

test(`${SEQUENCES} seeded sequences of durable-run commands agree with the reference state machine; no terminal state ever changes`, async () => {
  await fc.assert(
    fc.asyncProperty(fc.commands(commands, { maxCommands: 40, size: 'max' }), async (cmds) => {
      const real = new Real();
      await real.start();
      const model = new Model();
      try {
        await fc.asyncModelRun(() => ({ model, real }) satisfies Sys, cmds);
        // Whatever was read or not: in the database, a terminal state is the last transition of its run.
        const store = new DurableRunStore(real.service.store.database);
        for (const r of model.runs.filter((x) => x.id && !x.deleted)) {
          const states = store.transitions(r.id).map((t) => t.state);
          const end = states.findIndex((s) => isTerminalState(s));
          expect(end === -1 || end === states.length - 1, `${r.id} transitions ${states.join(' > ')}`).toBe(true);
        }
      } finally {
        await real.stop();
        rmSync(real.dir, { recursive: true, force: true });
      }
    }),
    { seed: SEED, numRuns: SEQUENCES, examples: EXAMPLES.map((e): [Cmd[]] => [e]) },
  );
}, 600_000);
