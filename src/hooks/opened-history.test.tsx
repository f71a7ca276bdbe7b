/**
 * Opening a finished durable run by its id (its page, from a history link, after a
 * reload) must not rewrite what history holds of it. The run's outcome is final; the
 * decisions taken on it and the states seen are part of that outcome.
 */
import { waitFor } from '@testing-library/react';
import { beforeEach, expect, it } from 'vitest';
import { DEMO, DEMO_EVERYTHING, referenceConnection } from '../test-support/reference-service';
import { wipeHistory, listRuns } from '../db/history';
import { runRequest } from '../engine/run-request';
import type { RunConnection } from '../engine/run-record';
import { consoleRunStore } from './console-run-store';

const CONNECTION: RunConnection = referenceConnection(DEMO.agents, 'test-fingerprint');

const hi = { messages: [{ role: 'USER' as const, content: [{ type: 'text' as const, text: 'File my receipts' }] }] };

beforeEach(async () => {
  await wipeHistory();
});

/** A durable run of expense-filer approved and ended, as history keeps it. */
async function approvedRun() {
  const store = consoleRunStore();
  const { id } = store.start(CONNECTION, runRequest('platform', 'durable', { id: 'expense-filer', name: 'Expense Filer' }, hi))!;
  const unwatch = store.watch(id);
  await waitFor(() => expect(store.get(id)!.state.status).toBe('REQUIRES_INPUT'), { timeout: 20_000 });
  const pending = store.get(id)!.state.durable!.run.pending_interactions;
  await store.respond(id, Object.fromEntries(pending.map((p) => [p.interaction_id, 'APPROVE' as const])));
  await waitFor(() => expect(store.get(id)!.state.status).toBe('SUCCEEDED'), { timeout: 20_000 });
  unwatch();
  await store.settle();
  const entry = (await listRuns()).find((e) => e.id === id)!;
  expect(entry.status).toBe('SUCCEEDED');
  expect(entry.transitions!.some((t) => t.decisions?.length)).toBe(true);
  return entry;
}

it('a succeeded run opened again (after a reload) with a token that cannot read it stays Succeeded in history', async () => {
  const entry = await approvedRun();
  // A reload: a new store. The profile's token was changed since; the run's page is opened from history.
  const later = consoleRunStore();
  const opened = later.open({ ...CONNECTION, token: DEMO_EVERYTHING, fingerprint: 'another-fingerprint' }, 'expense-filer', entry.runId!, entry);
  await waitFor(() => expect(later.get(opened.id)!.state.status).toBe('refused'));
  await later.settle();
  const after = (await listRuns()).find((e) => e.id === entry.id)!;
  expect(after.status).toBe('SUCCEEDED');
});

it('a succeeded run opened again (after a reload) keeps the decisions history recorded for it', async () => {
  const entry = await approvedRun();
  const later = consoleRunStore();
  const opened = later.open(CONNECTION, 'expense-filer', entry.runId!, entry);
  await waitFor(() => expect(later.get(opened.id)!.state.status).toBe('SUCCEEDED'));
  await later.settle();
  const after = (await listRuns()).find((e) => e.id === entry.id)!;
  expect(after.transitions!.flatMap((t) => t.decisions ?? []).map((d) => d.decision)).toEqual(['APPROVE']);
});
