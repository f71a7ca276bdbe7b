/**
 * A suite run in the page, against the reference service on the page's own origin: the
 * console's own stream reader (fetch-event-source), results kept in the database in batches,
 * progress told, and Stop ending it: runs in flight stopped, a durable one cancelled at the service.
 */
import { Dexie } from 'dexie';
import { waitFor } from '@testing-library/react';
import { expect, it } from 'vitest';
import { mintAgentsToken, referenceConnection, servicePosts } from '../../../test-support/reference-service';
import { consoleDb } from '../../../db/console-db';
import type { SuiteCase } from '../../../engine/suites/suite';
import { createSuite } from './suite-db';
import { suiteRuns } from './suite-runs';

const user = (text: string) => [{ role: 'USER' as const, content: [{ type: 'text' as const, text }] }];

it('runs every case and row in the page, keeps each result with its run, and sums them up', async () => {
  const token = await mintAgentsToken();
  const echo: SuiteCase = { id: 'echo', name: 'Echo', agent: { id: 'echo-assistant' }, api: 'platform', mode: 'stream', messages: user('x'), rows: [{ message: 'one' }, { message: 'two' }, { message: 'three' }], assertions: [{ kind: 'answer-contains', text: '"{{message}}"' }, { kind: 'spec-lens' }] };
  const wrong: SuiteCase = { ...echo, id: 'wrong', name: 'Wrong', rows: undefined, assertions: [{ kind: 'answer-equals', text: 'nothing' }] };
  const suite = await createSuite('In the page', [echo, wrong]);
  const id = suiteRuns.start(suite, referenceConnection(token, 'fp-suite'), { concurrency: 2 })!;
  expect(suiteRuns.start(suite, referenceConnection(token, 'fp-suite'), { concurrency: 2 })).toBeUndefined();
  await waitFor(() => expect(suiteRuns.of(suite.id)?.ended).toBe(true), { timeout: 20_000 });
  expect(suiteRuns.of(suite.id)).toMatchObject({ id, total: 4, passed: 3, failed: 1, summary: { total: 4, passed: 3, failed: 1 } });
  const results = await consoleDb().caseResults.where('[suiteRunId+index]').between([id, Dexie.minKey], [id, Dexie.maxKey]).toArray();
  expect(results.map((r) => [r.key, r.verdict])).toEqual([['echo#1', 'passed'], ['echo#2', 'passed'], ['echo#3', 'passed'], ['wrong', 'failed']]);
  expect(results[3]!.assertions[0]).toMatchObject({ pass: false, actual: expect.stringContaining('You asked: "x"') });
  expect((await consoleDb().caseDetails.get(`${id}:echo#2`))!.events!.length).toBeGreaterThan(5);
  expect(await consoleDb().suiteRuns.get(id)).toMatchObject({ status: 'done', total: 4, summary: { passed: 3 } });
});

it('judges answer-matches in a worker: a hostile pattern on a long answer fails at its budget, saying so, and the others are judged', async () => {
  const token = await mintAgentsToken();
  const long = 'a'.repeat(28_000);
  const hostile: SuiteCase = { id: 'hostile', name: 'Hostile pattern', agent: { id: 'echo-assistant' }, api: 'platform', mode: 'wait', messages: user(long), assertions: [{ kind: 'answer-matches', pattern: '(?:[ -~]{1000}|Q)'.repeat(500) }] };
  const plain: SuiteCase = { ...hostile, id: 'plain', name: 'Plain pattern', messages: user('x'), assertions: [{ kind: 'answer-matches', pattern: '^You asked: "x"' }, { kind: 'answer-matches', pattern: 'Goodbye' }] };
  const suite = await createSuite('Patterns in a worker', [hostile, plain]);
  const id = suiteRuns.start(suite, referenceConnection(token, 'fp-patterns'), { concurrency: 2 })!;
  await waitFor(() => expect(suiteRuns.of(suite.id)?.ended).toBe(true), { timeout: 40_000 });
  const [a, b] = await consoleDb().caseResults.where('[suiteRunId+index]').between([id, Dexie.minKey], [id, Dexie.maxKey]).toArray();
  expect(a!.assertions[0]).toMatchObject({ pass: false, actual: expect.stringMatching(/^not judged: matching the pattern against the answer \([\d,]+ characters\) took longer than 2,000 ms/) });
  expect(b!.assertions.map((x) => x.pass)).toEqual([true, false]);
}, 60_000);

it('Stop ends the suite run: runs in flight are stopped, a durable run is asked to cancel, nothing else is sent', async () => {
  const token = await mintAgentsToken();
  const slow: SuiteCase = { id: 'slow', name: 'Slow', agent: { id: 'slow-storyteller' }, api: 'platform', mode: 'stream', messages: user('tell'), assertions: [{ kind: 'outcome', expect: 'success' }] };
  const long: SuiteCase = { id: 'long', name: 'Long', agent: { id: 'long-runner' }, api: 'platform', mode: 'durable', messages: user('go'), policy: { kind: 'approve-all' }, assertions: [] };
  const later: SuiteCase = { ...slow, id: 'later', name: 'Later' };
  const suite = await createSuite('Stopped', [slow, long, later]);
  const postsBefore = (await servicePosts()).length;
  const id = suiteRuns.start(suite, referenceConnection(token, 'fp-stop'), { concurrency: 2 })!;
  await waitFor(() => expect(suiteRuns.of(suite.id)?.running).toBe(2));
  // Until the durable run exists at the service (its 201 answered): Stop then cancels it there.
  await waitFor(async () => expect((await servicePosts()).slice(postsBefore).some((p) => p.path === '/api/agents/long-runner/runs' && p.status === 201)).toBe(true), { timeout: 10_000 });
  await new Promise((r) => setTimeout(r, 300));
  suiteRuns.stop(id);
  await waitFor(() => expect(suiteRuns.of(suite.id)?.ended).toBe(true), { timeout: 10_000 });
  expect(suiteRuns.of(suite.id)).toMatchObject({ stopped: 2, passed: 0, failed: 0, results: [expect.anything(), expect.anything()] });
  expect(await consoleDb().suiteRuns.get(id)).toMatchObject({ status: 'stopped' });
  const long2 = (await consoleDb().caseResults.get(`${id}:long`))!;
  expect(long2.entry.transitions?.some((t) => t.note === 'You asked the service to cancel the run.')).toBe(true);
  const read = await fetch(`/api/agents/long-runner/runs/${long2.entry.runId}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(((await read.json()) as { run: { state: string } }).run.state).toMatch(/^CANCELL(ING|ED)$/);
  // The third case was never sent: one stream and one durable run, no more.
  expect((await servicePosts()).slice(postsBefore).map((p) => p.path)).toEqual(expect.arrayContaining(['/api/agents/slow-storyteller/runs', '/api/agents/long-runner/runs']));
  expect((await servicePosts()).slice(postsBefore).filter((p) => p.path === '/api/agents/slow-storyteller/runs')).toHaveLength(1);
});

it('a suite deleted while it runs keeps nothing of that run: results that end after the delete are not written for a run no longer there', async () => {
  const token = await mintAgentsToken();
  const slow: SuiteCase = { id: 'slow', name: 'Slow', agent: { id: 'slow-storyteller' }, api: 'platform', mode: 'stream', messages: user('tell'), assertions: [{ kind: 'outcome', expect: 'success' }] };
  const suite = await createSuite('Deleted while running', [slow]);
  const id = suiteRuns.start(suite, referenceConnection(token, 'fp-deleted'), { concurrency: 1 })!;
  await waitFor(() => expect(suiteRuns.of(suite.id)?.running).toBe(1));
  await waitFor(async () => expect(await consoleDb().suiteRuns.get(id)).toBeDefined());
  await suiteRuns.deleteSuite(suite.id);
  // The suite is gone: its run is stopped with it (not followed to its end: the story takes 20 s), and the tab lets it go.
  await waitFor(() => expect(suiteRuns.of(suite.id)?.ended ?? true).toBe(true), { timeout: 10_000 });
  expect(await consoleDb().suiteRuns.get(id)).toBeUndefined();
  expect(await consoleDb().caseResults.where('suiteRunId').equals(id).count()).toBe(0);
  expect(await consoleDb().caseDetails.get(`${id}:slow`)).toBeUndefined();
});

it('a tab holds in memory only the last run of each suite: running a suite again lets the earlier run’s live results go', async () => {
  const token = await mintAgentsToken();
  const echo: SuiteCase = { id: 'echo', name: 'Echo', agent: { id: 'echo-assistant' }, api: 'platform', mode: 'stream', messages: user('x'), assertions: [] };
  const suite = await createSuite('Again and again', [echo]);
  const before = suiteRuns.held;
  for (let i = 0; i < 3; i++) {
    const id = suiteRuns.start(suite, referenceConnection(token, 'fp-again'), { concurrency: 1 })!;
    await waitFor(() => expect(suiteRuns.of(suite.id)).toMatchObject({ id, ended: true }), { timeout: 20_000 });
  }
  expect(suiteRuns.held - before).toBe(1);
});

it('Stop once every case has ended (its results still being written) leaves the run done, as it ended', async () => {
  const token = await mintAgentsToken();
  const echo: SuiteCase = { id: 'echo', name: 'Echo', agent: { id: 'echo-assistant' }, api: 'platform', mode: 'wait', messages: user('x'), assertions: [] };
  const suite = await createSuite('Stopped too late', [echo]);
  const id = suiteRuns.start(suite, referenceConnection(token, 'fp-late'), { concurrency: 1 })!;
  await waitFor(() => expect(suiteRuns.of(suite.id)?.running).toBe(1));
  // The database is busy (another tab writing, a slow disk): the run's last results wait to be written.
  let busy = true;
  const db = consoleDb();
  const holding = db.transaction('rw', db.caseResults, async () => {
    while (busy) await db.caseResults.get('nothing');
  });
  await waitFor(() => expect(suiteRuns.of(suite.id)).toMatchObject({ results: [expect.anything()], passed: 1 }), { timeout: 20_000 });
  suiteRuns.stop(id);
  busy = false;
  await holding;
  await waitFor(() => expect(suiteRuns.of(suite.id)?.ended).toBe(true), { timeout: 20_000 });
  expect(await consoleDb().suiteRuns.get(id)).toMatchObject({ status: 'done', summary: { passed: 1, stopped: 0 } });
  expect(suiteRuns.of(suite.id)).toMatchObject({ stopping: false, passed: 1 });
});
