/**
 * A replay fed hostile recordings or hostile requests: a directory is whatever a user copied
 * there, and a request is whatever a client sent. Each answer is a clear one (a start that
 * names the file, a 404 that names the closest recording), never a 500, and the work one
 * request buys does not multiply with the number of recordings.
 *
 * The cost check is a ratio of CPU time measured in the same run (one recording against four
 * hundred of the same path, the same 1 MB body), so it holds on a loaded machine. Parsing the
 * request's body once per recording made it about 400 (both the match and the closest-recording
 * search parsed it; 3,000 recordings held the event loop 14.7 s for one request).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { MAX_BODY_BYTES } from './http.ts';
import { loadRecordings } from './replay-load.ts';
import { RECORDING_FORMAT, RECORDING_VERSION, type Recording } from './recording.ts';
import { call, expectLegacyError, freshService, TOKENS } from './test-http.ts';

const work = mkdtempSync(join(tmpdir(), 'replay-hostile-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const WAIT_PATH = '/rest/api/v1/agents/runs/wait';

function recording(request: Partial<Recording['request']>, response: Partial<Recording['response']> = {}): Recording {
  return {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    recordedAt: '2026-01-01T00:00:00.000Z',
    upstream: 'https://acme-be.example',
    request: { method: 'POST', path: WAIT_PATH, ...request },
    response: { status: 200, headers: { 'content-type': 'application/json' }, headAtMs: 0, endAtMs: 0, end: 'complete', body: { ok: true }, ...response },
  };
}

/** A directory of these recordings (as JSON text, so a body may be nested deeper than JSON.stringify goes). */
function dirOf(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  mkdirSync(dir);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

function replayService(dir: string) {
  return freshService({ memory: true, rateLimitPerMinute: 0, replay: { set: loadRecordings(dir), speed: 1 } });
}

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('a replay and hostile recordings', () => {
  test('a body nested 100,000 deep, against a recording nested as deep, answers 404 naming the closest recording, not 500', async () => {
    const deep = JSON.stringify(recording({ body: '@' })).replace('"@"', nested(100_000));
    const service = replayService(dirOf('deep', { '0001-deep.json': deep }));
    try {
      const other = nested(100_001);
      const answer = await call(service, 'POST', WAIT_PATH, { token: TOKENS.everything, body: other, contentType: 'application/json' });
      expect(expectLegacyError(answer, 404)).toMatch(/closest is 0001-deep\.json: same method and path, but the body differs/);
      const same = await call(service, 'POST', WAIT_PATH, { token: TOKENS.everything, body: nested(100_000), contentType: 'application/json' });
      expect(same.status).toBe(200);
      expect(same.json).toEqual({ ok: true });
    } finally {
      service.close();
    }
  });

  test('a recorded header no answer can carry stops the start, naming the file and the header', () => {
    const badName = dirOf('bad-name', { '0001-x.json': JSON.stringify(recording({}, { headers: { 'bad name': 'v' } })) });
    expect(() => loadRecordings(badName)).toThrow(/0001-x\.json.*"bad name" is not a header name/);
    const badValue = dirOf('bad-value', { '0001-y.json': JSON.stringify(recording({}, { headers: { 'x-note': 'a\nb' } })) });
    expect(() => loadRecordings(badValue)).toThrow(/0001-y\.json.*the value of x-note is not one a header can carry/);
  });

  test('a recorded content-length, transfer-encoding or connection is the connection’s own: the replay frames its answer itself', async () => {
    const headers = { 'content-type': 'application/json', 'content-length': '3', 'transfer-encoding': 'chunked', connection: 'close', 'x-kept': 'yes' };
    const service = replayService(dirOf('framing', { '0001-z.json': JSON.stringify(recording({ method: 'GET', path: '/rest/api/v1/agents/z' }, { headers })) }));
    try {
      const answer = await call(service, 'GET', '/rest/api/v1/agents/z', { token: TOKENS.everything });
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ ok: true });
      expect(answer.headers.get('x-kept')).toBe('yes');
      expect(answer.headers.get('transfer-encoding')).toBeNull();
      expect(answer.headers.get('connection')).toBeNull();
      expect(answer.headers.get('content-length')).not.toBe('3');
    } finally {
      service.close();
    }
  });

  test('a recording that answers after 10^13 ms (longer than one timer waits) is not answered at once', async () => {
    const late = recording({ method: 'GET', path: '/rest/api/v1/agents/late' }, { headAtMs: 1e13, endAtMs: 1e13 });
    const service = replayService(dirOf('late', { '0001-late.json': JSON.stringify(late) }));
    try {
      const stop = new AbortController();
      const answered = Promise.resolve(
        service.app.request('/rest/api/v1/agents/late', { headers: { authorization: `Bearer ${TOKENS.everything}` }, signal: stop.signal }),
      ).then(
        () => 'answered',
        () => 'answered',
      );
      const waited = new Promise((resolve) => setTimeout(resolve, 1_000, 'still waiting'));
      // A timer longer than 2^31-1 ms fires after 1 ms (Node's TimeoutOverflowWarning): the answer came at once.
      expect(await Promise.race([answered, waited])).toBe('still waiting');
      stop.abort();
      await answered;
    } finally {
      service.close();
    }
  });

  test('a 1 MB body against 400 recordings of its path costs about what it costs against one', async () => {
    const body = JSON.stringify({ agent_id: 'x', pad: Array.from({ length: Math.floor((MAX_BODY_BYTES - 100) / 104) }, () => 'a'.repeat(100)) });
    expect(body.length).toBeLessThan(MAX_BODY_BYTES);
    const files = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${String(i).padStart(4, '0')}-wait.json`, JSON.stringify(recording({ body: { agent_id: 'x', n: i } }))]));
    const one = replayService(dirOf('one', files(1)));
    const many = replayService(dirOf('many', files(400)));
    const cpu = async (service: typeof one) => {
      const t0 = process.cpuUsage();
      for (let i = 0; i < 3; i++) {
        const answer = await call(service, 'POST', WAIT_PATH, { token: TOKENS.everything, body, contentType: 'application/json' });
        expect(answer.status).toBe(404);
      }
      const d = process.cpuUsage(t0);
      return d.user + d.system;
    };
    try {
      await cpu(one); // warm-up
      const base = await cpu(one);
      const against = await cpu(many);
      // Linear in the body, plus a cheap comparison per recording: about 1; a parse per recording: about 400.
      expect(against / base).toBeLessThan(20);
    } finally {
      one.close();
      many.close();
    }
  }, 120_000);
});

/**
 * `--replay DIR` with a `*.json` that is no regular file: a named pipe (what `mkfifo` makes) or a
 * link to a device. statSync follows the link and says 0 bytes, so the 200 MB bound never
 * applies, and readFileSync then waits for a writer for ever (a pipe) or reads without end (a
 * link to /dev/zero: measured 16.5 GB resident, then std::bad_alloc, after 61 s). The start
 * should refuse the file, naming it, as it refuses a file that is not JSON. The start runs in a
 * child process: the read blocks its whole thread, and is killed at the deadline.
 */
describe('a recording directory whose *.json is no regular file', () => {
  const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
  const START_DEADLINE_MS = 20_000;

  function start(dir: string): Promise<{ code: number | null; stderr: string; killed: boolean }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'service', '--memory', '--port', '0', '--replay', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      let killed = false;
      child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
      // A start that went through is no refusal either: it is stopped as soon as it says so.
      child.stdout!.on('data', (b: Buffer) => {
        if (/Reference service on/.test(b.toString())) child.kill('SIGKILL');
      });
      const timer = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, START_DEADLINE_MS);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, stderr, killed });
      });
    });
  }

  test(
    'a named pipe called a.json: the start stops at once with an error naming the file, not a wait without end',
    async () => {
      const dir = join(work, 'fifo');
      mkdirSync(dir);
      expect(spawnSync('mkfifo', [join(dir, 'a.json')]).status).toBe(0);
      const started = performance.now();
      const result = await start(dir);
      const ms = performance.now() - started;
      expect(result.killed, `still reading ${join(dir, 'a.json')} after ${Math.round(ms)} ms`).toBe(false);
      // A directory a replay cannot start on is refused with exit code 2 (replay-load.ts).
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('a.json');
    },
    START_DEADLINE_MS + 10_000,
  );
});

test('a link to a device, a link to nothing and a directory called *.json are each refused by name, saying what they are', () => {
  const cases: [string, (file: string) => void, RegExp][] = [
    // /dev/zero would be read without end; /dev/null proves the same refusal at no cost if it regressed.
    // A replay follows no symbolic link (replay-load.ts): a link is refused as one, wherever it leads.
    ['device', (file) => symlinkSync('/dev/null', file), /^--replay: .*a\.json is a symbolic link/],
    ['dangling', (file) => symlinkSync(join(work, 'nowhere.json'), file), /^--replay: .*a\.json is a symbolic link/],
    ['folder', (file) => mkdirSync(file), /is a directory, not a recording/],
  ];
  for (const [name, make, said] of cases) {
    const dir = join(work, `odd-${name}`);
    mkdirSync(dir);
    make(join(dir, 'a.json'));
    expect(() => loadRecordings(dir), name).toThrow(said);
  }
});
