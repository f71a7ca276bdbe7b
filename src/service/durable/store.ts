import type Database from 'better-sqlite3';
import type { Message } from '../../contract/agents.ts';
import { ACTIVE_STATES, TERMINAL_STATES, type Decision, type ToolApproval } from '../../contract/durable-runs.ts';

/** A pending approval as stored: the wire object and which tool of the paused step it is. */
export interface StoredInteraction {
  approval: ToolApproval;
  tool: number;
}

/** What the run was asked to do, kept so a paused run can resume after a restart. */
export interface StoredRequest {
  input?: Record<string, unknown>;
  messages?: Message[];
  metadata?: Record<string, unknown>;
}

/**
 * A durable run as the database holds it, the only copy of its state: nobody keeps a run in
 * memory between two statements. JSON columns stay JSON text, so a read answers the stored
 * output as it is instead of parsing and serializing it again.
 */
export interface RunRow {
  run_id: string;
  agent_id: string;
  /** The owning token's SHA-256 (hex), never the token. */
  owner: string;
  state: string;
  created_at: string;
  updated_at: string;
  /** Execution deadline of the active turn. */
  expires_at: string | null;
  /** Past this (deadline plus grace), the next read marks an active run FAILED. */
  overdue_at: string | null;
  /** StoredRequest, as JSON. */
  request: string;
  /** The agent's durable script as it was when the run started (JSON); null for an agent without one. */
  script: string | null;
  /** Index of the script step that paused the run, where it resumes from. */
  cursor: number;
  /** Accepted continuations so far. */
  turn: number;
  /** The output messages, a JSON array. */
  output: string;
  /** UTF-8 bytes of the output's text so far, for the output bound. */
  output_bytes: number;
  /** StoredInteraction[], as JSON. */
  pending: string;
  /** DurableRunError, as JSON. */
  error: string | null;
  /** The worker that holds the run: only it may write the run's progress. Null when none does. */
  lease: string | null;
  /** When the run reached a terminal state (ms since the epoch); retention counts from here. */
  ended_ms: number | null;
  /** The client's own id for the run (`X-Sandbox-Client-Run-Id`), to find it again without its answer. */
  client_run_id: string | null;
}

/** The columns a transition may set besides the state; `updated_at` and `ended_ms` follow from it. */
export type RunPatch = Partial<Pick<RunRow, 'state' | 'expires_at' | 'overdue_at' | 'cursor' | 'turn' | 'pending' | 'error' | 'lease' | 'output' | 'output_bytes'>>;

/** Conditions a guarded write adds to `state IN (…)`. */
export interface Guard {
  /** Only the worker holding this lease may write. */
  lease?: string;
  turn?: number;
}

export interface Transition {
  state: string;
  at: string;
}

export interface StoredDecision {
  interaction_id: string;
  decision: Decision;
  /** The turn the decision's batch resumed: decisions of one batch share it. */
  turn: number;
}

const COLUMNS = [
  'run_id', 'agent_id', 'owner', 'state', 'created_at', 'updated_at', 'expires_at', 'overdue_at', 'request', 'script',
  'cursor', 'turn', 'output', 'output_bytes', 'pending', 'error', 'lease', 'ended_ms', 'client_run_id',
] as const;

/** Non-terminal: a worker may hold it, or it waits for a decision. These count against a token's cap. */
export const LIVE_STATES = [...ACTIVE_STATES, 'REQUIRES_INPUT'] as const;

/**
 * Every transition the service makes, as `from>to`. The trigger below refuses any other at
 * the database, and any change at all to a terminal run: a bug in a guard is a failed
 * statement (a 500), never a terminal state overwritten.
 */
const ALLOWED_TRANSITIONS = [
  'QUEUED>RUNNING', 'QUEUED>CANCELLING', 'QUEUED>FAILED',
  'RUNNING>REQUIRES_INPUT', 'RUNNING>SUCCEEDED', 'RUNNING>FAILED', 'RUNNING>CANCELLING',
  'REQUIRES_INPUT>RUNNING', 'REQUIRES_INPUT>CANCELLED',
  'CANCELLING>CANCELLED', 'CANCELLING>FAILED',
];

const sqlList = (items: readonly string[]) => items.map((s) => `'${s}'`).join(', ');

const iso = (ms: number) => new Date(ms).toISOString();

/** Durable runs in the service's SQLite database, with every state transition and accepted decision. */
export class DurableRunStore {
  private readonly stmts;
  private readonly writes = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS durable_runs (
        run_id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, owner TEXT NOT NULL, state TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, expires_at TEXT, overdue_at TEXT,
        request TEXT NOT NULL, script TEXT, cursor INTEGER NOT NULL, turn INTEGER NOT NULL,
        output TEXT NOT NULL, pending TEXT NOT NULL, error TEXT
      );
      CREATE TABLE IF NOT EXISTS durable_run_transitions (
        run_id TEXT NOT NULL REFERENCES durable_runs(run_id) ON DELETE CASCADE,
        seq INTEGER NOT NULL, state TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE IF NOT EXISTS durable_run_decisions (
        run_id TEXT NOT NULL REFERENCES durable_runs(run_id) ON DELETE CASCADE,
        interaction_id TEXT NOT NULL, decision TEXT NOT NULL, turn INTEGER NOT NULL, at TEXT NOT NULL,
        PRIMARY KEY (run_id, interaction_id)
      );
    `);
    this.migrate();
    this.stmts = {
      insert: db.prepare(`INSERT INTO durable_runs (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`),
      get: db.prepare<[string], RunRow>('SELECT * FROM durable_runs WHERE run_id = ?'),
      delete: db.prepare<[string]>('DELETE FROM durable_runs WHERE run_id = ?'),
      sweep: db.prepare<[number]>('DELETE FROM durable_runs WHERE ended_ms IS NOT NULL AND ended_ms <= ?'),
      live: db.prepare<[string, string], { n: number }>(
        `SELECT COUNT(*) AS n FROM durable_runs WHERE owner = ? AND state IN (${sqlList(LIVE_STATES)}) AND (overdue_at IS NULL OR overdue_at > ?)`,
      ),
      addTransition: db.prepare(
        `INSERT INTO durable_run_transitions (run_id, seq, state, at)
         VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM durable_run_transitions WHERE run_id = ?), ?, ?)`,
      ),
      transitions: db.prepare<[string], Transition>('SELECT state, at FROM durable_run_transitions WHERE run_id = ? ORDER BY seq'),
      addDecision: db.prepare('INSERT INTO durable_run_decisions (run_id, interaction_id, decision, turn, at) VALUES (?, ?, ?, ?, ?)'),
      decisions: db.prepare<[string], StoredDecision>('SELECT interaction_id, decision, turn FROM durable_run_decisions WHERE run_id = ? ORDER BY turn, rowid'),
      byClient: db.prepare<[string, string], RunRow>('SELECT * FROM durable_runs WHERE owner = ? AND client_run_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 20'),
    };
  }

  /** Databases written before the lease, the end time, the output bound and the client run id get their columns; the guard trigger is (re)made. */
  private migrate(): void {
    const have = new Set(this.db.prepare<[], { name: string }>('PRAGMA table_info(durable_runs)').all().map((c) => c.name));
    const added: [string, string][] = [['output_bytes', 'INTEGER NOT NULL DEFAULT 0'], ['lease', 'TEXT'], ['ended_ms', 'INTEGER'], ['client_run_id', 'TEXT']];
    for (const [name, type] of added) if (!have.has(name)) this.db.exec(`ALTER TABLE durable_runs ADD COLUMN ${name} ${type}`);
    if (!have.has('ended_ms')) {
      // Runs that ended before retention existed count from their last update.
      this.db.exec(`UPDATE durable_runs SET ended_ms = CAST(ROUND((julianday(updated_at) - 2440587.5) * 86400000) AS INTEGER)
                    WHERE state IN (${sqlList(TERMINAL_STATES)})`);
    }
    this.db.exec(`
      CREATE INDEX IF NOT EXISTS durable_runs_by_owner ON durable_runs (owner, state);
      CREATE INDEX IF NOT EXISTS durable_runs_by_end ON durable_runs (ended_ms) WHERE ended_ms IS NOT NULL;
      CREATE INDEX IF NOT EXISTS durable_runs_by_client ON durable_runs (owner, client_run_id) WHERE client_run_id IS NOT NULL;
      DROP TRIGGER IF EXISTS durable_runs_guard;
      CREATE TRIGGER durable_runs_guard BEFORE UPDATE ON durable_runs
      WHEN OLD.state IN (${sqlList(TERMINAL_STATES)})
        OR (NEW.state <> OLD.state AND OLD.state || '>' || NEW.state NOT IN (${sqlList(ALLOWED_TRANSITIONS)}))
      BEGIN SELECT RAISE(ABORT, 'durable run: transition refused (terminal states are final)'); END;
    `);
  }

  insert(row: RunRow): void {
    this.db.transaction(() => {
      this.stmts.insert.run(row);
      this.stmts.addTransition.run(row.run_id, row.run_id, row.state, row.created_at);
    })();
  }

  get(runId: string): RunRow | undefined {
    return this.stmts.get.get(runId);
  }

  /** The owner's runs started with this client run id, newest first (at most 20). */
  byClient(owner: string, clientRunId: string): RunRow[] {
    return this.stmts.byClient.all(owner, clientRunId);
  }

  /**
   * The guarded write every change goes through: it applies `patch` only while the run is in
   * one of `from` (and holds `guard`), and says whether it did. `updated_at` never goes back;
   * a terminal state records when it ended; a new state is recorded as a transition.
   */
  write(runId: string, from: readonly string[], patch: RunPatch, at: number, guard: Guard = {}): boolean {
    const keys = Object.keys(patch).sort() as (keyof RunPatch)[];
    const ends = patch.state !== undefined && TERMINAL_STATES.includes(patch.state);
    const sig = `${from.join('|')};${keys.join(',')};${ends};${guard.lease !== undefined};${guard.turn !== undefined}`;
    let stmt = this.writes.get(sig);
    if (!stmt) {
      const sets = [...keys.map((k) => `${k} = @${k}`), 'updated_at = MAX(updated_at, @updated_at)', ...(ends ? ['ended_ms = @at_ms'] : [])];
      const where = [
        'run_id = @run_id',
        `state IN (${sqlList(from)})`,
        ...(guard.lease !== undefined ? ['lease = @guard_lease'] : []),
        ...(guard.turn !== undefined ? ['turn = @guard_turn'] : []),
      ];
      stmt = this.db.prepare(`UPDATE durable_runs SET ${sets.join(', ')} WHERE ${where.join(' AND ')}`);
      this.writes.set(sig, stmt);
    }
    const updatedAt = iso(at);
    const params: Record<string, unknown> = { ...patch, run_id: runId, updated_at: updatedAt };
    if (ends) params.at_ms = at;
    if (guard.lease !== undefined) params.guard_lease = guard.lease;
    if (guard.turn !== undefined) params.guard_turn = guard.turn;
    return this.db.transaction(() => {
      if (stmt.run(params).changes !== 1) return false;
      if (patch.state !== undefined) this.stmts.addTransition.run(runId, runId, patch.state, updatedAt);
      return true;
    })();
  }

  delete(runId: string): void {
    this.stmts.delete.run(runId);
  }

  /** Deletes the runs that ended at or before `endedBy`; answers how many. */
  sweep(endedBy: number): number {
    return this.stmts.sweep.run(endedBy).changes;
  }

  /** The owner's runs that are not over: active (and not yet overdue) or waiting for decisions. */
  liveCount(owner: string, now: number): number {
    return this.stmts.live.get(owner, iso(now))!.n;
  }

  addDecisions(runId: string, turn: number, decisions: { interaction_id: string; decision: Decision }[], at: string): void {
    for (const d of decisions) this.stmts.addDecision.run(runId, d.interaction_id, d.decision, turn, at);
  }

  decisions(runId: string): StoredDecision[] {
    return this.stmts.decisions.all(runId);
  }

  transitions(runId: string): Transition[] {
    return this.stmts.transitions.all(runId);
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }
}

export function pendingOf(row: RunRow): StoredInteraction[] {
  return JSON.parse(row.pending) as StoredInteraction[];
}

/**
 * The wire shape of a stored run (PlatformDurableAgentRun) as JSON, with its members in the
 * order JSON.stringify of the object would give. The output goes in as stored: a poll of a
 * long run costs a copy of its text, not a parse and a serialization of every message.
 */
export function runJson(r: RunRow): string {
  const q = JSON.stringify;
  const approvals = r.state === 'REQUIRES_INPUT' ? q(pendingOf(r).map((p) => p.approval)) : '[]';
  return (
    `{"run_id":${q(r.run_id)},"agent_id":${q(r.agent_id)},"state":${q(r.state)},"created_at":${q(r.created_at)},"updated_at":${q(r.updated_at)}` +
    (r.expires_at !== null ? `,"expires_at":${q(r.expires_at)}` : '') +
    `,"pending_interactions":${approvals},"output":{"messages":${r.output}}` +
    (r.error !== null ? `,"error":${r.error}` : '') +
    '}'
  );
}
