/**
 * The runs page shows the profile in use's runs only: another token's answer is never shown
 * under this one, neither while the console holds it nor read back from history after a reload.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { wipeHistory } from '../db/history';
import { DEMO_EVERYTHING } from '../test-support/reference-service';
import { DEMO, freshBrowser, headStatusOf, renderConsole, settleConsole, startRun } from './test-console';

beforeEach(async () => {
  await wipeHistory();
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

const runRegion = () => screen.getByRole('region', { name: 'Run' });

it('a run sent with one profile is not shown under another, before or after a reload; back on its profile it shows again', async () => {
  freshBrowser(DEMO.agents, {
    profiles: [
      { id: 'reference', label: 'Reference service', mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} },
      { id: 'second', label: 'Second token', mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} },
    ],
    activeId: 'reference',
    screenShare: false,
  });
  sessionStorage.setItem('mac.token.second', JSON.stringify(DEMO_EVERYTHING));
  const user = userEvent.setup();
  // A form agent: its runs are lone runs the page shows as the agent's last (a messages agent's
  // are conversations, reopened by their own address).
  renderConsole('/runs/hr-policy-form');
  await user.type(await screen.findByLabelText(/^Topic/), 'only for the first token');
  await user.selectOptions(screen.getByLabelText(/^Region/), 'emea');
  const runId = await startRun(user, screen.getByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(headStatusOf().textContent).toBe('Done'));

  await user.selectOptions(screen.getByLabelText('Profile'), 'second');
  await waitFor(() => expect(headStatusOf().textContent).toBe('No run yet'));
  expect(within(runRegion()).queryByText(/only for the first token/)).toBeNull();

  // A reload with the second profile in use: history holds the first profile's run (it lists
  // every profile's), and the page still does not show it as this profile's last run.
  await settleConsole();
  cleanup();
  renderConsole('/runs/hr-policy-form');
  const history = await screen.findByRole('region', { name: 'History' });
  await waitFor(() => expect(history.textContent).toMatch(/HR Policy/));
  expect(headStatusOf().textContent).toBe('No run yet');
  expect(headStatusOf().dataset.runId ?? '').not.toBe(runId);

  await user.selectOptions(screen.getByLabelText('Profile'), 'reference');
  await waitFor(() => expect(headStatusOf().dataset.runId).toBe(runId));
});
