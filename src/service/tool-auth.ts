import type Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';

/**
 * Tool-server authorizations of the sandbox's OAuth stand-in, per token, in the service's
 * SQLite beside everything else (so they survive a restart). A token is known here only by
 * its SHA-256 (hex, the `tokenKey` the auth middleware sets), never as itself.
 *
 * An authorization starts with a request (`POST …/tool-servers/{id}/auth`, which carries the
 * token in its header) and ends on the consent page, which the browser reaches without the
 * token: the request is identified there by a one-time state id, random, kept only as its
 * hash, valid for CONSENT_TTL_MS and spent by the first decision.
 */

/** How long a consent link works (reference choice): long enough to read the page, short enough not to linger. */
export const CONSENT_TTL_MS = 10 * 60_000;

/** Unanswered consent requests one token may have; beyond this its oldest are forgotten. */
export const MAX_PENDING_PER_TOKEN = 50;

export interface ConsentRequest {
  tokenKey: string;
  serverId: string;
  returnUrl: string;
  /** When the request was made (ms since the epoch). */
  createdMs: number;
}

const stateHash = (state: string) => createHash('sha256').update(state, 'utf8').digest();

export class ToolAuthorizations {
  private readonly stmts;
  private readonly decideTx: (state: string, allow: boolean) => ConsentRequest | undefined;

  constructor(
    db: Database.Database,
    private readonly now: () => number = Date.now,
  ) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS tool_authorizations (
        token_key TEXT NOT NULL, server_id TEXT NOT NULL, authorized_at TEXT NOT NULL,
        PRIMARY KEY (token_key, server_id)
      );
      CREATE TABLE IF NOT EXISTS tool_auth_requests (
        state_hash BLOB PRIMARY KEY, token_key TEXT NOT NULL, server_id TEXT NOT NULL,
        return_url TEXT NOT NULL, created_ms INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS tool_auth_requests_by_token ON tool_auth_requests (token_key, created_ms);
    `);
    this.stmts = {
      isAuthorized: db.prepare<[string, string], { n: number }>('SELECT 1 AS n FROM tool_authorizations WHERE token_key = ? AND server_id = ?'),
      authorize: db.prepare<[string, string, string]>(
        `INSERT INTO tool_authorizations (token_key, server_id, authorized_at) VALUES (?, ?, ?)
         ON CONFLICT(token_key, server_id) DO UPDATE SET authorized_at = excluded.authorized_at`,
      ),
      insertRequest: db.prepare<[Buffer, string, string, string, number]>(
        'INSERT INTO tool_auth_requests (state_hash, token_key, server_id, return_url, created_ms) VALUES (?, ?, ?, ?, ?)',
      ),
      sweep: db.prepare<[number]>('DELETE FROM tool_auth_requests WHERE created_ms <= ?'),
      trim: db.prepare<[string, string, number]>(
        `DELETE FROM tool_auth_requests WHERE token_key = ? AND state_hash IN (
           SELECT state_hash FROM tool_auth_requests WHERE token_key = ? ORDER BY created_ms DESC LIMIT -1 OFFSET ?)`,
      ),
      request: db.prepare<[Buffer, number], { token_key: string; server_id: string; return_url: string; created_ms: number }>(
        'SELECT token_key, server_id, return_url, created_ms FROM tool_auth_requests WHERE state_hash = ? AND created_ms > ?',
      ),
      spend: db.prepare<[Buffer, number], { token_key: string; server_id: string; return_url: string; created_ms: number }>(
        'DELETE FROM tool_auth_requests WHERE state_hash = ? AND created_ms > ? RETURNING token_key, server_id, return_url, created_ms',
      ),
    };
    this.decideTx = db.transaction((state: string, allow: boolean) => {
      const row = this.stmts.spend.get(stateHash(state), this.now() - CONSENT_TTL_MS);
      if (!row) return undefined;
      if (allow) this.authorize(row.token_key, row.server_id);
      return { tokenKey: row.token_key, serverId: row.server_id, returnUrl: row.return_url, createdMs: row.created_ms };
    });
  }

  isAuthorized(tokenKey: string, serverId: string): boolean {
    return this.stmts.isAuthorized.get(tokenKey, serverId) !== undefined;
  }

  authorize(tokenKey: string, serverId: string): void {
    this.stmts.authorize.run(tokenKey, serverId, new Date(this.now()).toISOString());
  }

  /** Records a consent request and answers its state id, the only thing the consent page's URL carries. */
  begin(tokenKey: string, serverId: string, returnUrl: string): string {
    const now = this.now();
    const state = `st_${randomBytes(24).toString('base64url')}`;
    this.stmts.sweep.run(now - CONSENT_TTL_MS);
    this.stmts.insertRequest.run(stateHash(state), tokenKey, serverId, returnUrl, now);
    this.stmts.trim.run(tokenKey, tokenKey, MAX_PENDING_PER_TOKEN);
    return state;
  }

  /** The request a consent page shows, while it is neither spent nor expired. */
  pending(state: string): ConsentRequest | undefined {
    const row = this.stmts.request.get(stateHash(state), this.now() - CONSENT_TTL_MS);
    return row && { tokenKey: row.token_key, serverId: row.server_id, returnUrl: row.return_url, createdMs: row.created_ms };
  }

  /**
   * Spends the request (one decision per link, even when two arrive at once: the DELETE is
   * the guard) and, when allowed, records the authorization in the same transaction.
   */
  decide(state: string, allow: boolean): ConsentRequest | undefined {
    return this.decideTx(state, allow);
  }
}
