/**
 * Cancel run… asks first, like every other confirmation in the console: focus starts on the
 * safe answer (Keep it running) and Escape gives that answer, back on Cancel run…. Before, focus
 * fell to the page's body and Escape left the question open.
 */
import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { wipeHistory } from '../db/history';
import { mintAgentsToken } from '../test-support/reference-service';
import { freshBrowser, renderConsole, settleConsole } from './test-console';

beforeEach(async () => {
  await wipeHistory();
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

async function createDurableRun(token: string, agentId: string): Promise<string> {
  const res = await fetch(`/api/agents/${agentId}/runs`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ execution_mode: 'DURABLE', messages: [{ role: 'USER', content: [{ type: 'text', text: 'Go' }] }] }),
  });
  return ((await res.json()) as { run: { run_id: string } }).run.run_id;
}

it('Cancel run… puts focus on Keep it running; Escape keeps the run and returns focus to Cancel run…', async () => {
  const token = await mintAgentsToken();
  freshBrowser(token);
  const runId = await createDurableRun(token, 'long-runner');
  const user = userEvent.setup();
  renderConsole(`/runs/long-runner/${runId}`);
  await waitFor(() => expect(screen.getByRole('status', { name: 'Run state' }).textContent).toBe('Running'), { timeout: 20_000 });
  await user.click(screen.getByRole('button', { name: 'Cancel run…' }));
  expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Keep it running' }));
  await user.keyboard('{Escape}');
  expect(screen.queryByRole('group', { name: 'Confirm cancellation' })).toBeNull();
  expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel run…' }));
  // Nothing was sent: the run goes on.
  await new Promise((r) => setTimeout(r, 1_500));
  expect(screen.getByRole('status', { name: 'Run state' }).textContent).toBe('Running');
  // Cancelling still works once asked for, by keyboard alone.
  await user.keyboard('{Enter}');
  await user.click(screen.getByRole('button', { name: 'Yes, cancel the run' }));
  await waitFor(() => expect(screen.getByRole('status', { name: 'Run state' }).textContent).toMatch(/Cancel/), { timeout: 20_000 });
});
