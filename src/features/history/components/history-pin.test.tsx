/**
 * Pinning from history: a pinned item is kept whatever retention's limits, and says so.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DEMO, referenceConnection } from '../../../test-support/reference-service';
import { listRuns, PIN_LIMIT, saveRun, setPinned, setRetentionLimits, wipeHistory, type HistoryEntry } from '../../../db/history';
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

it('a pinned run stays in history and does not count against the limit; past it the oldest unpinned run goes, and history says what went', async () => {
  setRetentionLimits({ items: 2 });
  await saveRun(entry('oldest', 1_000));
  await saveRun(entry('middle', 2_000));
  const user = userEvent.setup();
  renderHistoryPanel(CONNECTION);
  const history = screen.getByRole('region', { name: 'History' });
  expect(history.textContent).toContain(`pinned items are kept whatever the limits and do not count against them (at most ${PIN_LIMIT} pins)`);
  await waitFor(() => expect(within(history).getAllByRole('listitem')).toHaveLength(2));
  // The oldest run's row, pinned.
  const oldest = () => within(history).getAllByRole('listitem').at(-1)!;
  await user.click(within(oldest()).getByRole('button', { name: 'Pin' }));
  await waitFor(() => expect(within(oldest()).getByRole('button', { name: 'Pinned' }).getAttribute('aria-pressed')).toBe('true'));
  // Two runs count against the limit of two: a third, and nothing goes.
  await saveRun(entry('newest', 3_000));
  expect((await listRuns()).map((e) => e.id).sort()).toEqual(['middle', 'newest', 'oldest']);
  await saveRun(entry('latest', 4_000));
  await waitFor(async () => expect((await listRuns()).map((e) => e.id).sort()).toEqual(['latest', 'newest', 'oldest']));
  await waitFor(() => expect(within(history).getByRole('status').textContent).toMatch(/History let go of an older item to stay within 2 items .*: run “HR Policy Agent \(wait\)”/));
});

it('once PIN_LIMIT items are pinned, Pin is offered on no other item, and says why', async () => {
  setRetentionLimits({ items: PIN_LIMIT + 2 });
  for (let i = 0; i < PIN_LIMIT + 1; i++) await saveRun(entry(`r${i}`, 1_000 + i));
  for (let i = 0; i < PIN_LIMIT; i++) await setPinned(`r${i}`, true);
  renderHistoryPanel(CONNECTION);
  const history = screen.getByRole('region', { name: 'History' });
  // The newest item, unpinned, and the newest pinned ones (History lists 50 at first).
  await waitFor(() => expect(within(history).getAllByRole('button', { name: 'Pinned' })).toHaveLength(49));
  const pin = within(history).getByRole('button', { name: 'Pin' });
  expect(pin).toBeDisabled();
  expect(pin.title).toBe(`${PIN_LIMIT} items are pinned, the most history keeps: unpin one first`);
});

it('a run too large for history on its own is let go alone, and the notice says so, with its size and the limit', async () => {
  setRetentionLimits({ bytes: 100_000 });
  for (let i = 0; i < 4; i++) await saveRun(entry(`small_${i}`, 1_000 + i));
  renderHistoryPanel(CONNECTION);
  const history = screen.getByRole('region', { name: 'History' });
  await waitFor(() => expect(within(history).getAllByRole('listitem')).toHaveLength(4));
  await saveRun(entry('big', 2_000), { events: Array.from({ length: 280 }, (_, i) => ({ seq: i + 1, id: String(i), event: 'message', at: i, gap: 1, bytes: 1_000, data: 'x'.repeat(1_000) })) });
  await waitFor(() =>
    expect(within(history).getByRole('status').textContent).toMatch(/History let go of run “HR Policy Agent \(wait\)” \(\d+(\.\d)? kB\): it was too large for history’s 100 kB limit on its own\./),
  );
  expect(within(history).getAllByRole('listitem')).toHaveLength(4);
});
