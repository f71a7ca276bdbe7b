/**
 * Persistence (docs/api.md, "Reference service only"): data survives a restart on the same data directory,
 * the demo seed is applied once, tokens are stored only as hashes, and the CLI mints
 * tokens a service on that directory accepts.
 */
import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createService, type Service } from './app.ts';
import { DEMO_TOKENS } from './seed.ts';
import { call, expectMetadataError, TOKENS } from './test-http.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SCHEMA = (group: string) => `/rest/api/index/custom-metadata/schema/${group}`;
const DOC = (docId: string, group: string) => `/rest/api/index/document/${docId}/custom-metadata/${group}`;
const PROJECTS = { metadataKeys: [{ name: 'phase', propertyType: 'PICKLIST' }, { name: 'notes', propertyType: 'TEXT', skipIndexing: true }] };

let dir: string;
const open: Service[] = [];

function start(): Service {
  const service = createService({ dataDir: dir, rateLimitPerMinute: 0 });
  open.push(service);
  return service;
}

function stop(service: Service): void {
  service.close();
  open.splice(open.indexOf(service), 1);
}

/** Mints a token the way the console's sandbox panel does: same origin, no Origin header. */
async function mint(service: Service, scopes: string[]): Promise<string> {
  const res = await service.app.request('/sandbox/tokens', {
    method: 'POST',
    headers: { host: '127.0.0.1', 'content-type': 'application/json' },
    body: JSON.stringify({ scopes, label: 'persistence test' }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { token: string; scopes: string[] };
  expect(body.scopes).toEqual(scopes);
  return body.token;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'service-persistence-'));
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a restart on the same data directory', () => {
  it('keeps a new schema, its document values and a minted token', async () => {
    const first = start();
    expect((await call(first, 'PUT', SCHEMA('Projects'), { token: TOKENS.global, body: PROJECTS })).status).toBe(200);
    expect(
      (await call(first, 'PUT', DOC('DOC-42', 'projects'), { token: TOKENS.global, body: { customMetadata: [{ name: 'phase', value: 'build' }] } })).status,
    ).toBe(200);
    const minted = await mint(first, ['custommetadata:projects']);
    stop(first);

    const second = start();
    // The schema.
    const schema = await call(second, 'GET', SCHEMA('projects'), { token: TOKENS.global });
    expect(schema.status).toBe(200);
    expect(schema.json).toEqual(PROJECTS);
    // The values: documents carry "phase", so its type cannot change.
    const retype = { metadataKeys: [{ name: 'phase', propertyType: 'TEXTLIST' }, PROJECTS.metadataKeys[1]] };
    expectMetadataError(await call(second, 'PUT', SCHEMA('projects'), { token: TOKENS.global, body: retype }), 409);
    // "notes" has no values, so its type can.
    const retypeNotes = { metadataKeys: [PROJECTS.metadataKeys[0], { name: 'notes', propertyType: 'TEXTLIST' }] };
    expect((await call(second, 'PUT', SCHEMA('projects'), { token: TOKENS.global, body: retypeNotes })).status).toBe(200);
    // The minted token, with exactly its scope.
    expect((await call(second, 'GET', SCHEMA('projects'), { token: minted })).status).toBe(200);
    expectMetadataError(await call(second, 'GET', SCHEMA('sales'), { token: minted }), 401);
  });

  it('does not re-apply the demo seed over user changes', async () => {
    const first = start();
    expect((await call(first, 'DELETE', SCHEMA('sales'), { token: TOKENS.global })).status).toBe(200);
    expect((await call(first, 'DELETE', DOC('DOC-2001', 'hr'), { token: TOKENS.global })).status).toBe(200);
    stop(first);

    const second = start();
    expectMetadataError(await call(second, 'GET', SCHEMA('sales'), { token: TOKENS.global }), 404);
    expect(second.store.getDocValues('DOC-2001', 'hr')).toBeUndefined();
    // The other seeded groups and the demo tokens are still there.
    expect((await call(second, 'GET', SCHEMA('hr'), { token: TOKENS.hr })).status).toBe(200);
  });
});

describe('the SQLite file', () => {
  it('holds no token in clear, only hashes', async () => {
    const service = start();
    const minted = await mint(service, ['agents.run']);
    stop(service);

    const bytes = Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f))));
    // The files do hold the token records: their labels and hashes are there.
    expect(bytes.includes(Buffer.from('Demo: group sales'))).toBe(true);
    expect(bytes.includes(createHash('sha256').update(TOKENS.sales).digest())).toBe(true);
    expect(bytes.includes(createHash('sha256').update(minted).digest())).toBe(true);
    // But never the token strings.
    for (const t of DEMO_TOKENS) expect(bytes.includes(Buffer.from(t.token)), t.label).toBe(false);
    expect(bytes.includes(Buffer.from(minted))).toBe(false);
  });

  it('uses write-ahead logging', () => {
    stop(start());
    const db = new Database(join(dir, 'service.sqlite'), { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  });
});

describe('the token command', { timeout: 60_000 }, () => {
  const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
  const cli = join(ROOT, 'src', 'service', 'cli.ts');

  function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((done) => {
      execFile(tsx, [cli, ...args], { cwd: ROOT, timeout: 15_000 }, (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        done({ code, stdout, stderr });
      });
    });
  }

  it('prints exactly one line, the token, which a service on that directory accepts', async () => {
    const out = await run(['token', '--data', dir, '--scope', 'custommetadata:sales']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^\S+\n$/);
    const token = out.stdout.trim();
    expect(DEMO_TOKENS.map((t) => t.token)).not.toContain(token);

    const service = start();
    expect((await call(service, 'GET', SCHEMA('sales'), { token })).status).toBe(200);
    expectMetadataError(await call(service, 'GET', SCHEMA('hr'), { token }), 401);
    // The command seeded the directory, so the demo data is there too.
    expect((await call(service, 'GET', SCHEMA('hr'), { token: TOKENS.hr })).status).toBe(200);
  });

  it.each(['admin:everything', 'custommetadata:__proto__', 'custommetadata:sales_eu'])(
    'refuses the scope %s, outside the grammar, with exit code 2 and a message on stderr, minting nothing',
    async (scope) => {
      const out = await run(['token', '--data', dir, '--scope', 'custommetadata:sales', '--scope', scope]);
      expect(out.code).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr).toContain(scope);
      expect(readdirSync(dir)).toEqual([]);
    },
  );
});
