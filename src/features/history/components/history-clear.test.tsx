/**
 * Clear history asks first, and what it says will leave is what leaves: a conversation with a
 * run still going on (a durable run waiting for approval) stays whole, so it is not counted.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DEMO, referenceConnection } from '../../../test-support/reference-service';
import { saveRun, setPinned, wipeHistory, type HistoryEntry } from '../../../db/history';
import { runRequest } from '../../../engine/run-request';
import { renderHistoryPanel } from './render-history-panel';

const CONNECTION = referenceConnection(DEMO.agents, 'fp-clear');

function turn(thread: string, startedAt: number, status: HistoryEntry['status'], runId?: string): HistoryEntry {
  const messages = [{ role: 'USER' as const, content: [{ type: 'text' as const, text: `question ${thread}` }] }];
  return {
    id: `run-${thread}`,
    startedAt,
    request: { ...runRequest('platform', runId ? 'durable' : 'stream', { id: 'echo-assistant', name: 'Echo Assistant' }, { messages }), thread: { id: thread } },
    target: { profileId: 'reference', profileLabel: 'Reference service', mode: 'same-origin', baseUrl: '' },
    status,
    ...(runId && { runId }),
    durationMs: 5,
    eventCount: 0,
    bytes: 10,
    transcript: `answer ${thread}`,
  };
}

beforeEach(async () => {
  await wipeHistory();
});
afterEach(cleanup);

it('Clear history does not count a conversation whose run is still going on among those that leave', async () => {
  await saveRun(turn('thread_a', 1_000, 'done'));
  await saveRun(turn('thread_b', 2_000, 'done'));
  await saveRun(turn('thread_c', 3_000, 'REQUIRES_INPUT', 'run_waiting'));
  const user = userEvent.setup();
  renderHistoryPanel(CONNECTION);
  const history = screen.getByRole('region', { name: 'History' });
  await waitFor(() => expect(within(history).getAllByRole('listitem').length).toBeGreaterThanOrEqual(3));
  await user.click(within(history).getByRole('button', { name: 'Clear history…' }));
  const ask = within(history).getByRole('alertdialog', { name: 'Clear history?' });
  expect(ask.textContent).toContain('2 conversations leave this browser’s history; 1 run still going on stays, with its conversation.');
  await user.click(within(ask).getByRole('button', { name: 'Clear history' }));
  await waitFor(() => expect(within(history).getByText(/^History cleared/).textContent).toContain('History cleared: 2 conversations taken out'));
});

it('keeps keyboard focus in History through Clear history, Cancel, Escape, Undo: never dropped on the page body', async () => {
  await saveRun(turn('thread_a', 1_000, 'done'));
  const user = userEvent.setup();
  renderHistoryPanel(CONNECTION);
  const history = screen.getByRole('region', { name: 'History' });
  const clearButton = await within(history).findByRole('button', { name: 'Clear history…' });
  await waitFor(() => expect(clearButton).toBeEnabled());
  // Cancel: back on the button that asked.
  await user.click(clearButton);
  await user.keyboard('{Tab}{Enter}');
  await waitFor(() => expect(within(history).queryByRole('alertdialog')).toBeNull());
  await waitFor(() => expect(document.activeElement).toBe(clearButton));
  // Escape answers the question as Cancel does.
  await user.keyboard('{Enter}');
  await within(history).findByRole('alertdialog', { name: 'Clear history?' });
  await user.keyboard('{Escape}');
  await waitFor(() => expect(within(history).queryByRole('alertdialog')).toBeNull());
  await waitFor(() => expect(document.activeElement).toBe(clearButton));
  // Clear (Enter on the focused confirm button): on Undo, the one thing to do next.
  await user.keyboard('{Enter}');
  await within(history).findByRole('alertdialog', { name: 'Clear history?' });
  await user.keyboard('{Enter}');
  const undo = await within(history).findByRole('button', { name: 'Undo' });
  await waitFor(() => expect(document.activeElement).toBe(undo));
  // Undo: back on Clear history…, with the conversation back.
  await user.keyboard('{Enter}');
  await waitFor(() => expect(within(history).queryByRole('button', { name: 'Undo' })).toBeNull());
  await waitFor(() => expect(document.activeElement).toBe(within(history).getByRole('button', { name: 'Clear history…' })));
});

it('when every run left is still going on, Clear history is not offered, and the last Clear can still be undone', async () => {
  await saveRun(turn('thread_a', 1_000, 'done'));
  const user = userEvent.setup();
  renderHistoryPanel(CONNECTION);
  const history = screen.getByRole('region', { name: 'History' });
  const clearButton = await within(history).findByRole('button', { name: 'Clear history…' });
  await waitFor(() => expect(clearButton).toBeEnabled());
  await user.click(clearButton);
  await user.click(within(within(history).getByRole('alertdialog')).getByRole('button', { name: 'Clear history' }));
  await within(history).findByRole('button', { name: 'Undo' });
  // A durable run starts after the Clear and waits for approval: nothing in history could leave.
  await saveRun(turn('thread_c', 3_000, 'REQUIRES_INPUT', 'run_waiting'));
  await waitFor(() => expect(within(history).getAllByRole('listitem')).toHaveLength(1));
  expect(clearButton).toBeDisabled();
  expect(clearButton.title).toBe('Nothing to clear: every run in history is still going on');
  await user.click(within(history).getByRole('button', { name: 'Undo' }));
  await waitFor(() => expect(within(history).getAllByRole('listitem')).toHaveLength(2));
});

it('Clear history says that pinned items leave too: a pin guards against the limits, not against Clear', async () => {
  await saveRun(turn('thread_a', 1_000, 'done'));
  await saveRun(turn('thread_b', 2_000, 'done'));
  await setPinned('thread_a', true);
  const user = userEvent.setup();
  renderHistoryPanel(CONNECTION);
  const history = screen.getByRole('region', { name: 'History' });
  await within(history).findByRole('button', { name: 'Pinned' });
  await user.click(within(history).getByRole('button', { name: 'Clear history…' }));
  const ask = within(history).getByRole('alertdialog', { name: 'Clear history?' });
  expect(ask.textContent).toContain('2 conversations leave this browser’s history, the pinned one too (a pin keeps an item past history’s limits, not past Clear). You can undo it.');
});
