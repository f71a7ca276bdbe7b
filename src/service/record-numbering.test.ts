/**
 * Recording numbers as a directory grows past what the names were first made for. The
 * recorder pads numbers to four digits and a replay reads the files "in name order (the order
 * they were recorded)": from the 10,000th recording on, name order is not recorded order
 * ("10000-…" sorts before "9999-…"), so recordings of one request answered out of turn. And
 * a directory holding a name with a number past 2^53 (`99999999999999999999-x.json`, copied
 * in or hand-made) left the recorder adding 1 to a number that no longer changes: every
 * exchange got the same number, and a second exchange of a request replaced the first.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { Recorder } from './recorder.ts';
import { RECORDING_FORMAT, RECORDING_VERSION, type Recording } from './recording.ts';
import { loadRecordings } from './replay-load.ts';
import { call, freshService, TOKENS } from './test-http.ts';

const work = mkdtempSync(join(tmpdir(), 'record-numbering-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PATH = '/rest/api/v1/agents/runs/wait';

function recording(answer: string): Recording {
  return {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    recordedAt: '2026-01-01T00:00:00.000Z',
    upstream: 'https://acme-be.example',
    request: { method: 'POST', path: PATH, headers: { 'content-type': 'application/json' }, body: { agent_id: 'a' } },
    response: { status: 200, headers: { 'content-type': 'application/json' }, headAtMs: 0, endAtMs: 0, end: 'complete', body: { answer } },
  };
}

async function settled(dir: string, count: number): Promise<string[]> {
  for (let i = 0; i < 200; i++) {
    const names = readdirSync(dir).filter((n) => !n.startsWith('.'));
    if (names.length >= count) return names;
    await new Promise((r) => setTimeout(r, 10));
  }
  return readdirSync(dir).filter((n) => !n.startsWith('.'));
}

test('a replay answers recordings of one request in recorded order past the 10,000th (9999 before 10000)', async () => {
  const dir = join(work, 'order');
  mkdirSync(dir);
  // As the recorder names them: the 9,999th and the 10,000th exchange, the same request.
  writeFileSync(join(dir, '9999-post-rest-api-v1-agents-runs-wait.json'), JSON.stringify(recording('earlier')));
  writeFileSync(join(dir, '10000-post-rest-api-v1-agents-runs-wait.json'), JSON.stringify(recording('later')));
  const app = freshService({ memory: true, rateLimitPerMinute: 0, replay: { set: loadRecordings(dir), speed: 1 } });
  const ask = async () =>
    ((await call(app, 'POST', PATH, { token: TOKENS.agents, body: { agent_id: 'a' } })).json as { answer?: string }).answer;
  expect([await ask(), await ask(), await ask()]).toEqual(['earlier', 'later', 'later']);
});

test('after a file numbered past 2^53, every new exchange gets a file of its own (none replaces another)', async () => {
  const dir = join(work, 'huge');
  mkdirSync(dir);
  writeFileSync(join(dir, '99999999999999999999-x.json'), '{}');
  const recorder = new Recorder(dir);
  recorder.write(recording('one'));
  recorder.write(recording('two'));
  recorder.write(recording('three'));
  const names = await settled(dir, 4);
  expect(names.length).toBe(4);
});

test('after a file numbered just below 2^53, every new exchange still gets a file of its own', async () => {
  const dir = join(work, 'near');
  mkdirSync(dir);
  // Under Number.MAX_SAFE_INTEGER, so counted on from: 2^53 − 1, then 2^53, then 2^53 + 1,
  // which is not a double (it rounds to 2^53, a name already taken).
  writeFileSync(join(dir, '9007199254740990-x.json'), '{}');
  const recorder = new Recorder(dir);
  for (const answer of ['one', 'two', 'three', 'four']) recorder.write(recording(answer));
  const names = await settled(dir, 5);
  expect(names.length).toBe(5);
});
