/**
 * History's list, read from its items and each item's newest run: a conversation by its first
 * question with its turns and branches, newest first; a search reads every turn; a conversation
 * exported from the list has every turn, though the list holds only the newest.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { DEMO, referenceConnection } from '../../../test-support/reference-service';
import { saveRun, setRetentionLimits, wipeHistory } from '../../../db/history';
import { entry, turn } from '../../../db/history/test-entries';
import type { ThreadFile } from '../../../engine/thread-file';
import { renderHistoryPanel } from './render-history-panel';

const CONNECTION = referenceConnection(DEMO.agents, 'fp-list');

beforeEach(async () => {
  await wipeHistory();
});
afterEach(() => {
  vi.restoreAllMocks();
  cleanup();
});

it('lists each conversation once, by its first question, with its turns and branches, newest first; a search finds a later turn; an export holds every turn', async () => {
  await saveRun(entry('lone_run', 1_000));
  // A conversation: a first question, two replies to it (two branches), the newest last.
  await saveRun(turn('t1', 'thread_x', 2_000, 'What is the plan?'));
  await saveRun({ ...turn('t2', 'thread_x', 3_000, 'And the budget?'), request: { ...turn('t2', 'thread_x', 3_000, 'And the budget?').request, thread: { id: 'thread_x', parentId: 't1' } } });
  await saveRun({ ...turn('t3', 'thread_x', 4_000, 'And the timeline?'), request: { ...turn('t3', 'thread_x', 4_000, 'And the timeline?').request, thread: { id: 'thread_x', parentId: 't1' } } });
  const user = userEvent.setup();
  renderHistoryPanel(CONNECTION);
  const history = screen.getByRole('region', { name: 'History' });
  await waitFor(() => expect(within(history).getAllByRole('listitem')).toHaveLength(2));
  const [first, second] = within(history).getAllByRole('listitem');
  expect(first!.textContent).toContain('What is the plan? · conversation, 3 turns in 2 branches');
  expect(second!.textContent).toContain('Echo Assistant');

  await user.type(within(history).getByLabelText('Search history'), 'budget');
  await waitFor(() => expect(within(history).getAllByRole('listitem')).toHaveLength(1));
  expect(within(history).getByRole('listitem').textContent).toContain('What is the plan?');
  await user.clear(within(history).getByLabelText('Search history'));
  await user.type(within(history).getByLabelText('Search history'), 'nowhere to be found');
  await within(history).findByText('Nothing in history matches “nowhere to be found”.');
  await user.clear(within(history).getByLabelText('Search history'));
  await waitFor(() => expect(within(history).getAllByRole('listitem')).toHaveLength(2));

  const created = vi.spyOn(URL, 'createObjectURL');
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
  await user.click(within(within(history).getAllByRole('listitem')[0]!).getByRole('button', { name: 'Export conversation' }));
  await waitFor(() => expect(created).toHaveBeenCalled());
  const file = JSON.parse(await (created.mock.calls[0]![0] as Blob).text()) as ThreadFile;
  expect(file.turns.map((t) => t.id)).toEqual(['t1', 't2', 't3']);
});

it('lists the newest 50 items at first, and the older ones when asked', async () => {
  setRetentionLimits({ items: 60 });
  try {
    for (let i = 0; i < 52; i++) await saveRun(entry(`run_${i}`, 1_000 + i));
    const user = userEvent.setup();
    renderHistoryPanel(CONNECTION);
    const history = screen.getByRole('region', { name: 'History' });
    await waitFor(() => expect(within(history).getAllByRole('listitem')).toHaveLength(50));
    expect(within(history).getAllByRole('listitem')[0]!.textContent).toContain(new Date(1_051).toLocaleString());
    await user.click(within(history).getByRole('button', { name: 'Show 2 older items (2 not shown)' }));
    await waitFor(() => expect(within(history).getAllByRole('listitem')).toHaveLength(52));
    expect(within(history).queryByRole('button', { name: /older item/ })).toBeNull();
  } finally {
    setRetentionLimits();
  }
});
