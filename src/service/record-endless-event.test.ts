/**
 * `npm start -- --upstream URL --record DIR` against an instance whose event stream never
 * ends an event: `data:` lines, and never the blank line that closes one. The recorder's
 * event parser joined every line into one string, past any bound: at some 540 MB V8 threw
 * "RangeError: Invalid string length" inside the proxy's tap, and the console's server
 * exited (every tab's API calls refused from then on). A recording is bounded
 * (RECORD_MAX_BODY_BYTES); what it cannot keep it says `truncated`, and the server keeps
 * serving.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Recording } from './recording.ts';
import { TOKENS } from './test-http.ts';
import { startCli, type CliProcess } from './test-support/cli-process.ts';

/**
 * Past the recording's cap (RECORD_MAX_BODY_BYTES, 64 MB): the recording must say it was cut
 * there. (The crash itself took past V8's longest string, 2^29 − 24 characters: some 540 MB
 * through the proxy, which only a long test would send. Below that, the old recorder kept the
 * whole event pending and wrote a recording of no events that did not say it was cut.)
 */
const STREAMED_BYTES = 80 * 1024 * 1024;
const LINES = Buffer.from(`data: ${'y'.repeat(1000)}\n`.repeat(1024));

let work = '';
let upstream: Server;
let console_: CliProcess;
let base = '';

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'record-endless-'));
  upstream = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let sent = 0;
    const more = () => {
      while (sent < STREAMED_BYTES && !res.destroyed) {
        sent += LINES.length;
        if (!res.write(LINES)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
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

test('an event that never ends (80 MB of data lines, no blank line) is recorded truncated, and the console’s server keeps serving', async () => {
  const res = await fetch(`${base}/rest/api/v1/agents/runs/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKENS.agents}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(res.status).toBe(200);
  let got = 0;
  let broke = '';
  try {
    for await (const chunk of res.body!) got += (chunk as Uint8Array).length;
  } catch (err) {
    broke = String((err as Error).message);
  }
  // The upstream sends whole blocks of lines until it has sent at least STREAMED_BYTES.
  expect({ got, broke }).toEqual({ got: Math.ceil(STREAMED_BYTES / LINES.length) * LINES.length, broke: '' });
  expect((await fetch(`${console_.url}/sandbox/info`)).status).toBe(200);
  const dir = join(work, 'rec');
  let files: string[] = [];
  for (const end = Date.now() + 30_000; Date.now() < end && !files.length; await new Promise((r) => setTimeout(r, 200))) {
    files = readdirSync(dir).filter((f) => f.endsWith('.json') && !f.startsWith('.'));
  }
  expect(files.length).toBe(1);
  const recording = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as Recording;
  expect(recording.response.truncated).toBe(true);
}, 300_000);
