/**
 * The browser database as the console's one home for what it keeps: moved over from the
 * stores of earlier versions, retention that never loses what the user is looking at or just
 * imported, and every durable run that history shows as going on followed to its end.
 */
import { render, waitFor } from '@testing-library/react';
import { Dexie } from 'dexie';
import { createStore, set } from 'idb-keyval';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Message } from '../contract/agents';
import { DEMO, DEMO_EVERYTHING, mintAgentsToken, referenceConnection } from '../test-support/reference-service';
import { slowNetwork } from '../test-support/slow-network';
import { ConsoleDb, OLD_DETAILS_DB, OLD_SUMMARIES_DB } from '../db/console-db';
import type { HistoryEntry } from '../engine/history-entry';
import { evictionNotice, importRuns, keepOnScreen, listRuns, saveRun, setRetentionLimits, wipeHistory } from '../db/history';
import { runRequest } from '../engine/run-request';
import { type RunStore } from '../engine/run-store';
import type { RunConnection } from '../engine/run-record';
import { consoleRunStore } from './console-run-store';
import { RunStoreProvider } from './run-store';
import { replyRequest } from '../engine/thread';
import { useFollowActive } from './use-history';

const CONNECTION: RunConnection = referenceConnection(DEMO.agents, 'fp-db');
const ai = (text: string): Message => ({ role: 'GLEAN_AI', content: [{ type: 'text', text }] });
const user = (text: string): Message => ({ role: 'USER', content: [{ type: 'text', text }] });

let stores: RunStore[] = [];
beforeEach(async () => {
  await wipeHistory();
});
afterEach(async () => {
  setRetentionLimits();
  for (const s of stores) await s.settle();
  stores = [];
});

function entry(id: string, startedAt: number, patch: Partial<HistoryEntry> = {}): HistoryEntry {
  return {
    id,
    startedAt,
    request: runRequest('platform', 'stream', { id: 'echo-assistant', name: 'Echo Assistant' }, { messages: [user(id)] }),
    target: { profileId: 'reference', profileLabel: 'Reference service', mode: 'same-origin', baseUrl: '' },
    status: 'done',
    durationMs: 10,
    eventCount: 2,
    bytes: 20,
    transcript: 'Hi there',
    ...patch,
  };
}

it('moves what the previous version kept (two idb-keyval stores) into the database once, joining a streamed answer’s fragments', async () => {
  // Written the way the previous version's history.ts wrote them.
  const summaries = createStore(OLD_SUMMARIES_DB, 'summaries');
  const details = createStore(OLD_DETAILS_DB, 'details');
  const thread = { id: 'thread_old' };
  const turn = {
    ...entry('run_old_turn', 1_000),
    request: { ...replyRequest({ id: thread.id, agentId: 'echo-assistant' }, undefined, 'hello', { flavour: 'platform', mode: 'stream' }) },
    answerMessages: [ai('Hi '), ai('there')],
  };
  // An entry of an even older version: the agent beside the request, no target.
  const { target: _target, ...oldest } = entry('run_oldest', 500);
  const legacy = { ...oldest, agentId: 'echo-assistant', agentName: 'Echo Assistant', baseUrl: '', request: { ...oldest.request, agentId: undefined } };
  const wait = { ...entry('run_wait', 2_000), request: runRequest('platform', 'wait', { id: 'echo-assistant' }, { messages: [user('w')] }) };
  await set('run_old_turn', turn, summaries);
  await set('run_old_turn', { eventRecords: 1 }, details);
  await set('run_old_turn#0', [{ seq: 1, id: '1', event: 'message', at: 3, gap: 3, bytes: 9, data: '{"messages":[]}' }], details);
  await set('run_oldest', legacy, summaries);
  await set('run_wait', wait, summaries);
  await set('run_wait', { result: { messages: [ai('w!')] }, eventRecords: 0 }, details);
  // The previous version's page is gone (closed): its connections are too.
  for (const old of [summaries, details]) await old('readonly', (store) => store.transaction.db.close());

  const db = new ConsoleDb(`mac-test-${Date.now()}`);
  try {
    await db.open();
    const rows = await db.runs.orderBy('startedAt').toArray();
    expect(rows.map((r) => [r.id, r.request.agentId, r.item])).toEqual([
      ['run_oldest', 'echo-assistant', 'run_oldest'],
      ['run_old_turn', 'echo-assistant', 'thread_old'],
      ['run_wait', 'echo-assistant', 'run_wait'],
    ]);
    expect(rows[1]!.answerMessages).toEqual([ai('Hi there')]);
    expect(rows[0]!.target).toEqual({ profileLabel: '', mode: 'same-origin', baseUrl: '' });
    expect((await db.events.toArray()).map((s) => [s.id, s.slice, s.events.length])).toEqual([['run_old_turn', 0, 1]]);
    expect(await db.details.get('run_wait')).toEqual({ id: 'run_wait', result: { messages: [ai('w!')] }, eventRecords: 0 });
    expect((await db.items.toArray()).map((i) => [i.id, i.kind, i.title]).sort()).toEqual([
      ['run_oldest', 'run', 'Echo Assistant (stream)'],
      ['run_wait', 'run', 'echo-assistant (wait)'],
      ['thread_old', 'thread', 'hello'],
    ]);
    // The old stores are gone, so nothing is moved twice.
    await waitFor(async () => expect(await Dexie.exists(OLD_SUMMARIES_DB)).toBe(false));
    expect(await Dexie.exists(OLD_DETAILS_DB)).toBe(false);
  } finally {
    db.close();
    await Dexie.delete(db.name);
  }
});

it('moves each old answer to its own run when a tab of the previous version writes while the stores are read (keys and values read at once)', async () => {
  const summaries = createStore(OLD_SUMMARIES_DB, 'summaries');
  const details = createStore(OLD_DETAILS_DB, 'details');
  for (const id of ['run_b', 'run_c']) {
    await set(id, entry(id, 2_000), summaries);
    await set(id, { result: { answer: `of ${id}` }, eventRecords: 0 }, details);
  }
  for (const old of [summaries, details]) await old('readonly', (store) => store.transaction.db.close());
  // A tab of the previous version, still open, writes a new answer as soon as this version starts reading.
  const writer = await new Promise<IDBDatabase>((ok, ko) => {
    const r = indexedDB.open(OLD_DETAILS_DB);
    r.onsuccess = () => ok(r.result);
    r.onerror = () => ko(r.error);
  });
  const real = IDBDatabase.prototype.transaction;
  let written = false;
  IDBDatabase.prototype.transaction = function (this: IDBDatabase, ...args: Parameters<IDBDatabase['transaction']>) {
    const t = real.apply(this, args);
    // The first read of the store once it is open (not the reads of opening it).
    if (!written && this !== writer && this.name === OLD_DETAILS_DB && args[1] !== 'readwrite' && !/IDBOpenDBRequest/.test(new Error().stack ?? '')) {
      written = true;
      real.call(writer, 'details', 'readwrite').objectStore('details').put({ result: { answer: 'of run_a' }, eventRecords: 0 }, 'run_a');
    }
    return t;
  } as IDBDatabase['transaction'];
  const db = new ConsoleDb(`mac-test-${Date.now()}`);
  try {
    await db.open();
    expect(written).toBe(true);
    expect((await db.details.toArray()).map((d) => [d.id, d.result])).toEqual([
      ['run_b', { answer: 'of run_b' }],
      ['run_c', { answer: 'of run_c' }],
    ]);
  } finally {
    IDBDatabase.prototype.transaction = real;
    writer.close();
    db.close();
    await Dexie.delete(db.name);
  }
});

it('an older conversation imported into a full history is kept: the import is the newest item, and what it pushed out is said', async () => {
  setRetentionLimits({ items: 5 });
  for (let i = 0; i < 5; i++) await saveRun(entry(`newer_${i}`, Date.now() - 1_000 + i));
  const thread = 'imported_thread';
  const old = [0, 1].map((i) => ({
    ...entry(`imported_${i}`, Date.parse('2020-01-01T00:00:00Z') + i),
    request: { ...replyRequest({ id: thread, agentId: 'echo-assistant' }, undefined, `q${i}`, { flavour: 'platform', mode: 'stream' }) },
    imported: { at: Date.now(), fileName: 'old.json' },
  }));
  await importRuns(old);
  const ids = (await listRuns()).map((e) => e.id);
  expect(ids).toEqual(expect.arrayContaining(['imported_0', 'imported_1']));
  expect(ids).not.toContain('newer_0');
  const notice = await evictionNotice();
  expect(notice?.items).toEqual([{ id: 'newer_0', kind: 'run', title: 'Echo Assistant (stream)', bytes: expect.any(Number), reason: 'count' }]);
});

it('retention never lets go of a conversation on screen, however old: the next oldest item goes', async () => {
  setRetentionLimits({ items: 3 });
  const thread = 'thread_on_screen';
  await saveRun({ ...entry('shown', 1_000), request: { ...replyRequest({ id: thread, agentId: 'echo-assistant' }, undefined, 'q', { flavour: 'platform', mode: 'stream' }) } });
  const release = keepOnScreen(thread);
  try {
    for (let i = 0; i < 4; i++) await saveRun(entry(`later_${i}`, 2_000 + i));
    const ids = (await listRuns()).map((e) => e.id);
    expect(ids).toContain('shown');
    expect(ids).toHaveLength(3);
  } finally {
    release();
  }
});

function Follower({ connection }: { connection: RunConnection }) {
  useFollowActive(connection);
  return null;
}

async function durableRun(agentId: string, token: string = DEMO.agents): Promise<{ run_id: string; created_at: string }> {
  const res = await fetch(`/api/agents/${agentId}/runs`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ execution_mode: 'DURABLE', messages: [user('File it')] }),
  });
  return ((await res.json()) as { run: { run_id: string; created_at: string } }).run;
}

async function approveAll(agentId: string, runId: string, token: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`/api/agents/${agentId}/runs/${runId}`, { headers: { Authorization: `Bearer ${token}`, 'X-Test': 'approve' } });
    const { run } = (await res.json()) as { run: { state: string; pending_interactions: { interaction_id: string }[] } };
    if (run.state === 'REQUIRES_INPUT') {
      await fetch(`/api/agents/${agentId}/responses`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ run_id: runId, responses: run.pending_interactions.map((p) => ({ interaction_id: p.interaction_id, decision: 'APPROVE' })) }),
      });
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${runId} never paused`);
}

it('follows every durable run history shows as going on to its end, twelve of them, a few reads at a time', async () => {
  const reads = { now: 0, most: 0 };
  const realFetch = window.fetch;
  // Each read of the runs is held a moment, so reads at once can be counted.
  window.fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    // The store's reads (this test's own, which approve the runs, say so).
    const counted = (init?.method ?? 'GET') === 'GET' && /\/api\/agents\/expense-filer\/runs\/run/.test(url) && !new Headers(init?.headers).has('x-test');
    if (counted) reads.most = Math.max(reads.most, ++reads.now);
    try {
      if (counted) await new Promise((r) => setTimeout(r, 30));
      return await realFetch(input, init);
    } finally {
      if (counted) reads.now--;
    }
  };
  try {
    // A token of its own: twelve runs waiting for approval count against its durable runs, no other test's.
    const token = await mintAgentsToken();
    const runs = [];
    for (let i = 0; i < 12; i++) {
      const run = await durableRun('expense-filer', token);
      runs.push(run);
      await saveRun(entry(`durable_${i}`, Date.now() + i, { request: runRequest('platform', 'durable', { id: 'expense-filer' }, { messages: [user('File it')] }), runId: run.run_id, status: 'QUEUED' }));
    }
    const store = consoleRunStore({ maxReads: 4 });
    stores.push(store);
    render(
      <RunStoreProvider store={store}>
        <Follower connection={{ ...CONNECTION, token }} />
      </RunStoreProvider>,
    );
    await Promise.all(runs.map((r) => approveAll('expense-filer', r.run_id, token)));
    await waitFor(async () => expect((await listRuns()).map((e) => e.status)).toEqual(Array(12).fill('SUCCEEDED')), { timeout: 20_000, interval: 200 });
    expect(reads.most).toBeLessThanOrEqual(4);
  } finally {
    window.fetch = realFetch;
  }
});

it('a durable run opened by its id alone starts when the service created it, not when it was opened', async () => {
  const run = await durableRun('long-runner');
  await new Promise((r) => setTimeout(r, 300));
  const store = consoleRunStore();
  stores.push(store);
  const opened = store.open(CONNECTION, 'long-runner', run.run_id);
  await waitFor(() => expect(store.get(opened.id)!.state.status).not.toBe('idle'));
  expect(store.get(opened.id)!.startedAt).toBe(Date.parse(run.created_at));
  await fetch('/api/agents/long-runner/runs/cancellations', {
    method: 'POST',
    headers: { Authorization: `Bearer ${DEMO.agents}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ run_id: run.run_id }),
  }).catch(() => undefined);
});

it('an imported durable turn is never read with this profile’s token, even when it says the run goes on', async () => {
  // A run of another token, recorded in a file someone exported.
  const run = await durableRun('expense-filer', DEMO_EVERYTHING);
  const network = slowNetwork();
  try {
    await importRuns([
      {
        ...entry('imported_durable', Date.now(), { runId: run.run_id, status: 'REQUIRES_INPUT', request: runRequest('platform', 'durable', { id: 'expense-filer' }, { messages: [user('x')] }) }),
        target: { profileLabel: 'imported file', mode: 'same-origin', baseUrl: '' },
        imported: { at: Date.now(), fileName: 'f.json' },
      },
    ]);
    const store = consoleRunStore();
    stores.push(store);
    render(
      <RunStoreProvider store={store}>
        <Follower connection={{ ...CONNECTION, profileId: 'reference' }} />
      </RunStoreProvider>,
    );
    await new Promise((r) => setTimeout(r, 800));
    expect(network.sent.filter((s) => s.url.includes(run.run_id))).toEqual([]);
    expect((await listRuns())[0]).toMatchObject({ id: 'imported_durable', status: 'REQUIRES_INPUT' });
  } finally {
    network.restore();
  }
});
