/**
 * The browser database's version 2 (suites): a database written by version 1 opens with it and
 * keeps its runs; suites, their runs and results are written and read back.
 */
import { waitFor } from '@testing-library/react';
import { Dexie } from 'dexie';
import { expect, it } from 'vitest';
import { mintAgentsToken, referenceConnection } from '../../../test-support/reference-service';
import { consoleDb, ConsoleDb, VERSION_1_STORES } from '../../../db/console-db';
import { evictionNotice, listRuns, saveRun, setRetentionLimits, wipeHistory } from '../../../db/history';
import { runRequest } from '../../../engine/run-request';
import type { SuiteCase } from '../../../engine/suites/suite';
import { createSuite, deleteSuite, unusedSuiteName, finishSuiteRun, RESULTS_READ_AT_ONCE, resultsOf, startSuiteRun, SUITE_LOCK_PREFIX, SUITE_RUNS_KEPT, sweepSuiteRuns, writeResults } from './suite-db';
import { suiteRuns } from './suite-runs';

const user = (text: string) => [{ role: 'USER' as const, content: [{ type: 'text' as const, text }] }];

it('a database written by version 1 opens at version 2 and keeps its runs, details and items', async () => {
  const name = `mac-v1-${Date.now()}`;
  // Written exactly as version 1 declared it, by a Dexie that knows no later version.
  const v1 = new Dexie(name);
  v1.version(1).stores(VERSION_1_STORES);
  const request = runRequest('platform', 'stream', { id: 'echo-assistant' }, { messages: [{ role: 'USER', content: [{ type: 'text', text: 'kept' }] }] });
  const run = { id: 'run_v1', startedAt: 5, request, target: { profileLabel: 'Reference', mode: 'same-origin', baseUrl: '' }, status: 'done', durationMs: 3, eventCount: 1, bytes: 9, transcript: 'kept', item: 'run_v1', size: 100, detailsBytes: 10 };
  await v1.table('runs').put(run);
  await v1.table('details').put({ id: 'run_v1', eventRecords: 1 });
  await v1.table('events').put({ id: 'run_v1', slice: 0, events: [{ seq: 1, id: '1', event: 'message', at: 1, gap: 1, bytes: 9, data: '{}' }] });
  await v1.table('items').put({ id: 'run_v1', kind: 'run', title: 'Echo', lastAt: 5, bytes: 100 });
  // Marked as moved from idb-keyval already, as a version-1 database that ran once is.
  await v1.table('meta').put({ key: 'migrated-from-idb-keyval', value: { at: 1, runs: 0 } });
  v1.close();

  const db = new ConsoleDb(name);
  try {
    await db.open();
    expect(db.verno).toBe(2);
    expect(await db.runs.toArray()).toEqual([run]);
    expect(await db.details.get('run_v1')).toEqual({ id: 'run_v1', eventRecords: 1 });
    expect((await db.events.toArray()).map((e) => e.events.length)).toEqual([1]);
    expect((await db.items.toArray()).map((i) => i.id)).toEqual(['run_v1']);
    // The new tables are there, empty, and take suites.
    expect(await db.suites.count()).toBe(0);
    await db.suites.put({ id: 's1', name: 'S', createdAt: 1, updatedAt: 1, cases: [] });
    await db.suiteRuns.put({ id: 'sr1', suiteId: 's1', suiteName: 'S', startedAt: 2, status: 'done', target: { profileId: 'p', profileLabel: 'P' }, concurrency: 4, total: 0 });
    expect((await db.suiteRuns.where('suiteId').equals('s1').toArray()).map((r) => r.id)).toEqual(['sr1']);
    expect(await db.runs.count()).toBe(1);
  } finally {
    db.close();
    await Dexie.delete(name);
  }
});

it('a suite run and History keep to limits of their own: a suite’s runs never push out History, and History’s retention never lets a suite run go', async () => {
  await wipeHistory();
  setRetentionLimits({ items: 2 });
  try {
    const token = await mintAgentsToken();
    const echo: SuiteCase = { id: 'echo', name: 'Echo', agent: { id: 'echo-assistant' }, api: 'platform', mode: 'stream', messages: user('x'), rows: [{ message: 'one' }, { message: 'two' }, { message: 'three' }], assertions: [{ kind: 'outcome', expect: 'success' }] };
    const suite = await createSuite('Apart from History', [echo]);
    const saved = (id: string, startedAt: number) => saveRun({ id, startedAt, request: runRequest('platform', 'wait', { id: 'echo-assistant' }, { messages: user(id) }), target: { profileId: 'reference', profileLabel: 'Reference', mode: 'same-origin', baseUrl: '' }, status: 'done', durationMs: 1, eventCount: 0, bytes: 2, transcript: 'Hi' });
    await saved('kept_1', 1_000);
    await saved('kept_2', 2_000);
    // Three runs of a suite, more than History's limit: History holds what it held, and says nothing was let go.
    const id = suiteRuns.start(suite, referenceConnection(token, 'fp-apart'), { concurrency: 3 })!;
    await waitFor(() => expect(suiteRuns.of(suite.id)?.ended).toBe(true), { timeout: 20_000 });
    expect((await listRuns()).map((r) => r.id).sort()).toEqual(['kept_1', 'kept_2']);
    expect(await evictionNotice()).toBeUndefined();
    // History's retention at work (a third run past its limit of two) leaves the suite run and its results.
    await saved('newest', 3_000);
    expect((await evictionNotice())?.items.map((i) => i.id)).toEqual(['kept_1']);
    expect(await consoleDb().suiteRuns.get(id)).toMatchObject({ status: 'done', summary: { passed: 3 } });
    expect(await consoleDb().caseResults.where('suiteRunId').equals(id).count()).toBe(3);
    expect(await consoleDb().caseDetails.get(`${id}:echo#1`)).toMatchObject({ events: expect.any(Array) });
    // A suite keeps its newest SUITE_RUNS_KEPT runs (the page says so); starting one more lets the oldest go, and nothing of History.
    for (let i = 0; i < SUITE_RUNS_KEPT; i++) await startSuiteRun({ id: `later_${i}`, suiteId: suite.id, suiteName: suite.name, startedAt: Date.now() + 1 + i, status: 'done', target: { profileId: 'reference', profileLabel: 'Reference' }, concurrency: 1, total: 0 });
    expect(await consoleDb().suiteRuns.get(id)).toBeUndefined();
    expect(await consoleDb().caseResults.where('suiteRunId').equals(id).count()).toBe(0);
    expect(await consoleDb().suiteRuns.where('suiteId').equals(suite.id).count()).toBe(SUITE_RUNS_KEPT);
    expect((await listRuns()).map((r) => r.id).sort()).toEqual(['kept_2', 'newest']);
  } finally {
    setRetentionLimits();
  }
});

it('a suite run left running by a closed or reloaded tab is told as interrupted, and then counts against the runs a suite keeps', async () => {
  const suite = await createSuite('Cut off', []);
  const run = (id: string, startedAt: number, status: 'running' | 'done' = 'done') => ({ id, suiteId: suite.id, suiteName: suite.name, startedAt, status, target: { profileId: 'reference', profileLabel: 'Reference' }, concurrency: 1, total: 0 });
  // Written as a tab does when it starts a run, by a tab that then closed: no tab holds its lock.
  await consoleDb().suiteRuns.put(run('cut_off', 1, 'running'));
  // One going on in this tab (its lock held) is left as it is.
  let release = () => {};
  const holding = new Promise<void>((r) => (release = r));
  const locked = new Promise<void>((acquired) => void navigator.locks.request(`${SUITE_LOCK_PREFIX}going_on`, () => (acquired(), holding)));
  await locked;
  await consoleDb().suiteRuns.put(run('going_on', 2, 'running'));
  try {
    // Starting more runs than a suite keeps lets the cut-off run go (it no longer waits, running, for ever).
    for (let i = 0; i < SUITE_RUNS_KEPT; i++) await startSuiteRun(run(`next_${i}`, 10 + i));
    expect(await consoleDb().suiteRuns.get('cut_off')).toBeUndefined();
    expect(await consoleDb().suiteRuns.get('going_on')).toMatchObject({ status: 'running' });
  } finally {
    release();
  }
});

it('the sweep never turns a suite run that ended meanwhile into an interrupted one', async () => {
  const suite = await createSuite('Ended meanwhile', []);
  await consoleDb().suiteRuns.put({ id: 'ends_now', suiteId: suite.id, suiteName: suite.name, startedAt: 1, status: 'running', target: { profileId: 'reference', profileLabel: 'Reference' }, concurrency: 1, total: 0 });
  // The sweep reads the running rows; the run's tab writes its end (and lets its lock go) before the sweep looks at the locks.
  const sweeping = sweepSuiteRuns();
  await finishSuiteRun('ends_now', { status: 'done', endedAt: 2 });
  await sweeping;
  expect(await consoleDb().suiteRuns.get('ends_now')).toMatchObject({ status: 'done', endedAt: 2 });
});

it('results of a suite run whose suite was deleted (in another tab too) are not written: nothing would ever let them go', async () => {
  const suite = await createSuite('Deleted elsewhere', []);
  await startSuiteRun({ id: 'elsewhere', suiteId: suite.id, suiteName: suite.name, startedAt: 1, status: 'done', target: { profileId: 'reference', profileLabel: 'Reference' }, concurrency: 1, total: 1 });
  await deleteSuite(suite.id);
  const result = { key: 'late', caseId: 'late', name: 'Late', verdict: 'stopped' as const, assertions: [], entry: { id: 'x', startedAt: 1, request: runRequest('platform', 'wait', { id: 'echo-assistant' }, { messages: user('x') }), target: { profileLabel: 'Reference', mode: 'same-origin' as const, baseUrl: '' }, status: 'stopped' as const, durationMs: 1, eventCount: 0, bytes: 0, transcript: '' }, details: {} };
  expect(await writeResults('elsewhere', [{ index: 0, result }])).toBe(false);
  expect(await consoleDb().caseResults.get('elsewhere:late')).toBeUndefined();
  expect(await consoleDb().caseDetails.get('elsewhere:late')).toBeUndefined();
});

it('a suite run started while its suite is deleted (in another tab too) is not left behind: it is deleted with it, or refused', async () => {
  const run = (id: string, suiteId: string) => ({ id, suiteId, suiteName: 'Gone', startedAt: Date.now(), status: 'running' as const, target: { profileId: 'reference', profileLabel: 'Reference' }, concurrency: 1, total: 1 });
  for (let i = 0; i < 5; i++) {
    const suite = await createSuite(`Deleted as it starts ${i}`, []);
    await startSuiteRun({ ...run(`before_${i}`, suite.id), status: 'done' });
    // Another tab starts a run as this one deletes the suite.
    const [, started] = await Promise.all([deleteSuite(suite.id), startSuiteRun(run(`meanwhile_${i}`, suite.id)).then(() => 'started', (err: Error) => err.message)]);
    expect(['started', 'That suite is no longer in this browser.']).toContain(started);
    expect(await consoleDb().suiteRuns.where('suiteId').equals(suite.id).count()).toBe(0);
    expect(await consoleDb().suites.get(suite.id)).toBeUndefined();
  }
  // A run started once its suite is gone is refused, and nothing of it kept.
  const gone = await createSuite('Already gone', []);
  await deleteSuite(gone.id);
  await expect(startSuiteRun(run('after', gone.id))).rejects.toThrow('That suite is no longer in this browser.');
  expect(await consoleDb().suiteRuns.get('after')).toBeUndefined();
});

it('a suite run’s results are read back whole and in case order, in pieces, and only that run’s', async () => {
  const suite = await createSuite('Many results', []);
  const n = RESULTS_READ_AT_ONCE * 2 + 50;
  const resultOf = (key: string) => ({ key, caseId: key, name: key, verdict: 'passed' as const, assertions: [], entry: { id: key, startedAt: 1, request: runRequest('platform', 'wait', { id: 'echo-assistant' }, { messages: user(key) }), target: { profileLabel: 'Reference', mode: 'same-origin' as const, baseUrl: '' }, status: 'done' as const, durationMs: 1, eventCount: 0, bytes: 0, transcript: '' }, details: {} });
  for (const id of ['many', 'other']) {
    await startSuiteRun({ id, suiteId: suite.id, suiteName: suite.name, startedAt: 1, status: 'done', target: { profileId: 'reference', profileLabel: 'Reference' }, concurrency: 1, total: n });
  }
  // Written out of order, in batches, as cases end.
  const order = Array.from({ length: n }, (_, i) => (i * 7) % n);
  for (let i = 0; i < n; i += 64) await writeResults('many', order.slice(i, i + 64).map((index) => ({ index, result: resultOf(`case-${index}`) })));
  await writeResults('other', [{ index: 0, result: resultOf('elsewhere') }]);
  const read = await resultsOf('many');
  expect(read.map((r) => r.index)).toEqual(Array.from({ length: n }, (_, i) => i));
  expect(read.every((r) => r.suiteRunId === 'many')).toBe(true);
  expect((await resultsOf('other')).map((r) => r.key)).toEqual(['elsewhere']);
  expect(await resultsOf('none')).toEqual([]);
  await deleteSuite(suite.id);
});

it('results written while a suite run’s results are read in pieces are neither read twice nor leave a piece out', async () => {
  const suite = await createSuite('Written meanwhile', []);
  const resultOf = (key: string) => ({ key, caseId: key, name: key, verdict: 'passed' as const, assertions: [], entry: { id: key, startedAt: 1, request: runRequest('platform', 'wait', { id: 'echo-assistant' }, { messages: user(key) }), target: { profileLabel: 'Reference', mode: 'same-origin' as const, baseUrl: '' }, status: 'done' as const, durationMs: 1, eventCount: 0, bytes: 0, transcript: '' }, details: {} });
  await startSuiteRun({ id: 'meanwhile', suiteId: suite.id, suiteName: suite.name, startedAt: 1, status: 'running', target: { profileId: 'reference', profileLabel: 'Reference' }, concurrency: 4, total: 1_000 });
  // Cases end out of order: every odd one first, the even ones as the reader goes.
  const odd = Array.from({ length: RESULTS_READ_AT_ONCE * 2 }, (_, i) => 2 * i + 1);
  await writeResults('meanwhile', odd.map((index) => ({ index, result: resultOf(`case-${index}`) })));
  let seen = 0;
  let written: Promise<boolean> | undefined;
  const table = consoleDb().caseResults;
  const reading = (row: { suiteRunId: string }) => {
    // The first piece is read; another tab (or this run) writes ten earlier cases before the next.
    if (row.suiteRunId === 'meanwhile' && ++seen === RESULTS_READ_AT_ONCE && !written) {
      written = Dexie.ignoreTransaction(() => writeResults('meanwhile', Array.from({ length: 10 }, (_, i) => ({ index: 2 * i, result: resultOf(`case-${2 * i}`) }))));
    }
    return row;
  };
  table.hook('reading', reading);
  try {
    const read = await resultsOf('meanwhile');
    expect(await written).toBe(true);
    const keys = read.map((r) => r.key);
    expect(new Set(keys).size).toBe(keys.length);
    // Every result there was before the read began is in it, once.
    for (const index of odd) expect(keys).toContain(`case-${index}`);
    expect(read.map((r) => r.index)).toEqual([...read.map((r) => r.index)].sort((a, b) => a - b));
  } finally {
    table.hook('reading').unsubscribe(reading);
    await deleteSuite(suite.id);
  }
});

it('a suite imported or created under a name another suite has gets a number, so that lists and menus tell them apart', async () => {
  expect(unusedSuiteName('My checks', new Set(['Other']))).toBe('My checks');
  expect(unusedSuiteName('My checks', new Set(['My checks', 'My checks (2)']))).toBe('My checks (3)');
  const first = await createSuite('Twice named', [], { distinct: true });
  const second = await createSuite('Twice named', [], { distinct: true });
  const third = await createSuite('  Twice named ', [], { distinct: true });
  expect([first.name, second.name, third.name]).toEqual(['Twice named', 'Twice named (2)', 'Twice named (3)']);
  expect((await consoleDb().suites.get(second.id))?.name).toBe('Twice named (2)');
  for (const s of [first, second, third]) await deleteSuite(s.id);
});
