/**
 * A replay of an answer that was not whole. The recorder writes `end: "broken"` when an
 * instance broke off a JSON answer mid-way, and `truncated: true` when it kept only the first
 * 64 MB; docs/recording.md says a stream recorded so is broken at the same point. A plain body
 * recorded so was replayed as a whole answer: a 200 ending cleanly with half a JSON document,
 * so a client under test saw a complete answer (or a JSON syntax error) where the instance had
 * failed it. The connection breaks where the recording did, as for a stream.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RECORDING_FORMAT, RECORDING_VERSION, type Recording } from './recording.ts';
import { loadRecordings } from './replay-load.ts';
import { freshService, TOKENS } from './test-http.ts';
import { startCli, type CliProcess } from './test-support/cli-process.ts';

const PATH = '/rest/api/v1/agents/runs/wait';
let work = '';
let replay: CliProcess;

function recording(agent: string, response: Partial<Recording['response']>): Recording {
  return {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    recordedAt: '2026-01-01T00:00:00.000Z',
    upstream: 'https://acme-be.example',
    request: { method: 'POST', path: PATH, headers: { 'content-type': 'application/json' }, body: { agent_id: agent } },
    response: { status: 200, headers: { 'content-type': 'application/json' }, headAtMs: 0, endAtMs: 0, end: 'complete', ...response },
  };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'replay-broken-'));
  writeFileSync(join(work, '0001-post-broken.json'), JSON.stringify(recording('broken', { end: 'broken', bodyText: '{"messages":[{"role":"GLEAN_AI","con' })));
  writeFileSync(join(work, '0002-post-truncated.json'), JSON.stringify(recording('truncated', { end: 'complete', truncated: true, bodyText: '{"messages":[{"role":"GLEAN_AI","con' })));
  writeFileSync(join(work, '0003-post-whole.json'), JSON.stringify(recording('whole', { body: { messages: [] } })));
  writeFileSync(join(work, '0004-post-broken-502.json'), JSON.stringify(recording('broken-502', { status: 502, end: 'broken', bodyText: '{"error":"up' })));
  replay = await startCli(['service', '--memory', '--port', '0', '--rate-limit', '0', '--replay', work]);
}, 120_000);

afterAll(async () => {
  await replay?.stop();
  rmSync(work, { recursive: true, force: true });
});

async function read(agent: string): Promise<{ status: number; broken: boolean }> {
  const res = await fetch(`${replay.url}${PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKENS.agents}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent_id: agent }),
  });
  try {
    await res.text();
    return { status: res.status, broken: false };
  } catch {
    return { status: res.status, broken: true };
  }
}

test('a JSON answer recorded broken, or truncated, breaks off on the replay; a whole one ends cleanly', async () => {
  expect(await read('whole')).toEqual({ status: 200, broken: false });
  expect(await read('broken')).toEqual({ status: 200, broken: true });
  expect(await read('truncated')).toEqual({ status: 200, broken: true });
}, 60_000);

// In process (app.request, no socket) brokenOff enqueues the kept bytes and errors the stream in
// its start(): erroring a stream empties its queue, so a reader got the error and no byte.
test('in process (no socket), a body recorded broken still gives its kept bytes before the break', async () => {
  const app = freshService({ memory: true, rateLimitPerMinute: 0, replay: { set: loadRecordings(work), speed: 1 } });
  const res = await app.app.request(PATH, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKENS.agents}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent_id: 'broken' }),
  });
  const reader = res.body!.getReader();
  let got = '';
  let broke = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      got += new TextDecoder().decode(value);
    }
  } catch {
    broke = true;
  }
  expect({ status: res.status, got, broke }).toEqual({ status: 200, got: '{"messages":[{"role":"GLEAN_AI","con', broke: true });
});

// brokenOff writes the head itself and hands Hono node-server's already-sent marker, whose
// status is 200: the service's own log of run POSTs (GET /sandbox/runs) read that, not the 502 sent.
test('the sandbox run log says the status a broken-off replay sent (502), not 200', async () => {
  expect(await read('broken-502')).toEqual({ status: 502, broken: true });
  const { posts } = (await (await fetch(`${replay.url}/sandbox/runs`)).json()) as { posts: { path: string; status: number }[] };
  expect(posts.filter((p) => p.path === PATH).map((p) => p.status)).toContain(502);
});
