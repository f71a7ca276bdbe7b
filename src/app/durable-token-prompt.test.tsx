/**
 * A durable run's address opened in a new tab: tokens are kept per tab by default, so the tab
 * has none. It failed on 8e37cee, where the page only answered "401 … No bearer token".
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import { DEMO, renderConsole } from './test-console';

afterEach(() => cleanup());

/** A durable run of expense-filer started with the agents demo token, as another tab would have. */
async function startExpenseRun(): Promise<{ run_id: string }> {
  const started = await fetch('/api/agents/expense-filer/runs', {
    method: 'POST',
    headers: { Authorization: `Bearer ${DEMO.agents}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ execution_mode: 'DURABLE', messages: [{ role: 'USER', content: [{ type: 'text', text: 'File my expenses' }] }] }),
  });
  expect(started.status).toBe(201);
  return ((await started.json()) as { run: { run_id: string } }).run;
}

/** That run's address opened in a tab with nothing remembered: no profile, no token. */
async function openInFreshTab() {
  const run = await startExpenseRun();
  localStorage.clear();
  sessionStorage.clear();
  const user = userEvent.setup();
  renderConsole(`/runs/expense-filer/${run.run_id}`);
  return { run, user, main: screen.getByRole('main') };
}

it('a durable run opened without a token offers a demo token, then reads the run', async () => {
  const { run, user, main } = await openInFreshTab();
  const prompt = await within(main).findByRole('region', { name: 'A token is needed for this page' });
  expect(within(prompt).getByLabelText('Remember on this device')).toBeTruthy();
  await user.click(await within(prompt).findByRole('button', { name: 'Use “Demo: agents”' }));

  await within(main).findByRole('heading', { name: `Durable run ${run.run_id}` });
  await waitFor(() => expect(within(main).getByRole('status', { name: 'Run state' }).textContent).toMatch(/^(Queued|Running|Waiting for your approval)$/));
  expect(within(main).queryByRole('alert')).toBeNull();
});

it('a demo token that cannot read the run is refused (404); "Use another token" brings the prompt back, and the right token reads the run', async () => {
  const { user, main } = await openInFreshTab();
  // The wrong one: this token may run agents, but the run is another token's.
  await user.click(await within(await within(main).findByRole('region', { name: 'A token is needed for this page' })).findByRole('button', { name: 'Use “Demo: global metadata and agents”' }));
  const refused = await within(main).findByRole('alert');
  expect(refused.textContent).toMatch(/No run/);
  await user.click(within(refused).getByRole('button', { name: 'Use another token' }));
  const again = await within(main).findByRole('region', { name: 'Another token for this page' });
  await user.click(within(again).getByRole('button', { name: 'Use “Demo: agents”' }));
  await waitFor(() => expect(within(main).getByRole('status', { name: 'Run state' }).textContent).toMatch(/^(Queued|Running|Waiting for your approval)$/));
  expect(within(main).queryByRole('alert')).toBeNull();
});
