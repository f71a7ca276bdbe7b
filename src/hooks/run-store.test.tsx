import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DEMO, DEMO_EVERYTHING, serviceRuns, referenceConnection } from '../test-support/reference-service';
import { historyEntryOf } from '../engine/run-record';
import { listRuns, wipeHistory } from '../db/history';
import { runRequest } from '../engine/run-request';
import { slowNetwork } from '../test-support/slow-network';
import { SANDBOX_CLIENT_RUN_ID_HEADER } from '../contract/sandbox-client-run';
import type { RunStore } from '../engine/run-store';
import type { RunConnection } from '../engine/run-record';
import { WAIT_STOPPED_BY_YOU } from '../engine/run-senders';
import { consoleRunStore } from './console-run-store';
import { RunStoreProvider, useLiveRun, useRuns } from './run-store';

const CONNECTION: RunConnection = referenceConnection(DEMO.agents, 'test-fingerprint');

const story = runRequest('platform', 'stream', { id: 'slow-storyteller', name: 'Slow Storyteller' }, { messages: [{ role: 'USER', content: [{ type: 'text', text: 'Go' }] }] });

/** What a page shows of the store: the newest run, its status and how many events it has. */
function RunView() {
  const { runs } = useRuns();
  const live = useLiveRun();
  const run = runs[0];
  return (
    <p>
      {run ? `${run.id} ${run.request.agentName} ${run.state.status} ${run.log?.events.length ?? 0}` : 'no run'}
      {live ? ' live' : ''}
    </p>
  );
}

function Page({ store }: { store: RunStore }) {
  const [shown, setShown] = useState(true);
  return (
    <QueryClientProvider client={queryClient}>
      <RunStoreProvider store={store}>
        <button onClick={() => setShown((s) => !s)}>toggle</button>
        {shown && <RunView />}
      </RunStoreProvider>
    </QueryClientProvider>
  );
}

let queryClient = new QueryClient();
beforeEach(async () => {
  queryClient = new QueryClient();
  await wipeHistory();
});
afterEach(() => cleanup());

it('a run outlives the page that started it: unmounted and shown again, it is the same run, still streaming, sent once', async () => {
  const store = consoleRunStore();
  const before = (await serviceRuns()).length;
  render(<Page store={store} />);
  let id = '';
  act(() => {
    id = store.start(CONNECTION, story)!.id;
  });
  await screen.findByText(new RegExp(`^${id} Slow Storyteller streaming`));
  act(() => screen.getByRole('button', { name: 'toggle' }).click());
  expect(screen.queryByText(/streaming/)).toBeNull();
  const eventsWhenHidden = store.get(id)!.log!.events.length;
  await new Promise((r) => setTimeout(r, 1200));
  act(() => screen.getByRole('button', { name: 'toggle' }).click());
  const shown = screen.getByText(new RegExp(`^${id} Slow Storyteller streaming \\d+ live$`));
  // The stream went on while nothing showed it.
  expect(Number(/streaming (\d+)/.exec(shown.textContent!)![1])).toBeGreaterThan(eventsWhenHidden);
  expect(store.getSnapshot().runs).toHaveLength(1);
  const mine = (await serviceRuns()).slice(before);
  expect(mine.map((r) => [r.agentId, r.endedAt])).toEqual([['slow-storyteller', undefined]]);
  act(() => store.stop(id));
  await screen.findByText(new RegExp(`^${id} Slow Storyteller stopped`));
});

it('starts one run at a time: a second start sends nothing while the first is in flight', async () => {
  const store = consoleRunStore();
  const before = (await serviceRuns()).length;
  const first = store.start(CONNECTION, story)!;
  expect(store.start(CONNECTION, story)).toBeUndefined();
  expect(store.getSnapshot().active?.id).toBe(first.id);
  await waitFor(() => expect(store.get(first.id)!.state.status).toBe('streaming'));
  expect((await serviceRuns()).slice(before)).toHaveLength(1);
  store.stop(first.id);
  await waitFor(() => expect(store.getSnapshot().active).toBeUndefined());
  expect(store.get(first.id)!.state.transitions.map((t) => t.status)).toEqual(['sending', 'streaming', 'stopped']);
});

it('history records what the request said, whatever the page shows, and a wait run ends done with its answer', async () => {
  const saved: string[] = [];
  const store = consoleRunStore({ onSaved: (r) => saved.push(`${r.id} ${r.state.status}`) });
  const request = runRequest('legacy', 'wait', { id: 'hr-policy-form', name: 'HR Policy Agent' }, { input: { topic: 'leave', audience: '', region: 'emea', tone: '', maxPoints: '', includeLinks: false } });
  const run = store.start(CONNECTION, request)!;
  // Written through at each change: first when sent (before anything else), last when done.
  await waitFor(() => expect(saved).toEqual([`${run.id} sending`, `${run.id} waiting`, `${run.id} done`]));
  const record = store.get(run.id)!;
  expect(record.state.status).toBe('done');
  expect(record.answer?.status).toBe(200);
  const [entry] = await listRuns();
  expect(entry).toMatchObject({ id: run.id, status: 'done', request: { agentId: 'hr-policy-form', agentName: 'HR Policy Agent', flavour: 'legacy', mode: 'wait', body: request.body } });
  expect(JSON.stringify(entry)).not.toContain(DEMO.agents);
});

const echo = (text: string) => runRequest('platform', 'stream', { id: 'echo-assistant', name: 'Echo Assistant' }, { messages: [{ role: 'USER', content: [{ type: 'text', text }] }] });

it('keeps the full event log of the shown run only; the runs before it keep their counts', async () => {
  const store = consoleRunStore();
  const first = store.start(CONNECTION, echo('one two three'))!;
  await waitFor(() => expect(store.get(first.id)!.state.status).toBe('done'));
  const events = store.get(first.id)!.log!.events.length;
  expect(events).toBeGreaterThan(2);
  const second = store.start(CONNECTION, echo('four'))!;
  expect(store.get(first.id)!.log).toBeUndefined();
  expect(store.get(first.id)!.summary).toMatchObject({ eventCount: events });
  expect(store.get(second.id)!.log).toBeDefined();
  await waitFor(() => expect(store.get(second.id)!.state.status).toBe('done'));
});

it('a Stop while a wait answer’s body is being read is recorded as Stopped, not Refused', async () => {
  const store = consoleRunStore();
  let id = '';
  const network = slowNetwork({
    match: (url, method) => method === 'POST' && url.endsWith('/api/agents/echo-assistant/runs'),
    // The answer's head has arrived; its body is read next, and Stop comes in between.
    answer: () => void store.stop(id),
  });
  try {
    const request = runRequest('platform', 'wait', { id: 'echo-assistant' }, { messages: [{ role: 'USER', content: [{ type: 'text', text: 'Hello' }] }] });
    id = store.start(CONNECTION, request)!.id;
    // Sending (its entry is written first), then waiting, then the Stop's outcome.
    await waitFor(() => expect(['sending', 'waiting']).not.toContain(store.get(id)!.state.status));
    expect(store.get(id)!.state.status).toBe('stopped');
    expect(store.get(id)!.state.note).toBe(WAIT_STOPPED_BY_YOU);
  } finally {
    network.restore();
  }
});

it('opening a sent run’s history entry with another token leaves the sent run its own id and connection', async () => {
  const store = consoleRunStore({ save: async () => undefined });
  const request = runRequest('platform', 'durable', { id: 'long-runner' }, { messages: [{ role: 'USER', content: [{ type: 'text', text: 'Hi' }] }] });
  const sent = store.start(CONNECTION, request)!;
  await waitFor(() => expect(store.get(sent.id)!.runId).toBeDefined());
  const entry = historyEntryOf(store.get(sent.id)!);
  // The same profile after its token was changed: another fingerprint, which the service refuses the run.
  const opened = store.open({ ...CONNECTION, token: DEMO_EVERYTHING, fingerprint: 'another-fingerprint' }, 'long-runner', entry.runId!, entry);
  expect(opened.id).not.toBe(sent.id);
  expect(store.forEntry(entry.id)!.id).toBe(sent.id);
  // Cancelling the run sent with the first token goes with that token, and the service accepts it.
  await expect(store.cancel(sent.id)).resolves.toBeUndefined();
  await waitFor(() => expect(store.get(sent.id)!.state.status).toMatch(/^(CANCELLING|CANCELLED)$/));
});

it('a read sent before the decisions and answered after them does not take the run back to waiting for approval', async () => {
  const store = consoleRunStore({ save: async () => undefined });
  const request = runRequest('platform', 'durable', { id: 'expense-filer' }, { messages: [{ role: 'USER', content: [{ type: 'text', text: 'Hi' }] }] });
  const { id } = store.start(CONNECTION, request)!;
  const unwatch = store.watch(id);
  await waitFor(() => expect(store.get(id)!.state.status).toBe('REQUIRES_INPUT'), { timeout: 20_000 });
  const pending = store.get(id)!.state.durable!.run.pending_interactions;
  // The poll reaches the service while the run is paused, and its answer arrives late.
  const network = slowNetwork({ match: (url, method) => method === 'GET' && url.includes('/runs/'), delayMs: 400 });
  try {
    const stale = store.read(id);
    await new Promise((r) => setTimeout(r, 50));
    await store.respond(id, Object.fromEntries(pending.map((p) => [p.interaction_id, 'APPROVE' as const])));
    await stale;
  } finally {
    network.restore();
    unwatch();
  }
  const statuses = store.get(id)!.state.transitions.map((t) => t.status);
  expect(statuses.slice(statuses.lastIndexOf('RUNNING'))).not.toContain('REQUIRES_INPUT');
  expect(store.get(id)!.state.status).not.toBe('REQUIRES_INPUT');
});

// Issue 34, bug 7: a durable run reloaded 60-150 ms after its click had no entry at all, though the service had created it.
it('a run’s entry is in history before its POST goes out: a reload at any moment after the click finds it', async () => {
  const store = consoleRunStore();
  const real = window.fetch;
  let inHistoryAtPost: string[] | undefined;
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (init?.method === 'POST' && url.endsWith('/api/agents/trip-planner/runs')) inHistoryAtPost = (await listRuns()).map((e) => e.id);
    return real(input, init);
  };
  try {
    const request = runRequest('platform', 'durable', { id: 'trip-planner' }, { messages: [{ role: 'USER', content: [{ type: 'text', text: 'Plan Berlin' }] }] });
    const id = store.start(CONNECTION, request)!.id;
    await waitFor(() => expect(store.get(id)?.runId).toBeDefined());
    expect(inHistoryAtPost).toContain(id);
    await store.cancel(id);
  } finally {
    window.fetch = real;
    await store.settle();
  }
});

it('a durable run carries its history id (X-Sandbox-Client-Run-Id) to the bundled reference service only, never to another instance', async () => {
  const real = window.fetch;
  const sent: (string | null)[] = [];
  window.fetch = (input, init) => {
    if ((init?.method ?? 'GET') === 'POST') sent.push(new Headers(init?.headers).get(SANDBOX_CLIENT_RUN_ID_HEADER));
    return real(input, init);
  };
  const store = consoleRunStore();
  try {
    const request = runRequest('platform', 'durable', { id: 'long-runner' }, { messages: [{ role: 'USER', content: [{ type: 'text', text: 'Go' }] }] });
    const bundled = store.start(CONNECTION, request)!;
    await waitFor(() => expect(store.get(bundled.id)!.runId).toBeDefined());
    // An instance reached directly (here the same service, by its full address, as any other would be).
    const direct = store.start({ ...CONNECTION, mode: 'direct', target: location.origin, baseUrl: location.origin }, request)!;
    await waitFor(() => expect(store.get(direct.id)!.runId).toBeDefined());
    expect(sent).toEqual([bundled.id, null]);
    for (const r of [bundled, direct]) await store.cancel(r.id).catch(() => undefined);
  } finally {
    window.fetch = real;
    await store.settle();
  }
});
