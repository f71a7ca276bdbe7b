/** The comparison's verdict in words, for two runs read from history. */
import { cleanup, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { saveRun, wipeHistory, type HistoryEntry } from '../features/agent-runs/model/history';
import { runRequest } from '../features/agent-runs/model/run-request';
import { DEMO, freshBrowser, renderConsole, settleConsole } from './test-console';

function waitRun(id: string, startedAt: number, transcript: string): HistoryEntry {
  return {
    id,
    startedAt,
    request: runRequest('platform', 'wait', { id: 'hr-policy-form', name: 'HR Policy Agent' }, { input: { topic: id } }),
    target: { profileId: 'reference', profileLabel: 'Reference service', mode: 'same-origin', baseUrl: '' },
    status: 'done',
    durationMs: 5,
    eventCount: 0,
    bytes: transcript.length,
    transcript,
  };
}

const verdict = () => screen.getByRole('status', { name: 'Verdict' });
const words = (prefix: string) => Array.from({ length: 3_000 }, (_, i) => `${prefix}${i}`).join(' ');

beforeEach(async () => {
  await wipeHistory();
  freshBrowser(DEMO.agents);
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

it('answers that differ in a few words say how many parts differ', async () => {
  await saveRun(waitRun('near-a', 1_000, 'The policy allows ten days of leave.'));
  await saveRun(waitRun('near-b', 2_000, 'The policy allows twelve days of leave.'));
  renderConsole('/compare/near-a/near-b');
  await waitFor(() => expect(verdict().textContent).toMatch(/^The answers differ: 2 parts differ, marked below/));
});

it('answers too different to compare word by word say so, with no count of parts beside it', async () => {
  await saveRun(waitRun('far-a', 1_000, words('a')));
  await saveRun(waitRun('far-b', 2_000, words('b')));
  renderConsole('/compare/far-a/far-b');
  await waitFor(() => expect(verdict().textContent).toMatch(/^The answers differ in too many places to compare word by word: where they differ, each is marked whole below/));
  expect(verdict().textContent).not.toMatch(/parts? differs?/);
});
