import type Database from 'better-sqlite3';
import type { Message } from '../../contract/agents.ts';
import type { Decision, DurableRun, DurableRunError, ToolApproval } from '../../contract/durable-runs.ts';
import type { DurableScript } from './script.ts';

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

export interface RunRecord {
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
  request: StoredRequest;
  /** The agent's durable script as it was when the run started; null for an agent without one. */
  script: DurableScript | null;
  /** Index of the script step that paused the run, where it resumes from. */
  cursor: number;
  /** Accepted continuations so far. */
  turn: number;
  output: Message[];
  pending: StoredInteraction[];
  error: DurableRunError | null;
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

interface Row {
  run_id: string;
  agent_id: string;
  owner: string;
  state: string;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  overdue_at: string | null;
  request: string;
  script: string | null;
  cursor: number;
  turn: number;
  output: string;
  pending: string;
  error: string | null;
}

const JSON_COLUMNS = new Set(['request', 'script', 'output', 'pending', 'error']);
const COLUMNS = ['run_id', 'agent_id', 'owner', 'state', 'created_at', 'updated_at', 'expires_at', 'overdue_at', 'request', 'script', 'cursor', 'turn', 'output', 'pending', 'error'] as const;

function toRow(patch: Partial<RunRecord>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(patch)) out[k] = JSON_COLUMNS.has(k) && v !== null ? JSON.stringify(v) : v;
  return out;
}

function fromRow(r: Row): RunRecord {
  return {
    ...r,
    request: JSON.parse(r.request) as StoredRequest,
    script: r.script === null ? null : (JSON.parse(r.script) as DurableScript),
    output: JSON.parse(r.output) as Message[],
    pending: JSON.parse(r.pending) as StoredInteraction[],
    error: r.error === null ? null : (JSON.parse(r.error) as DurableRunError),
  };
}

/** Durable runs in the service's SQLite database, with every state transition and accepted decision. */
export class DurableRunStore {
  private readonly stmts;
  private readonly updates = new Map<string, Database.Statement>();

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
    this.stmts = {
      insert: db.prepare(`INSERT INTO durable_runs (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`),
      get: db.prepare<[string], Row>('SELECT * FROM durable_runs WHERE run_id = ?'),
      addTransition: db.prepare(
        `INSERT INTO durable_run_transitions (run_id, seq, state, at)
         VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM durable_run_transitions WHERE run_id = ?), ?, ?)`,
      ),
      transitions: db.prepare<[string], Transition>('SELECT state, at FROM durable_run_transitions WHERE run_id = ? ORDER BY seq'),
      addDecision: db.prepare('INSERT INTO durable_run_decisions (run_id, interaction_id, decision, turn, at) VALUES (?, ?, ?, ?, ?)'),
      decisions: db.prepare<[string], StoredDecision>('SELECT interaction_id, decision, turn FROM durable_run_decisions WHERE run_id = ? ORDER BY turn, rowid'),
    };
  }

  insert(record: RunRecord): void {
    this.db.transaction(() => {
      this.stmts.insert.run(toRow(record));
      this.stmts.addTransition.run(record.run_id, record.run_id, record.state, record.created_at);
    })();
  }

  get(runId: string): RunRecord | undefined {
    const row = this.stmts.get.get(runId);
    return row ? fromRow(row) : undefined;
  }

  /** Writes the changed fields; a new `state` is recorded as a transition at `updated_at`. */
  update(runId: string, patch: Partial<RunRecord> & { updated_at: string }): void {
    const keys = Object.keys(patch).filter((k) => k !== 'run_id' && (COLUMNS as readonly string[]).includes(k)).sort();
    const sig = keys.join(',');
    let stmt = this.updates.get(sig);
    if (!stmt) {
      stmt = this.db.prepare(`UPDATE durable_runs SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE run_id = @run_id`);
      this.updates.set(sig, stmt);
    }
    const row = toRow(patch);
    const params: Record<string, unknown> = { run_id: runId };
    for (const k of keys) params[k] = row[k];
    this.db.transaction(() => {
      stmt.run(params);
      if (patch.state !== undefined) this.stmts.addTransition.run(runId, runId, patch.state, patch.updated_at);
    })();
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

/** The wire shape of a stored run (PlatformDurableAgentRun). */
export function wireRun(r: RunRecord): DurableRun {
  return {
    run_id: r.run_id,
    agent_id: r.agent_id,
    state: r.state,
    created_at: r.created_at,
    updated_at: r.updated_at,
    ...(r.expires_at !== null && { expires_at: r.expires_at }),
    pending_interactions: r.state === 'REQUIRES_INPUT' ? r.pending.map((p) => p.approval) : [],
    output: { messages: r.output },
    ...(r.error !== null && { error: r.error }),
  };
}
