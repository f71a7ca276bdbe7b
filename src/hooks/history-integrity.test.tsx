/**
 * What history says stays true when more than one writer is at work: the cut-off sweep and a
 * run's own writes, two tabs following one durable run, retention in one tab while another
 * shows a conversation, Clear history while a conversation is on screen. And nothing history
 * can no longer follow (an imported record, an entry of an older version) counts as going on.
 */
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { Message } from '../contract/agents';
import { DEMO, mintAgentsToken, referenceConnection } from '../test-support/reference-service';
import { slowNetwork } from '../test-support/slow-network';
import type { HistoryEntry } from '../engine/history-entry';
import {
  clearHistory,
  CUT_OFF_NOTE,
  evictionNotice,
  importRuns,
  listRuns,
  saveRun,
  setRetentionLimits,
  sweepCutOff,
  wipeHistory,
} from '../db/history';
import { historyEntryOf } from '../engine/run-record';
import { runRequest } from '../engine/run-request';
import type { RunStore } from '../engine/run-store';
import type { RunConnection } from '../engine/run-record';
import { RUN_LOCK_PREFIX } from '../engine/run-writes';
import { consoleRunStore } from './console-run-store';
import { RunStoreProvider } from './run-store';
import { replyRequest } from '../engine/thread';
import { useFollowActive, useThreadEntries } from './use-history';

const CONNECTION: RunConnection = referenceConnection(DEMO.agents, 'fp-integrity');
const user = (text: string): Message => ({ role: 'USER', content: [{ type: 'text', text }] });

let stores: RunStore[] = [];
beforeEach(async () => {
  await wipeHistory();
});
afterEach(async () => {
  vi.useRealTimers();
  setRetentionLimits();
  cleanup();
  for (const s of stores) await s.settle();
  stores = [];
});

function entry(id: string, startedAt: number, patch: Partial<HistoryEntry> = {}): HistoryEntry {
  return {
    id,
    startedAt,
    request: runRequest('platform', 'wait', { id: 'echo-assistant', name: 'Echo Assistant' }, { messages: [user(id)] }),
    target: { profileId: 'reference', profileLabel: 'Reference service', mode: 'same-origin', baseUrl: '' },
    status: 'done',
    durationMs: 10,
    eventCount: 0,
    bytes: 20,
    transcript: 'Hi there',
    ...patch,
  };
}

const ids = async () => (await listRuns()).map((e) => e.id).sort();

it('Clear history takes out an imported turn exported while waiting for approval, and an older version’s entry whose status is not known: neither can ever change here', async () => {
  const hourAgo = Date.now() - 60 * 60_000;
  // A conversation file written while its durable turn waited for approval: a record, never read from here.
  await importRuns(
    [
      entry('imported_turn', hourAgo, {
        request: { ...runRequest('platform', 'durable', { id: 'expense-filer' }, { messages: [user('File it')] }), thread: { id: 'imported_thread' } },
        runId: 'run_of_someone_else',
        status: 'REQUIRES_INPUT',
        target: { profileLabel: 'imported file', mode: 'same-origin', baseUrl: '' },
        imported: { at: hourAgo, fileName: 'paused.json' },
      }),
    ],
    hourAgo,
  );
  // An entry an older version wrote, moved here on first open ("success" was its word for done).
  await saveRun(entry('legacy_success', hourAgo - 1_000, { status: 'success' }));
  const result = await clearHistory();
  expect(result).toMatchObject({ cleared: 2, kept: 0 });
  expect(await ids()).toEqual([]);
});

it('retention lets go of an older version’s entry of unknown status when it is the oldest, not of a newer run in its place', async () => {
  setRetentionLimits({ items: 2 });
  await saveRun(entry('legacy_success', 1_000, { status: 'success' }));
  await saveRun(entry('newer_1', 2_000));
  await saveRun(entry('newer_2', 3_000));
  expect(await ids()).toEqual(['newer_1', 'newer_2']);
  expect((await evictionNotice())?.items.map((i) => i.id)).toEqual(['legacy_success']);
});

it('every item retention lets go is said until dismissed, not only the last one let go', async () => {
  setRetentionLimits({ items: 2 });
  await saveRun(entry('a', 1_000));
  await saveRun(entry('b', 2_000));
  await saveRun(entry('c', 3_000));
  expect((await evictionNotice())?.items.map((i) => i.id)).toEqual(['a']);
  await saveRun(entry('d', 4_000));
  expect(await ids()).toEqual(['c', 'd']);
  // Nobody dismissed the first notice: both runs that left are said.
  expect((await evictionNotice())?.items.map((i) => i.id).sort()).toEqual(['a', 'b']);
});

it('the cut-off sweep tells a run in flight that no tab holds (its page was closed) as interrupted, once', async () => {
  // One clock reading: three would be a millisecond apart on a busy machine, and the duration with them.
  const now = Date.now();
  await saveRun(entry('closed_page', now - 5_000, { status: 'streaming', transitions: [{ status: 'sending', at: now - 5_000 }, { status: 'streaming', at: now - 4_000 }] }));
  expect(await sweepCutOff()).toBe(1);
  expect((await listRuns())[0]).toMatchObject({ id: 'closed_page', status: 'interrupted', note: CUT_OFF_NOTE, durationMs: 1_000 });
  expect(await sweepCutOff()).toBe(0);
});

it('the cut-off sweep never takes a durable run for cut off when its id arrives between the sweep’s read and its look at the locks', async () => {
  const store = consoleRunStore();
  stores.push(store);
  // The service's 201 is held back, so history has the run as waiting for it.
  let letGo!: () => void;
  const answerHeld = new Promise<void>((r) => (letGo = r));
  const network = slowNetwork({ match: (url, method) => method === 'POST' && url.endsWith('/api/agents/long-runner/runs'), answer: () => answerHeld });
  const request = runRequest('platform', 'durable', { id: 'long-runner' }, { messages: [user('Go')] });
  const { id } = store.start(CONNECTION, request)!;
  const locks = navigator.locks;
  const query = locks.query.bind(locks);
  try {
    await waitFor(async () => expect((await listRuns())[0]).toMatchObject({ id, status: 'waiting' }));
    // The sweep has read the rows; before it looks at the locks, the 201 arrives, the store
    // writes the run's id and state, and lets the run's lock go (its request is over). (The
    // sweep's look is the first; the store's writes look at the locks too, as they are.)
    let first = true;
    Object.defineProperty(locks, 'query', {
      configurable: true,
      value: async () => {
        if (!first) return query();
        first = false;
        letGo();
        await store.kept(id);
        await waitFor(async () => expect((await query()).held?.some((l) => l.name === `${RUN_LOCK_PREFIX}${id}`)).toBe(false));
        return query();
      },
    });
    await sweepCutOff();
  } finally {
    delete (locks as { query?: unknown }).query;
    network.restore();
  }
  const runId = store.get(id)!.runId!;
  expect(runId).toBeDefined();
  const [kept] = await listRuns();
  expect(kept).toMatchObject({ id, runId });
  expect(kept!.status).not.toBe('interrupted');
  await store.cancel(id).catch(() => undefined);
});

async function pausedRun(store: RunStore, id: string): Promise<void> {
  for (let i = 0; i < 100 && store.get(id)!.state.status !== 'REQUIRES_INPUT'; i++) {
    await store.read(id);
    if (store.get(id)!.state.status !== 'REQUIRES_INPUT') await new Promise((r) => setTimeout(r, 100));
  }
  expect(store.get(id)!.state.status).toBe('REQUIRES_INPUT');
}

it('two tabs following one durable run: what one tab decided stays in history when the other writes what it read', async () => {
  const token = await mintAgentsToken();
  const connection = { ...CONNECTION, token };
  const res = await fetch('/api/agents/expense-filer/runs', {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ execution_mode: 'DURABLE', messages: [user('File it')] }),
  });
  const { run } = (await res.json()) as { run: { run_id: string } };
  await saveRun(entry('durable_entry', Date.now(), { request: runRequest('platform', 'durable', { id: 'expense-filer' }, { messages: [user('File it')] }), runId: run.run_id, status: 'QUEUED', transitions: [{ status: 'QUEUED', at: Date.now() }] }));
  const [stored] = await listRuns();
  // Each tab follows the run history shows as going on, from the entry it read.
  const tabA = consoleRunStore();
  const tabB = consoleRunStore();
  stores.push(tabA, tabB);
  const a = tabA.open(connection, 'expense-filer', run.run_id, stored);
  const b = tabB.open(connection, 'expense-filer', run.run_id, stored);
  await pausedRun(tabA, a.id);
  await pausedRun(tabB, b.id);
  await tabB.settle();
  // Tab A approves; its decision is written through.
  const pending = tabA.get(a.id)!.state.durable!.run.pending_interactions;
  await tabA.respond(a.id, Object.fromEntries(pending.map((p) => [p.interaction_id, 'APPROVE' as const])));
  await tabA.settle();
  const decided = (await listRuns())[0]!;
  expect((decided.transitions ?? []).flatMap((t) => t.decisions ?? []).map((d) => d.decision)).toEqual(['APPROVE']);
  // Tab B reads the run next, finds it going on, and writes what it knows.
  await tabB.read(b.id);
  await tabB.settle();
  const after = (await listRuns())[0]!;
  expect((after.transitions ?? []).flatMap((t) => t.decisions ?? []).map((d) => d.decision)).toEqual(['APPROVE']);
  await tabA.cancel(a.id).catch(() => undefined);
});

function Turns({ threadId }: { threadId: string }) {
  const { entries, isSuccess } = useThreadEntries(threadId);
  return <p data-testid="turns">{isSuccess ? entries.map((e) => e.id).join(' ') || 'none' : 'reading'}</p>;
}

it('after Clear history, a conversation on screen shows what history has (nothing), not the turns the store still holds', async () => {
  const store = consoleRunStore();
  stores.push(store);
  const thread = { id: 'thread_cleared', agentId: 'echo-assistant' };
  let parent: HistoryEntry | undefined;
  const sent: string[] = [];
  for (const q of ['one', 'two', 'three']) {
    const { id } = store.start(CONNECTION, replyRequest(thread, parent, q, { flavour: 'platform', mode: 'stream' }))!;
    await waitFor(() => expect(store.get(id)!.state.status).toBe('done'));
    await store.settle();
    parent = historyEntryOf(store.get(id)!);
    sent.push(id);
  }
  render(
    <RunStoreProvider store={store}>
      <Turns threadId={thread.id} />
    </RunStoreProvider>,
  );
  await waitFor(() => expect(screen.getByTestId('turns').textContent).toBe(sent.join(' ')));
  await act(async () => {
    await clearHistory();
  });
  await waitFor(() => expect(screen.getByTestId('turns').textContent).toBe('none'));
});

function Follower({ connection }: { connection: RunConnection }) {
  useFollowActive(connection);
  return null;
}

it('a durable run history shows as going on is followed to its end when its first read fails for a moment (the service answered 503)', async () => {
  const realFetch = window.fetch;
  const token = await mintAgentsToken();
  const res = await realFetch('/api/agents/expense-filer/runs', {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ execution_mode: 'DURABLE', messages: [user('File it')] }),
  });
  const { run } = (await res.json()) as { run: { run_id: string } };
  await saveRun(entry('followed', Date.now(), { request: runRequest('platform', 'durable', { id: 'expense-filer' }, { messages: [user('File it')] }), runId: run.run_id, status: 'QUEUED' }));
  // The page's first read of the run meets a service that is restarting.
  let failed = 0;
  const network = slowNetwork({
    match: (url, method) => method === 'GET' && url.includes(run.run_id) && failed === 0,
    answer: () => {
      failed++;
      return new Response(JSON.stringify({ error: { code: 'unavailable', message: 'Restarting' } }), { status: 503, headers: { 'Content-Type': 'application/json' } });
    },
  });
  const store = consoleRunStore();
  stores.push(store);
  try {
    render(
      <RunStoreProvider store={store}>
        <Follower connection={{ ...CONNECTION, token }} />
      </RunStoreProvider>,
    );
    await waitFor(() => expect(failed).toBe(1));
    // The run goes on at the service: it pauses for approval, and is approved there.
    for (let i = 0; i < 100; i++) {
      const read = await realFetch(`/api/agents/expense-filer/runs/${run.run_id}`, { headers: { Authorization: `Bearer ${token}` } });
      const { run: now } = (await read.json()) as { run: { state: string; pending_interactions: { interaction_id: string }[] } };
      if (now.state === 'REQUIRES_INPUT') {
        await realFetch('/api/agents/expense-filer/responses', {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ run_id: run.run_id, responses: now.pending_interactions.map((p) => ({ interaction_id: p.interaction_id, decision: 'APPROVE' })) }),
        });
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await waitFor(
      async () => {
        const read = await realFetch(`/api/agents/expense-filer/runs/${run.run_id}`, { headers: { Authorization: `Bearer ${token}` } });
        expect(((await read.json()) as { run: { state: string } }).run.state).toBe('SUCCEEDED');
      },
      { timeout: 20_000, interval: 200 },
    );
    // Followed, the run's end reaches history within a few reads (one every 5 s at most).
    await waitFor(async () => expect((await listRuns())[0]).toMatchObject({ id: 'followed', status: 'SUCCEEDED' }), { timeout: 20_000, interval: 200 });
  } finally {
    network.restore();
  }
}, 40_000);
