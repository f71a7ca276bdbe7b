/**
 * What another tab shows and holds counts in this tab's retention and cut-off sweep: through
 * Web Locks where the page has them, else through each tab's row in the database, which stops
 * counting once the tab is gone without a word (its row no longer written).
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { consoleDb } from '../console-db';
import { clearHistory } from './clear';
import { listRuns, lockPresence, rowPresence, RUN_LOCK_PREFIX, TAB_STALE_MS, HEARTBEAT_MS, wipeHistory, HistoryRepository, CUT_OFF_NOTE, type Presence } from './index';
import { sweepCutOff } from './sweep';
import { entry, turn } from './test-entries';

const ids = async () => (await listRuns()).map((e) => e.id).sort();
const tab = (presence: Presence, now?: () => number) => {
  const repo = new HistoryRepository(consoleDb(), presence, now);
  repo.limits = { items: 2, bytes: Infinity };
  return repo;
};

beforeEach(async () => {
  await wipeHistory();
});
const releases: (() => void)[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const r of releases.splice(0)) r();
});

it('a conversation on screen in another tab is never let go by this tab’s retention (Web Locks), and is once that tab lets it go', async () => {
  const other = tab(lockPresence(navigator.locks));
  const here = tab(lockPresence(navigator.locks));
  await here.writeRun(turn('shown', 'thread_shown', 1_000), {}, { create: true });
  const release = other.presence.show('thread_shown');
  for (let i = 0; i < 4; i++) await here.writeRun(entry(`r${i}`, 2_000 + i), {}, { create: true });
  expect(await ids()).toEqual(['r3', 'shown']);
  release();
  await vi.waitFor(async () => expect((await navigator.locks.query()).held?.some((l) => l.name?.endsWith('thread_shown'))).toBe(false));
  await here.writeRun(entry('r4', 3_000), {}, { create: true });
  expect(await ids()).toEqual(['r3', 'r4']);
});

it('without Web Locks, a conversation on screen in another tab stays; once that tab is gone without a word (its row stale), it goes', async () => {
  const other = tab(rowPresence(consoleDb(), { tabId: 'other' }));
  let clock = Date.now();
  const here = tab(rowPresence(consoleDb(), { tabId: 'here', now: () => clock }), () => clock);
  await here.writeRun(turn('shown', 'thread_shown', 1_000), {}, { create: true });
  releases.push(other.presence.show('thread_shown'));
  // The row is written as the tab starts showing it.
  await new Promise((r) => setTimeout(r, 50));
  for (let i = 0; i < 4; i++) await here.writeRun(entry(`r${i}`, 2_000 + i), {}, { create: true });
  expect(await ids()).toEqual(['r3', 'shown']);
  // The other tab was closed without cleaning up: its row is no longer written.
  clock += TAB_STALE_MS + 60_000;
  await here.writeRun(entry('r4', 3_000), {}, { create: true });
  expect(await ids()).toEqual(['r3', 'r4']);
  expect((await consoleDb().meta.get('tab:other'))).toBeUndefined();
});

it('without Web Locks, a conversation on screen in another tab for an hour is still on screen: that tab writes its row again and again', async () => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  let clock = Date.now();
  const other = tab(rowPresence(consoleDb(), { tabId: 'other', now: () => clock }), () => clock);
  const here = tab(rowPresence(consoleDb(), { tabId: 'here', now: () => clock }), () => clock);
  await here.writeRun(turn('shown', 'thread_shown', 1_000), {}, { create: true });
  releases.push(other.presence.show('thread_shown'));
  for (let t = 0; t < 60 * 60_000; t += HEARTBEAT_MS) {
    clock += HEARTBEAT_MS;
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS);
  }
  await vi.waitFor(async () => expect(((await consoleDb().meta.get('tab:other'))?.value as { beatAt: number }).beatAt).toBe(clock));
  for (let i = 0; i < 3; i++) await here.writeRun(entry(`r${i}`, 2_000 + i), {}, { create: true });
  expect(await ids()).toEqual(['r2', 'shown']);
});

it('Clear history in one tab takes out a conversation another tab shows (Clear is the user’s, not retention’s)', async () => {
  const other = tab(lockPresence(navigator.locks));
  await other.writeRun(turn('shown', 'thread_shown', 1_000), {}, { create: true });
  releases.push(other.presence.show('thread_shown'));
  expect((await clearHistory(tab(lockPresence(navigator.locks)))).cleared).toBe(1);
});

it('without Web Locks, the sweep tells a run no tab holds as interrupted, and leaves one a live tab holds', async () => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  let clock = Date.now();
  const holder = tab(rowPresence(consoleDb(), { tabId: 'holder', now: () => clock }), () => clock);
  const sweeper = tab(rowPresence(consoleDb(), { tabId: 'sweeper', now: () => clock }), () => clock);
  // A run whose page was reloaded mid-request: nothing holds it.
  await sweeper.writeRun(entry('cut', clock - 5_000, { status: 'streaming', transitions: [{ status: 'streaming', at: clock - 4_000 }] }), {}, { create: true });
  // A run another tab has open, held before its entry was written (as the run store does).
  const release = await holder.presence.hold(`${RUN_LOCK_PREFIX}held`);
  await holder.writeRun(entry('held', clock, { status: 'streaming' }), {}, { create: true });
  expect(await sweepCutOff(sweeper)).toBe(1);
  expect((await listRuns()).map((e) => [e.id, e.status]).sort()).toEqual([['cut', 'interrupted'], ['held', 'streaming']]);
  expect((await listRuns()).find((e) => e.id === 'cut')?.note).toBe(CUT_OFF_NOTE);
  // The holding tab writes its row again while the request is open: held past the first row's time.
  clock += TAB_STALE_MS - 1_000;
  await vi.advanceTimersByTimeAsync(HEARTBEAT_MS);
  await vi.waitFor(async () => expect(((await consoleDb().meta.get('tab:holder'))?.value as { beatAt: number }).beatAt).toBe(clock));
  clock += 2_000;
  expect(await sweepCutOff(sweeper)).toBe(0);
  // Then its page is closed without a word: its row goes stale, and the run is cut off.
  clock += TAB_STALE_MS;
  expect(await sweepCutOff(sweeper)).toBe(1);
  expect((await listRuns()).find((e) => e.id === 'held')?.status).toBe('interrupted');
  release();
});
