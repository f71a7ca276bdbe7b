/**
 * `npm start -- --upstream URL --record DIR` with hostile bodies, as a user runs it: a body
 * nested a hundred thousand deep fits in the 1 MB limit, and an instance may answer one. The
 * recorder scrubbed and wrote bodies by recursion: a deep request answered 204 (no body)
 * crashed the console's server (an unhandled RangeError), and a deep answer was silently not
 * recorded. A body nested that deep is kept as its text; the server never stops for a recording.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { lastRecordingNumber } from './recorder.ts';
import type { Recording } from './recording.ts';
import { TOKENS } from './test-http.ts';
import { startCli, type CliProcess } from './test-support/cli-process.ts';

const DEPTH = 100_000;
const deep = '['.repeat(DEPTH) + ']'.repeat(DEPTH);

let work = '';
let upstream: Server;
let console_: CliProcess;
let base = '';

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'record-hostile-'));
  // An instance that answers 204 to a POST and a deep JSON array to a GET.
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST') res.writeHead(204).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(deep);
    });
  });
  await new Promise<void>((ok) => upstream.listen(0, '127.0.0.1', ok));
  const up = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  console_ = await startCli(['start', '--memory', '--port', '0', '--no-build', '--upstream', up, '--record', join(work, 'rec')]);
  base = `${console_.url}/upstream/${new URL(up).host}`;
}, 120_000);

afterAll(async () => {
  await console_?.stop();
  await new Promise((ok) => upstream?.close(ok));
  rmSync(work, { recursive: true, force: true });
});

async function recordings(n: number): Promise<Recording[]> {
  const dir = join(work, 'rec');
  for (const end = Date.now() + 20_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    const files = readdirSync(dir).filter((f) => f.endsWith('.json') && !f.startsWith('.')).sort();
    if (files.length >= n) return files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Recording);
  }
  throw new Error(`fewer than ${n} recordings in ${dir}:\n${console_.output()}`);
}

test('a body nested 100,000 deep, sent or answered, is recorded as its text and the console’s server keeps serving', async () => {
  const headers = { authorization: `Bearer ${TOKENS.everything}`, 'content-type': 'application/json' };
  const sent = await fetch(`${base}/rest/api/v1/agents/runs/wait`, { method: 'POST', headers, body: deep });
  expect(sent.status).toBe(204);
  const [first] = await recordings(1);
  expect(first!.request.bodyText).toBe(deep);
  const answered = await fetch(`${base}/rest/api/v1/agents/x`, { headers });
  expect(answered.status).toBe(200);
  expect((await answered.text()).length).toBe(deep.length);
  const [, second] = await recordings(2);
  expect(second!.response.bodyText).toBe(deep);
  expect((await fetch(`${console_.url}/sandbox/info`)).status).toBe(200);
}, 120_000);

test('a recording directory of 200,000 files numbers on from its highest recording (spread into Math.max, the names threw)', () => {
  const names = Array.from({ length: 200_000 }, (_, i) => `${i + 1}-POST-rest-api-v1-agents-runs.json`);
  names.push('notes.txt', '999999-GET-x.json.tmp', '250000-GET-rest-api-index-custom-metadata-schema-sales.json');
  expect(lastRecordingNumber(names)).toBe(250_000);
  expect(lastRecordingNumber(['README.md'])).toBe(0);
});
