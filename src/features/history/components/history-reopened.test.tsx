/**
 * A history entry's durable run, opened once with a token that cannot read it and
 * then with the profile's right token, is shown in history as the right token reads it; the
 * refusal of the other token does not stick to the entry.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DEMO, DEMO_EVERYTHING, referenceConnection } from '../../../test-support/reference-service';
import { wipeHistory, listRuns } from '../../../db/history';
import { runRequest } from '../../../engine/run-request';
import { type RunStore } from '../../../engine/run-store';
import type { RunConnection } from '../../../engine/run-record';
import { consoleRunStore } from '../../../hooks/console-run-store';
import { RunStoreProvider } from '../../../hooks/run-store';
import { HistoryPanel } from './history-panel';

const A: RunConnection = referenceConnection(DEMO.agents, 'fingerprint-a');
/** The same profile with another token pasted in (since changed back). */
const B: RunConnection = { ...A, token: DEMO_EVERYTHING, fingerprint: 'fingerprint-b' };

let stores: RunStore[] = [];
beforeEach(async () => {
  await wipeHistory();
});
afterEach(async () => {
  cleanup();
  for (const s of stores) await s.settle();
  stores = [];
});

it('a run read again with the profile’s right token is not shown as unreadable because another token was refused it', async () => {
  const first = consoleRunStore();
  stores.push(first);
  const sent = first.start(A, runRequest('platform', 'durable', { id: 'long-runner', name: 'Long Runner' }, { messages: [{ role: 'USER', content: [{ type: 'text', text: 'Go' }] }] }))!;
  await waitFor(async () => expect((await listRuns()).find((e) => e.id === sent.id)?.runId).toBeDefined());
  const entry = (await listRuns()).find((e) => e.id === sent.id)!;

  // A reload; the run's page is opened with a token pasted by mistake, then with the right one.
  const store = consoleRunStore();
  stores.push(store);
  const wrong = store.open(B, 'long-runner', entry.runId!, entry);
  await waitFor(() => expect(store.get(wrong.id)!.state.status).toBe('refused'));
  const right = store.open(A, 'long-runner', entry.runId!, entry);
  await waitFor(() => expect(store.get(right.id)!.state.status).toBe('RUNNING'));

  try {
    render(
      <QueryClientProvider client={new QueryClient()}>
        <RunStoreProvider store={store}>
          <MemoryRouter>
            <HistoryPanel connection={A} onLoad={() => undefined} onImported={() => undefined} />
          </MemoryRouter>
        </RunStoreProvider>
      </QueryClientProvider>,
    );
    const row = await within(screen.getByRole('region', { name: 'History' })).findByRole('listitem');
    await waitFor(() => expect(row.querySelector('.status')!.textContent).toBe('Running'));
    expect(row.textContent).not.toMatch(/could not be read again/);
  } finally {
    // The service's run is not left going for the next tests.
    await store.cancel(right.id).catch(() => undefined);
  }
});
