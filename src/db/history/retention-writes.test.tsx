/**
 * Retention as writes meet it, in the browser's database: one large run never empties history,
 * pins are outside the limits, what Undo put back stays, and items always agree with their runs.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { consoleDb } from '../console-db';
import { itemsOf } from '../items';
import { clearHistory, evictionCounts, evictionNotice, importRuns, listRuns, PIN_LIMIT, saveRun, setPinned, setRetentionLimits, undoClear, wipeHistory, writeRun } from './index';
import { entry, events, turn } from './test-entries';

const ids = async () => (await listRuns()).map((e) => e.id).sort();

beforeEach(async () => {
  await wipeHistory();
});
afterEach(() => setRetentionLimits());

it('one run larger than the size limit on its own goes alone, and the notice says why: the older runs stay', async () => {
  setRetentionLimits({ bytes: 100_000 });
  for (let i = 0; i < 4; i++) await saveRun(entry(`small_${i}`, 1_000 + i), { events: events(5, 100) });
  // A 280 kB stream, as a firehose's end writes it.
  const big = entry('big', 2_000, { status: 'streaming' });
  await saveRun(big);
  expect(await writeRun({ ...big, status: 'done' }, { events: events(280, 1_000) })).toBe('dropped');
  expect(await ids()).toEqual(['small_0', 'small_1', 'small_2', 'small_3']);
  expect((await evictionNotice())?.items).toEqual([{ id: 'big', kind: 'run', title: 'Echo Assistant (stream)', bytes: expect.any(Number), reason: 'too-large' }]);
  // Nothing of it was written: no details, no events.
  expect(await consoleDb().details.get('big')).toBeUndefined();
  expect(await consoleDb().events.where('[id+slice]').between(['big', 0], ['big', Infinity]).count()).toBe(0);
});

it('pinned items do not count against the limits: with as many pins as the limit, a new run stays', async () => {
  setRetentionLimits({ items: 3 });
  for (let i = 0; i < 3; i++) {
    await saveRun(entry(`p${i}`, 1_000 + i));
    expect(await setPinned(`p${i}`, true)).toBe(true);
  }
  await saveRun(entry('new', 2_000));
  await saveRun(entry('newer', 2_001));
  expect(await ids()).toEqual(['new', 'newer', 'p0', 'p1', 'p2']);
});

it('pins are capped: past PIN_LIMIT, pinning changes nothing and says so', async () => {
  setRetentionLimits({ items: PIN_LIMIT + 1 });
  for (let i = 0; i < PIN_LIMIT + 1; i++) await saveRun(entry(`r${i}`, 1_000 + i));
  for (let i = 0; i < PIN_LIMIT; i++) expect(await setPinned(`r${i}`, true)).toBe(true);
  expect(await setPinned(`r${PIN_LIMIT}`, true)).toBe(false);
  expect((await consoleDb().items.get(`r${PIN_LIMIT}`))?.pinned).toBeFalsy();
});

it('what Undo put back stays, though history is over its limit: the newer runs go instead, and are said', async () => {
  setRetentionLimits({ items: 3 });
  for (const [i, id] of ['a', 'b', 'c'].entries()) await saveRun(entry(id, 1_000 + i));
  const cleared = await clearHistory();
  await saveRun(entry('d', 5_000));
  await saveRun(entry('e', 5_001));
  expect(await undoClear(cleared.id!)).toBe(3);
  expect(await ids()).toEqual(['a', 'b', 'c']);
  expect((await evictionNotice())?.items.map((i) => i.id).sort()).toEqual(['d', 'e']);
});

it('Undo past its day puts nothing back, and lets the cleared runs go for good', async () => {
  await saveRun(entry('a', 1_000), { events: events(3, 10) });
  const cleared = await clearHistory(10_000);
  expect(await undoClear(cleared.id!, 10_000 + 24 * 60 * 60_000 + 1)).toBe(0);
  expect(await ids()).toEqual([]);
  expect(await consoleDb().cleared.count()).toBe(0);
  expect(await consoleDb().details.get('a')).toBeUndefined();
});

it('a Clear that takes nothing out leaves the last Clear’s Undo (and its runs’ answers) as they were', async () => {
  await saveRun(entry('a', 1_000), { events: events(3, 10) });
  const first = await clearHistory();
  await saveRun(entry('going', 2_000, { status: 'streaming' }));
  expect(await clearHistory()).toEqual({ cleared: 0, kept: 1 });
  expect(await undoClear(first.id!)).toBe(1);
  expect(await ids()).toEqual(['a', 'going']);
  expect(await consoleDb().details.get('a')).toMatchObject({ eventRecords: 1 });
});

it('items agree with their runs after every kind of write: runs, a conversation’s turns, an import, a Clear and its Undo, retention', async () => {
  setRetentionLimits({ items: 4 });
  const agree = async () => {
    const db = consoleDb();
    const runs = await db.runs.toArray();
    const items = await db.items.toArray();
    const strip = ({ pinned: _p, ...i }: (typeof items)[number]) => i;
    expect(items.map(strip).sort((a, b) => a.id.localeCompare(b.id))).toEqual(itemsOf(runs).sort((a, b) => a.id.localeCompare(b.id)));
  };
  await saveRun(entry('r1', 1_000), { events: events(4, 50) });
  await saveRun(turn('t1', 'thread_a', 1_100, 'first question'));
  await saveRun(turn('t2', 'thread_a', 1_200, 'second question', { status: 'streaming' }));
  await writeRun(turn('t2', 'thread_a', 1_200, 'second question'), { events: events(10, 500) });
  await agree();
  expect((await consoleDb().items.get('thread_a'))?.title).toBe('first question');
  await importRuns([turn('i1', 'thread_imported', 500, 'imported'), turn('i2', 'thread_imported', 600, 'imported 2')], 3_000);
  await agree();
  for (let i = 0; i < 3; i++) await saveRun(entry(`later_${i}`, 4_000 + i));
  await agree();
  const cleared = await clearHistory();
  await agree();
  await undoClear(cleared.id!);
  await agree();
});

it('a run started in a full history pushes nothing out while its request is open; it counts once it ends (and goes alone when too large)', async () => {
  setRetentionLimits({ items: 3, bytes: 100_000 });
  for (let i = 0; i < 3; i++) await saveRun(entry(`old_${i}`, 1_000 + i));
  const big = entry('big', 2_000, { status: 'streaming' });
  await saveRun(big);
  expect(await ids()).toEqual(['big', 'old_0', 'old_1', 'old_2']);
  await writeRun({ ...big, status: 'done' }, { events: events(280, 1_000) });
  expect(await ids()).toEqual(['old_0', 'old_1', 'old_2']);
  expect((await evictionNotice())?.items.map((i) => `${i.id}:${i.reason}`)).toEqual(['big:too-large']);
  const small = entry('small', 3_000, { status: 'streaming' });
  await saveRun(small);
  expect(await ids()).toHaveLength(4);
  await writeRun({ ...small, status: 'done' }, { events: events(2, 10) });
  expect(await ids()).toEqual(['old_1', 'old_2', 'small']);
});

it('the eviction notice stays bounded however many items retention lets go before it is dismissed (each write rewrites it)', async () => {
  setRetentionLimits({ items: 1 });
  const question = 'q'.repeat(120);
  for (let i = 0; i < 400; i++) await saveRun(turn(`t${i}`, `thread_${i}`, 1_000 + i, `${i} ${question}`));
  const stored = await consoleDb().meta.get('last-eviction');
  // 399 conversations went; the notice shows five of them and a count, so it need not keep them all.
  expect(JSON.stringify(stored).length).toBeLessThan(50_000);
  const notice = await evictionNotice();
  expect(notice && evictionCounts(notice)).toEqual({ count: 399, size: 0, 'too-large': 0 });
  expect(notice?.items[0]?.id).toBe('thread_398');
});
