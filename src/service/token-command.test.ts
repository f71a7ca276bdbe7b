/**
 * The README's recipe, `export TOKEN=$(npm run --silent token -- --scope agents.run)`, against
 * a service that keeps its tokens in memory: the command asks the running service to mint
 * (by `--url`, or on the default address), so the printed token is accepted at once. With no
 * service answering, it mints into the data directory, as before.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from './app.ts';
import { call } from './test-http.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const CLI = join(ROOT, 'src', 'service', 'cli.ts');

interface Out {
  code: number;
  stdout: string;
  stderr: string;
}

function token(args: string[], options: { cwd?: string; port?: string } = {}): Promise<Out> {
  return new Promise((done) => {
    const env = { ...process.env, PORT: options.port ?? '' };
    execFile(TSX, [CLI, 'token', ...args], { cwd: options.cwd ?? ROOT, env, timeout: 20_000 }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** A port nothing listens on: taken, then freed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

async function agentSearch(base: string, value: string): Promise<number> {
  const res = await fetch(`${base}/api/agents/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${value}`, 'content-type': 'application/json' },
    body: '{}',
  });
  await res.arrayBuffer();
  return res.status;
}

let child: ChildProcess | undefined;
let base = '';
let dir = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'token-command-'));
  // `npm run service -- --memory`, as a user runs it: its tokens live in its memory only.
  child = spawn(process.execPath, ['--import', 'tsx', CLI, 'service', '--memory', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  base = await new Promise<string>((done, fail) => {
    let out = '';
    child!.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /Reference service on (http:\/\/\S+)/.exec(out);
      if (m) done(m[1]!);
    });
    child!.once('exit', (code) => fail(new Error(`the service exited with ${code} before listening:\n${out}`)));
  });
  child.stdout!.resume();
}, 30_000);

afterAll(() => {
  child?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run token against a service running --memory', { timeout: 60_000 }, () => {
  it('--url: the service mints the token, which it accepts at once; stdout is the token alone', async () => {
    const out = await token(['--scope', 'agents.run', '--url', base]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^\S+\n$/);
    expect(out.stderr).toContain(`Minted by the reference service at ${base}`);
    expect(await agentSearch(base, out.stdout.trim())).toBe(200);
  });

  it('without --url or --data, a service answering on the default address (PORT) mints it', async () => {
    const out = await token(['--scope', 'agents.run'], { port: new URL(base).port });
    expect(out.code).toBe(0);
    expect(out.stderr).toContain(`running at http://127.0.0.1:${new URL(base).port}`);
    expect(await agentSearch(base, out.stdout.trim())).toBe(200);
  });

  it('a scope the token lacks is still refused by the service (403), so the scopes were honoured', async () => {
    const out = await token(['--scope', 'custommetadata:sales', '--url', base]);
    expect(out.code).toBe(0);
    expect(await agentSearch(base, out.stdout.trim())).toBe(403);
  });

  it('--url where no service answers: exit 1, why on stderr, nothing on stdout and nothing written', async () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const out = await token(['--scope', 'agents.run', '--url', `http://127.0.0.1:${await closedPort()}`], { cwd });
    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(/No reference service answered at http:\/\/127\.0\.0\.1:\d+ \(.+\)\. Start one, or give --data DIR/);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('--url and --data together are a usage error (exit 2)', async () => {
    const out = await token(['--scope', 'agents.run', '--url', base, '--data', dir]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/not both/);
  });

  it('with no service answering, it mints into .data of the working directory, which a service started there accepts', async () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const out = await token(['--scope', 'agents.run'], { cwd, port: String(await closedPort()) });
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/No reference service answered at http:\/\/127\.0\.0\.1:\d+; minted into .*\.data/);
    const service = createService({ dataDir: join(cwd, '.data'), rateLimitPerMinute: 0 });
    try {
      const a = await call(service, 'POST', '/api/agents/search', { token: out.stdout.trim(), body: {} });
      expect(a.status).toBe(200);
    } finally {
      service.close();
    }
  });
});
