/**
 * `npm start -- --upstream URL --record DIR`, stopped (SIGTERM, or Ctrl+C's SIGINT) right
 * after an exchange: its recording was being written (to a hidden `.tmp`, renamed once
 * whole) when the process exited, and the last exchange was lost, a `.tmp` left behind. A
 * stop finishes the writes begun (a few seconds at most), then exits with the signal's usual
 * code (128 + its number). Real processes, signalled as a terminal does: the whole group.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Recording } from './recording.ts';
import { TOKENS } from './test-http.ts';
import { startCli, type CliProcess } from './test-support/cli-process.ts';

/** A large answer, so that its recording takes a while to write: the stop comes while it is written. */
const ITEMS = 200_000;
const answer = JSON.stringify({ items: Array.from({ length: ITEMS }, (_, i) => ({ id: i, text: `item ${i} ${'x'.repeat(80)}` })) });

let work = '';
let upstream: Server;
let up = '';

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'record-stop-'));
  upstream = createServer((req, res) => {
    req.resume();
    if (req.url?.endsWith('/stream')) {
      // An event stream that never ends: it is still going when the console's server stops.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let n = 0;
      const timer = setInterval(() => res.write(`id: ${++n}\ndata: tick ${n}\n\n`), 50);
      res.on('close', () => clearInterval(timer));
      return;
    }
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer));
  });
  await new Promise<void>((ok) => upstream.listen(0, '127.0.0.1', ok));
  up = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((ok) => upstream?.close(ok));
  rmSync(work, { recursive: true, force: true });
});

describe.each(['SIGTERM', 'SIGINT'] as const)('stopped with %s right after an exchange', (signal) => {
  let console_: CliProcess | undefined;
  afterAll(async () => void (await console_?.stop('SIGKILL')));

  test('the recording is written whole, no .tmp is left, and the exit code is the signal’s', async () => {
    const dir = join(work, signal);
    console_ = await startCli(['start', '--memory', '--port', '0', '--no-build', '--upstream', up, '--record', dir]);
    const res = await fetch(`${console_.url}/upstream/${new URL(up).host}/rest/api/v1/agents/list`, { headers: { authorization: `Bearer ${TOKENS.everything}` } });
    expect(res.status).toBe(200);
    expect((await res.text()).length).toBe(answer.length);
    const status = await console_.stop(signal);
    const said = console_.output();
    expect(status, said).toEqual({ code: 128 + constants.signals[signal], signal: null });
    // Made on the recorder's own thread, not on the server's (which says when it has to).
    expect(said).not.toMatch(/recorder's thread/);
    const names = readdirSync(dir);
    expect(names, said).toEqual(['0001-get-rest-api-v1-agents-list.json']);
    const recording = JSON.parse(readFileSync(join(dir, names[0]!), 'utf8')) as Recording;
    expect(recording.response.end).toBe('complete');
    expect((recording.response.body as { items: unknown[] }).items).toHaveLength(ITEMS);
  }, 120_000);
});

test('a stream still going when Ctrl+C stops the server is recorded as broken, with the events it had', async () => {
  const dir = join(work, 'stream');
  const console_ = await startCli(['start', '--memory', '--port', '0', '--no-build', '--upstream', up, '--record', dir]);
  try {
    const res = await fetch(`${console_.url}/upstream/${new URL(up).host}/api/agents/x/stream`, { headers: { authorization: `Bearer ${TOKENS.everything}` } });
    const reader = res.body!.getReader();
    let seen = '';
    while ((seen.match(/data: /g) ?? []).length < 3) seen += new TextDecoder().decode((await reader.read()).value);
    const status = await console_.stop('SIGINT');
    expect(status, console_.output()).toEqual({ code: 128 + constants.signals.SIGINT, signal: null });
    const names = readdirSync(dir);
    expect(names, console_.output()).toEqual(['0001-get-api-agents-x-stream.json']);
    const { response } = JSON.parse(readFileSync(join(dir, names[0]!), 'utf8')) as Recording;
    expect(response.end).toBe('broken');
    expect(response.events!.slice(0, 3).map((e) => e.data)).toEqual(['tick 1', 'tick 2', 'tick 3']);
  } finally {
    await console_.stop('SIGKILL');
  }
}, 120_000);
