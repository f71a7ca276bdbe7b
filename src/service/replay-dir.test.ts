/**
 * `npm run service -- --replay DIR` on a directory that is whatever someone put there:
 * hard links that make one large file many (24 links to a 190 MB file took the start to 4.4 GB
 * and out of memory), more files than any session records, a link to a system file (its
 * first line was printed in the error), names with terminal escape codes (printed raw), and a
 * body nested a million deep (the start passed, then every request for it answered 500).
 * The directory is bounded as a whole; a start refuses (exit 2) what it cannot serve, naming
 * the file with its control characters escaped and printing nothing of what a file holds; and
 * what a start accepts is answered. Real files, the real CLI in a child process.
 */
import { spawn } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { RECORDING_FORMAT, RECORDING_VERSION, type Recording } from './recording.ts';
import { REPLAY_BOUNDS } from './replay-load.ts';
import { TOKENS } from './test-http.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'replay-dir-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function recording(path: string, response: Partial<Recording['response']> = {}): Recording {
  return {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    recordedAt: '2026-01-01T00:00:00.000Z',
    upstream: 'https://acme-be.example',
    request: { method: 'GET', path },
    response: { status: 200, headers: { 'content-type': 'application/json' }, headAtMs: 0, endAtMs: 0, end: 'complete', body: { ok: true }, ...response },
  };
}

function dir(name: string): string {
  const d = join(work, name);
  mkdirSync(d);
  return d;
}

interface Start {
  /** The exit code, when it did not start. */
  code: number | null;
  /** What it printed so far. */
  readonly output: string;
  /** It started (and was stopped): its address. */
  url?: string;
  stop(): Promise<void>;
}

/** `npm run service -- --memory --port 0 --replay DIR`, until it listens or exits. */
function start(replayDir: string): Promise<Start> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/service/cli.ts', 'service', '--memory', '--port', '0', '--rate-limit', '0', '--replay', replayDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  return new Promise((resolve_) => {
    let output = '';
    const timer = setTimeout(() => void stop(), 60_000);
    const seen = (b: Buffer) => {
      output += b.toString('utf8');
      const m = /Reference service on (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve_({ code: null, url: m[1], stop, get output() { return output; } });
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve_({ code, output, stop });
    });
  });
}

/** Control characters that would act on a terminal: C0, DEL, C1, and the bidirectional overrides. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('the directory as a whole is bounded', () => {
  test(
    'hard links to one large file count once each: past the total bound, the start is refused, naming the bound',
    async () => {
      const d = dir('links');
      const size = 30 * 2 ** 20;
      const big = join(d, '0001-get-rest-api-v1-agents-big.json');
      writeFileSync(big, JSON.stringify(recording('/rest/api/v1/agents/big', { body: undefined, bodyText: 'x'.repeat(size) })));
      const links = Math.ceil(REPLAY_BOUNDS.totalBytes / size) + 1;
      for (let i = 2; i <= links; i++) linkSync(big, join(d, `${String(i).padStart(4, '0')}-get-rest-api-v1-agents-big.json`));
      const started = await start(d);
      await started.stop();
      expect(started.url, started.output).toBeUndefined();
      expect(started.code).toBe(2);
      expect(started.output).toMatch(new RegExp(`more than ${REPLAY_BOUNDS.totalBytes / 2 ** 20} MB`));
      expect(started.output).toMatch(/\d{4}-get-rest-api-v1-agents-big\.json/);
    },
    120_000,
  );

  test(
    `more than ${REPLAY_BOUNDS.files.toLocaleString('en-US')} recordings: refused before any is read`,
    async () => {
      const d = dir('many');
      const text = JSON.stringify(recording('/rest/api/v1/agents/x'));
      for (let i = 1; i <= REPLAY_BOUNDS.files + 1; i++) writeFileSync(join(d, `${i}-get-x.json`), text);
      const started = await start(d);
      await started.stop();
      expect(started.url, started.output).toBeUndefined();
      expect(started.code).toBe(2);
      expect(started.output).toContain(`more than ${REPLAY_BOUNDS.files.toLocaleString('en-US')} recordings`);
    },
    120_000,
  );
});

describe('links and names', () => {
  test('a link to a system file is refused as a link, and nothing of the file is printed', async () => {
    const d = dir('passwd');
    symlinkSync('/etc/passwd', join(d, '0001-a.json'));
    const firstLine = readFileSync('/etc/passwd', 'utf8').split('\n')[0]!;
    const started = await start(d);
    await started.stop();
    expect(started.code, started.output).toBe(2);
    expect(started.output).toMatch(/0001-a\.json is a symbolic link/);
    expect(started.output).not.toContain(firstLine.slice(0, 6));
  }, 60_000);

  test('a link to a recording of the same directory is refused too: a replay reads the files the directory holds', async () => {
    const d = dir('inner-link');
    writeFileSync(join(d, '0001-a.json'), JSON.stringify(recording('/rest/api/v1/agents/a')));
    symlinkSync(join(d, '0001-a.json'), join(d, '0002-b.json'));
    const started = await start(d);
    await started.stop();
    expect(started.code, started.output).toBe(2);
    expect(started.output).toMatch(/0002-b\.json is a symbolic link/);
  }, 60_000);

  test('a file that is not JSON: refused with where, never what (a password file copied in)', async () => {
    const d = dir('not-json');
    writeFileSync(join(d, '0001-a.json'), 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n');
    // And one that breaks off on its second line: the parser says where, so the refusal does.
    writeFileSync(join(d, '0002-b.json'), '{\n  "token": "s3cr3t-value",\n');
    const started = await start(d);
    await started.stop();
    expect(started.code, started.output).toBe(2);
    expect(started.output).toMatch(/0001-a\.json is not JSON\./);
    expect(started.output).not.toMatch(/root|daemon|nologin/);
    rmSync(join(d, '0001-a.json'));
    const second = await start(d);
    await second.stop();
    expect(second.code, second.output).toBe(2);
    expect(second.output).toMatch(/0002-b\.json is not JSON \(line 3, column 1\)\./);
    expect(second.output).not.toContain('s3cr3t');
  }, 60_000);

  test('a name with terminal escape codes is printed escaped, in a refusal, in the start line and in a 404', async () => {
    const evil = '0001-\u001b[2J\u001b]0;owned\u0007\u009b31m\u202eevil.json';
    const bad = dir('evil-bad');
    writeFileSync(join(bad, evil), '{');
    const refused = await start(bad);
    await refused.stop();
    expect(refused.code, refused.output).toBe(2);
    expect(refused.output).toContain('0001-\\x1b[2J\\x1b]0;owned\\x07\\x9b31m\\u{202e}evil.json is not JSON');
    expect(refused.output).not.toMatch(RAW_CONTROL);

    const good = join(work, 'evil-dir-\u001b[31m');
    mkdirSync(good);
    writeFileSync(join(good, evil), JSON.stringify(recording('/rest/api/v1/agents/a')));
    const served = await start(good);
    try {
      expect(served.url, served.output).toBeDefined();
      await vi.waitFor(() => expect(served.output).toContain('Replaying 1 recordings from'));
      expect(served.output).toContain('evil-dir-\\x1b[31m');
      expect(served.output).not.toMatch(RAW_CONTROL);
      const res = await fetch(`${served.url}/rest/api/v1/agents/b`, { headers: { authorization: `Bearer ${TOKENS.everything}` } });
      const detail = (await res.json()) as string;
      expect(res.status).toBe(404);
      expect(detail).toContain('closest is 0001-\\x1b[2J');
      expect(detail).not.toMatch(RAW_CONTROL);
    } finally {
      await served.stop();
    }
  }, 120_000);

  test('a field name with control characters, in a file that is not a recording, is printed escaped', async () => {
    const d = dir('field');
    writeFileSync(join(d, '0001-a.json'), JSON.stringify(recording('/x', { headers: { 'x-\u001b[31m': 5 as unknown as string } })));
    const started = await start(d);
    await started.stop();
    expect(started.code, started.output).toBe(2);
    expect(started.output).toContain('/response/headers/x-\\x1b[31m must be string');
    expect(started.output).not.toMatch(RAW_CONTROL);
  }, 60_000);
});

describe('what a start accepts is answered', () => {
  test('an answer nested a million deep is served as recorded, not 500', async () => {
    const d = dir('deep');
    const depth = 1_000_000;
    const body = '['.repeat(depth) + ']'.repeat(depth);
    writeFileSync(join(d, '0001-get-deep.json'), JSON.stringify(recording('/rest/api/v1/agents/deep', { body: '@' })).replace('"@"', body));
    const served = await start(d);
    try {
      expect(served.url, served.output).toBeDefined();
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${served.url}/rest/api/v1/agents/deep`, { headers: { authorization: `Bearer ${TOKENS.everything}` } });
        expect(res.status).toBe(200);
        expect((await res.text()) === body).toBe(true);
      }
    } finally {
      await served.stop();
    }
  }, 120_000);
});
