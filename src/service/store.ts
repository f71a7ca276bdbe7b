import Database from 'better-sqlite3';
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CustomProperty, MetadataSchema } from '../contract/metadata.ts';
import { etagOf } from './etag.ts';

export interface StoreOptions {
  /** Folder holding `service.sqlite`; ignored when `memory` is set. */
  dataDir?: string;
  /** Throw-away database for tests. */
  memory?: boolean;
}

export interface TokenRecord {
  label: string;
  scopes: string[];
}

export interface GroupRecord {
  /** The name as first written; lookups ignore case. */
  name: string;
  schema: MetadataSchema;
}

/** A group's schema answer as it goes out: its JSON text, its bytes and its ETag, made once per version. */
export interface PreparedSchema {
  json: string;
  body: Buffer;
  etag: string;
}

/** Groups whose prepared answer is kept at most (MAX_GROUPS is far below). */
const PREPARED_MAX = 1_000;

export function hashToken(token: string): Buffer {
  // The one-shot hash: no Hash object per request (every API request hashes its token).
  return hash('sha256', token, 'buffer');
}

export function newTokenString(): string {
  return `sbx_${randomBytes(24).toString('base64url')}`;
}

/** SQLite-backed state of the reference service. Tokens are kept only as SHA-256 hashes. */
export class Store {
  private readonly db: Database.Database;
  private readonly stmts;
  /** Token records by hash (hex), filled on first use. */
  private readonly knownTokens = new Map<string, TokenRecord>();
  /** Schema answers by lower-cased group name, null for a group with none; dropped at every write of the group. */
  private readonly preparedSchemas = new Map<string, PreparedSchema | null>();

  constructor(options: StoreOptions = {}) {
    if (options.memory) {
      this.db = new Database(':memory:');
    } else {
      const dir = options.dataDir ?? '.data';
      mkdirSync(dir, { recursive: true });
      this.db = new Database(join(dir, 'service.sqlite'));
      this.db.pragma('journal_mode = WAL');
    }
    this.db.pragma('foreign_keys = ON');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS tokens (
        hash BLOB PRIMARY KEY, label TEXT NOT NULL, scopes TEXT NOT NULL, created_at TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS groups (
        name_lc TEXT PRIMARY KEY, name TEXT NOT NULL, schema TEXT NOT NULL, updated_at TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS doc_metadata (
        doc_id TEXT NOT NULL, group_lc TEXT NOT NULL, vals TEXT NOT NULL, updated_at TEXT NOT NULL,
        PRIMARY KEY (doc_id, group_lc)
      );
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    `);
    this.stmts = {
      tokenByHash: this.db.prepare<[Buffer], { hash: Buffer; label: string; scopes: string }>(
        'SELECT hash, label, scopes FROM tokens WHERE hash = ?',
      ),
      insertToken: this.db.prepare(
        'INSERT OR REPLACE INTO tokens (hash, label, scopes, created_at) VALUES (?, ?, ?, ?)',
      ),
      groupByName: this.db.prepare<[string], { name: string; schema: string }>(
        'SELECT name, schema FROM groups WHERE name_lc = ?',
      ),
      countGroups: this.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM groups'),
      groupNames: this.db.prepare<[], { name: string }>('SELECT name FROM groups ORDER BY name_lc'),
      upsertGroup: this.db.prepare(
        `INSERT INTO groups (name_lc, name, schema, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(name_lc) DO UPDATE SET schema = excluded.schema, updated_at = excluded.updated_at`,
      ),
      deleteGroup: this.db.prepare('DELETE FROM groups WHERE name_lc = ?'),
      docValues: this.db.prepare<[string, string], { vals: string }>(
        'SELECT vals FROM doc_metadata WHERE doc_id = ? AND group_lc = ?',
      ),
      groupDocValues: this.db.prepare<[string], { vals: string }>('SELECT vals FROM doc_metadata WHERE group_lc = ?'),
      upsertDoc: this.db.prepare(
        `INSERT INTO doc_metadata (doc_id, group_lc, vals, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(doc_id, group_lc) DO UPDATE SET vals = excluded.vals, updated_at = excluded.updated_at`,
      ),
      deleteDoc: this.db.prepare('DELETE FROM doc_metadata WHERE doc_id = ? AND group_lc = ?'),
      getMeta: this.db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
      setMeta: this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)'),
    };
  }

  private readonly closeHooks: (() => void)[] = [];

  /** Runs `hook` before the database closes: background work (durable runs) stops writing first. */
  onClose(hook: () => void): void {
    this.closeHooks.push(hook);
  }

  close(): void {
    for (const hook of this.closeHooks.splice(0)) hook();
    this.db.close();
  }

  /** The database itself, for modules that keep their own tables beside these (durable runs). */
  get database(): Database.Database {
    return this.db;
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  getMeta(key: string): string | undefined {
    return this.stmts.getMeta.get(key)?.value;
  }

  setMeta(key: string, value: string): void {
    this.stmts.setMeta.run(key, value);
  }

  addToken(token: string, record: TokenRecord): void {
    const hash = hashToken(token);
    this.stmts.insertToken.run(hash, record.label, JSON.stringify(record.scopes), new Date().toISOString());
    this.knownTokens.delete(hash.toString('hex'));
  }

  /** Looks a presented token up by its hash and compares the hashes in constant time. */
  findToken(token: string): TokenRecord | undefined {
    return this.findTokenByHash(hashToken(token));
  }

  /**
   * `findToken` for a caller that already holds the token's `hashToken`. Known tokens are
   * remembered by hash: a token's record never changes once written (there is no revoking),
   * and an unknown one is always looked up again, so a token minted by another process
   * (`npm run token`) is found at once.
   */
  findTokenByHash(presented: Buffer, key = presented.toString('hex')): TokenRecord | undefined {
    const known = this.knownTokens.get(key);
    if (known) return known;
    const row = this.stmts.tokenByHash.get(presented);
    if (!row || !timingSafeEqual(row.hash, presented)) return undefined;
    const record = { label: row.label, scopes: JSON.parse(row.scopes) as string[] };
    if (this.knownTokens.size < 10_000) this.knownTokens.set(key, record);
    return record;
  }

  /** A group's schema as stored: the JSON text `JSON.stringify` wrote, not parsed. */
  getSchemaJson(name: string): string | undefined {
    return this.stmts.groupByName.get(name.toLowerCase())?.schema;
  }

  /**
   * The schema answer of `name`, prepared once and kept until the group is written: a read
   * costs no query, no copy and no hash. Only this service writes groups to its database.
   */
  preparedSchema(name: string): PreparedSchema | undefined {
    const key = name.toLowerCase();
    let prepared = this.preparedSchemas.get(key);
    if (prepared === undefined) {
      const json = this.stmts.groupByName.get(key)?.schema;
      prepared = json === undefined ? null : { json, body: Buffer.from(json, 'utf8'), etag: etagOf(json) };
      if (this.preparedSchemas.size < PREPARED_MAX) this.preparedSchemas.set(key, prepared);
    }
    return prepared ?? undefined;
  }

  getGroup(name: string): GroupRecord | undefined {
    const row = this.stmts.groupByName.get(name.toLowerCase());
    return row ? { name: row.name, schema: JSON.parse(row.schema) as MetadataSchema } : undefined;
  }

  countGroups(): number {
    return this.stmts.countGroups.get()?.n ?? 0;
  }

  /** Every group with a schema, by name; at most MAX_GROUPS. */
  groupNames(): string[] {
    return this.stmts.groupNames.all().map((r) => r.name);
  }

  putGroup(name: string, schema: MetadataSchema): void {
    this.stmts.upsertGroup.run(name.toLowerCase(), name, JSON.stringify(schema), new Date().toISOString());
    this.preparedSchemas.delete(name.toLowerCase());
  }

  deleteGroup(name: string): boolean {
    this.preparedSchemas.delete(name.toLowerCase());
    return this.stmts.deleteGroup.run(name.toLowerCase()).changes > 0;
  }

  /** Every value list documents carry for `group`, to judge whether a schema change is compatible. */
  valuesInGroup(group: string): CustomProperty[][] {
    return this.stmts.groupDocValues.all(group.toLowerCase()).map((r) => JSON.parse(r.vals) as CustomProperty[]);
  }

  getDocValues(docId: string, group: string): CustomProperty[] | undefined {
    const row = this.stmts.docValues.get(docId, group.toLowerCase());
    return row ? (JSON.parse(row.vals) as CustomProperty[]) : undefined;
  }

  putDocValues(docId: string, group: string, values: CustomProperty[]): void {
    this.stmts.upsertDoc.run(docId, group.toLowerCase(), JSON.stringify(values), new Date().toISOString());
  }

  deleteDocValues(docId: string, group: string): boolean {
    return this.stmts.deleteDoc.run(docId, group.toLowerCase()).changes > 0;
  }
}
