/**
 * Durable runs within bounds (issue 14), over real HTTP: a terminal state stays terminal
 * whatever a worker still had to do, a token's runs not yet over are capped, ended runs are
 * deleted after the retention period, a run's output is bounded, and a poll does not
 * serialize the output again.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { TERMINAL_STATES } from '../../contract/durable-runs.ts';
import { listeningService, TOKENS } from '../test-http.ts';
import { DurableRunStore } from './store.ts';
import { durableClient, outputTexts, sleepMs, USER_HI } from './test-support.ts';

/**
 * The built-in agents with the long runner's clean-up after a cancellation made 4 s: longer than
 * the deadline and grace used here (2 s in all) by enough that a loaded machine, slow between
 * the start and the cancel, still cancels before the deadline.
 */
function agentsWithSlowCleanUp(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'limits-')), 'agents.json');
  const catalog = JSON.parse(readFileSync(new URL('../agents.json', import.meta.url), 'utf8')) as { agents: { agent_id: string; behaviour: { durable?: { cancelDelayMs?: number } } }[] };
  for (const a of catalog.agents) if (a.agent_id === 'long-runner') a.behaviour.durable!.cancelDelayMs = CLEAN_UP_MS;
  writeFileSync(file, JSON.stringify(catalog));
  return file;
}
const CLEAN_UP_MS = 4_000;

describe('a terminal state is final', { timeout: 60_000 }, () => {
  const server = listeningService({ memory: true, rateLimitPerMinute: 0, durableTimeoutMs: 1_500, durableGraceMs: 500, agentsFile: agentsWithSlowCleanUp() });
  const api = durableClient(() => server.url, TOKENS.agents);

  test('a cancelled run read FAILED past its deadline is still FAILED after its clean-up would have ended', async () => {
    const id = await api.start('long-runner');
    await api.state('long-runner', id, 'RUNNING');
    const cancelledAt = performance.now();
    expect(api.runOf(await api.cancel('long-runner', id)).state).toBe('CANCELLING');
    const failed = await api.until('long-runner', id, (r) => r.state !== 'CANCELLING', 8_000);
    expect(failed).toMatchObject({ state: 'FAILED', error: { code: 'execution_deadline_exceeded' } });
    // Past the moment the clean-up would have ended.
    await sleepMs(Math.max(0, cancelledAt + CLEAN_UP_MS + 300 - performance.now()));
    const later = api.runOf(await api.get('long-runner', id));
    expect(later).toEqual(failed);
    const states = new DurableRunStore(server.service.store.database).transitions(id).map((t) => t.state);
    expect(states).toEqual(['QUEUED', 'RUNNING', 'CANCELLING', 'FAILED']);
  });

  test('the database refuses any change to a terminal run, whoever asks', async () => {
    const id = await api.start('flaky-reporter');
    await api.state('flaky-reporter', id, 'FAILED');
    const db = server.service.store.database;
    expect(() => db.prepare("UPDATE durable_runs SET state = 'CANCELLED' WHERE run_id = ?").run(id)).toThrow(/terminal states are final/);
    expect(() => db.prepare("UPDATE durable_runs SET output = '[]' WHERE run_id = ?").run(id)).toThrow(/terminal states are final/);
    expect(api.runOf(await api.get('flaky-reporter', id)).state).toBe('FAILED');
  });
});

describe('a token\'s durable runs not yet over are capped', { timeout: 60_000 }, () => {
  // --max-runs 2: durable runs get a pool of that size of their own.
  const server = listeningService({ memory: true, rateLimitPerMinute: 0, maxRunsPerToken: 2 });
  const api = durableClient(() => server.url, TOKENS.agents);
  const other = durableClient(() => server.url, TOKENS.everything);

  test('past the cap a durable POST is 429 problem+json with Retry-After; a run that ends frees a place', async () => {
    const paused = await api.start('expense-filer');
    await api.state('expense-filer', paused, 'REQUIRES_INPUT');
    const running = await api.start('long-runner');

    const refused = await api.create('echo-assistant');
    expect(refused.status).toBe(429);
    expect(refused.contentType).toBe('application/problem+json');
    expect(refused.json).toMatchObject({ status: 429, code: 'rate_limit_exceeded', detail: expect.stringContaining('2 durable runs not yet over') });
    const head = await fetch(`${server.url}/api/agents/echo-assistant/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.agents}`, 'content-type': 'application/json' },
      body: JSON.stringify({ execution_mode: 'DURABLE', messages: USER_HI }),
    });
    expect(head.status).toBe(429);
    expect(head.headers.get('retry-after')).toBe('30');
    // Per token; and a stream run of the same token is not held back by its durable runs.
    expect((await other.create('echo-assistant')).status).toBe(201);
    const stream = await fetch(`${server.url}/api/agents/echo-assistant/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.agents}`, 'content-type': 'application/json' },
      body: JSON.stringify({ stream: true, messages: USER_HI }),
    });
    expect(stream.status).toBe(200);
    await stream.text();

    expect(api.runOf(await api.cancel('expense-filer', paused)).state).toBe('CANCELLED');
    expect((await api.create('echo-assistant')).status).toBe(201);
    await api.cancel('long-runner', running);
  });
});

describe('ended runs are deleted after the retention period', { timeout: 60_000 }, () => {
  // Long enough that a loaded machine still sees the ended run's rows before the sweep takes them.
  const server = listeningService({ memory: true, rateLimitPerMinute: 0, durableRetentionMs: 4_000 });
  const api = durableClient(() => server.url, TOKENS.agents);

  test('a read past it is 404 and the run\'s rows are gone; a paused run is kept', async () => {
    const ended = await api.start('flaky-reporter');
    const paused = await api.start('expense-filer');
    await api.state('flaky-reporter', ended, 'FAILED');
    await api.state('expense-filer', paused, 'REQUIRES_INPUT');
    const store = new DurableRunStore(server.service.store.database);
    expect(store.transitions(ended).length).toBeGreaterThan(0);
    const gone = await vi.waitFor(async () => {
      const read = await api.get('flaky-reporter', ended);
      expect(read.status).toBe(404);
      return read;
    }, { timeout: 30_000, interval: 250 });
    expect(gone.json).toMatchObject({ code: 'resource_not_found' });
    expect(store.get(ended)).toBeUndefined();
    expect(store.transitions(ended)).toEqual([]);
    expect(api.runOf(await api.get('expense-filer', paused)).state).toBe('REQUIRES_INPUT');
    await api.cancel('expense-filer', paused);
  });

  test('the sweep deletes ended runs nobody reads', async () => {
    const id = await api.start('flaky-reporter');
    await api.state('flaky-reporter', id, 'FAILED');
    const store = new DurableRunStore(server.service.store.database);
    expect(store.get(id)).toBeDefined();
    // The sweep runs every retention period, but at most once a second (and at least once a
    // minute): nobody reads the run, and it still goes once its retention is past.
    await vi.waitFor(() => expect(store.get(id)).toBeUndefined(), { timeout: 30_000, interval: 250 });
  });
});

describe('a run\'s output is bounded', { timeout: 60_000 }, () => {
  const server = listeningService({ memory: true, rateLimitPerMinute: 0, durableMaxOutputBytes: 10_000 });
  const api = durableClient(() => server.url, TOKENS.agents);

  test('past the bound the run fails with output_limit_exceeded, keeping the output it had', async () => {
    const id = await api.start('firehose', { input: { count: 100_000 } });
    const run = await api.state('firehose', id, 'FAILED');
    expect(run.error).toMatchObject({ code: 'output_limit_exceeded', message: expect.stringContaining('10,000 bytes') });
    const [text] = outputTexts(run);
    expect(Buffer.byteLength(text!)).toBeLessThanOrEqual(10_000);
    expect(Buffer.byteLength(text!)).toBeGreaterThan(10_000 - 'token 99999 '.length);
    // The tokens in order, none lost: the output is the start of the run's text.
    const n = text!.split('token ').length - 1;
    expect(text).toBe(Array.from({ length: n }, (_, i) => `token ${i + 1} `).join(''));
    expect(TERMINAL_STATES).toContain(run.state);
  });
});

describe('a poll', { timeout: 60_000 }, () => {
  const server = listeningService();
  const api = durableClient(() => server.url, TOKENS.agents);
  afterEach(() => vi.restoreAllMocks());

  test('answers the stored output as it is: nothing parses or serializes the output again', async () => {
    const id = await api.start('firehose', { input: { count: 5_000 } });
    const done = await api.state('firehose', id, 'SUCCEEDED');
    const marker = 'token 4321 ';
    expect(outputTexts(done)[0]).toContain(marker);
    const stringify = vi.spyOn(JSON, 'stringify');
    const parse = vi.spyOn(JSON, 'parse');
    const res = await fetch(`${server.url}/api/agents/firehose/runs/${id}`, { headers: { authorization: `Bearer ${TOKENS.agents}` } });
    const text = await res.text();
    const serialized = stringify.mock.results.filter((r) => typeof r.value === 'string' && (r.value as string).includes(marker));
    const parsed = parse.mock.calls.filter(([s]) => typeof s === 'string' && s.includes(marker));
    vi.restoreAllMocks();
    expect(res.status).toBe(200);
    expect(text).toContain(marker);
    expect({ serialized: serialized.length, parsed: parsed.length }).toEqual({ serialized: 0, parsed: 0 });
  });
});
