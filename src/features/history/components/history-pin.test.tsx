/**
 * Pinning from history: a pinned item is kept whatever retention's limits, and says so.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DEMO, referenceConnection } from '../../../test-support/reference-service';
import { listRuns, saveRun, setRetentionLimits, wipeHistory, type HistoryEntry } from '../../../db/history';
import { runRequest } from '../../../engine/run-request';
import { renderHistoryPanel } from './render-history-panel';

const CONNECTION = referenceConnection(DEMO.agents, 'fp-pin');

function entry(id: string, startedAt: number): HistoryEntry {
  return {
    id,
    startedAt,
    request: runRequest('platform', 'wait', { id: 'hr-policy-form', name: 'HR Policy Agent' }, { input: { topic: id } }),
    target: { profileId: 'reference', profileLabel: 'Reference service', mode: 'same-origin', baseUrl: '' },
    status: 'done',
    durationMs: 5,
    eventCount: 0,
    bytes: 10,
    transcript: `answer ${id}`,
  };
}

beforeEach(async () => {
  await wipeHistory();
});
afterEach(() => {
  setRetentionLimits();
  cleanup();
});

it('a pinned run stays in history past the limit, while the next oldest is let go, and history says what went', async () => {
  setRetentionLimits({ items: 2 });
  await saveRun(entry('oldest', 1_000));
  await saveRun(entry('middle', 2_000));
  const user = userEvent.setup();
  renderHistoryPanel(CONNECTION);
  const history = screen.getByRole('region', { name: 'History' });
  const row = (text: string) => within(history).getAllByRole('listitem').find((li) => li.textContent!.includes(text))!;
  await waitFor(() => expect(within(history).getAllByRole('listitem')).toHaveLength(2));
  // The oldest run's row: opened to see its answer, then pinned.
  const oldest = () => within(history).getAllByRole('listitem').at(-1)!;
  await user.click(within(oldest()).getByRole('button', { name: 'Pin' }));
  await waitFor(() => expect(within(oldest()).getByRole('button', { name: 'Pinned' }).getAttribute('aria-pressed')).toBe('true'));
  await saveRun(entry('newest', 3_000));
  await waitFor(async () => expect((await listRuns()).map((e) => e.id).sort()).toEqual(['newest', 'oldest']));
  await waitFor(() => expect(within(history).getByRole('status').textContent).toMatch(/History let go of an older item to stay within 2 items/));
  expect(row('HR Policy Agent')).toBeTruthy();
});
