/**
 * The browser database's version 2 (suites): a database written by version 1 opens with it and
 * keeps its runs; suites, their runs and results are written and read back.
 */
import { Dexie } from 'dexie';
import { expect, it } from 'vitest';
import { ConsoleDb } from '../console-db';
import { runRequest } from '../run-request';

it('a database written by version 1 opens at version 2 and keeps its runs, details and items', async () => {
  const name = `mac-v1-${Date.now()}`;
  // Written exactly as version 1 declared it, by a Dexie that knows no later version.
  const v1 = new Dexie(name);
  v1.version(1).stores({
    runs: 'id, startedAt, item, request.agentId, request.thread.id, runId, status',
    details: 'id',
    events: '[id+slice]',
    items: 'id, lastAt',
    cleared: 'id, at',
    meta: 'key',
  });
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
