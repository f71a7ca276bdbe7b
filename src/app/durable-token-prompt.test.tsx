/**
 * A durable run's address opened in a new tab: tokens are kept per tab by default, so the tab
 * has none. It failed on 8e37cee, where the page only answered "401 … No bearer token".
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import { DEMO_EVERYTHING } from '../test-support/reference-service';
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
  await user.click(within(again).getByRole('button', { name: 'New profile with “Demo: agents”' }));
  await waitFor(() => expect(within(main).getByRole('status', { name: 'Run state' }).textContent).toMatch(/^(Queued|Running|Waiting for your approval)$/));
  expect(within(main).queryByRole('alert')).toBeNull();
});

/** The run's address opened on a profile whose token is another token's: the page says it cannot read it. */
async function openRefused(profiles?: { id: string; label: string; token: string }[]) {
  const run = await startExpenseRun();
  localStorage.clear();
  sessionStorage.clear();
  const all = [{ id: 'reference', label: 'Reference service', token: DEMO_EVERYTHING }, ...(profiles ?? [])];
  localStorage.setItem(
    'mac.profiles',
    JSON.stringify({ profiles: all.map(({ id, label }) => ({ id, label, mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} })), activeId: 'reference', screenShare: false }),
  );
  for (const p of all) sessionStorage.setItem(`mac.token.${p.id}`, JSON.stringify(p.token));
  const user = userEvent.setup();
  renderConsole(`/runs/expense-filer/${run.run_id}`);
  const main = screen.getByRole('main');
  const refused = await within(main).findByRole('alert');
  expect(refused.textContent).toMatch(/No run/);
  await user.click(within(refused).getByRole('button', { name: 'Use another token' }));
  const prompt = await within(main).findByRole('region', { name: 'Another token for this page' });
  return { user, main, prompt };
}

const readsTheRun = async (main: HTMLElement) => {
  await waitFor(() => expect(within(main).getByRole('status', { name: 'Run state' }).textContent).toMatch(/^(Queued|Running|Waiting for your approval)$/));
  expect(within(main).queryByRole('alert')).toBeNull();
};

it('"Use another token" offers first another profile, then a new profile, and overwriting last, saying what it replaces', async () => {
  const { prompt } = await openRefused([{ id: 'agents', label: 'Agents only', token: DEMO.agents }]);
  const choices = within(prompt).getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
  expect(choices.slice(0, 3)).toEqual(['Switch to another profile', 'Make a new profile with another token', 'Replace this profile’s token']);
  const replace = within(prompt).getByRole('region', { name: 'Replace this profile’s token' });
  expect(replace.textContent).toContain('Replaces the token profile Reference service has now, sandbo…••••');
  expect(within(replace).getByRole('button', { name: 'Replace the token of Reference service' })).toBeTruthy();
});

it('switching to another profile reads the run with that profile’s token, and the refused profile keeps its own', async () => {
  const { user, main, prompt } = await openRefused([{ id: 'agents', label: 'Agents only', token: DEMO.agents }]);
  await user.click(within(prompt).getByRole('button', { name: 'Switch to Agents only' }));
  await readsTheRun(main);
  expect(within(main).getByText(/profile Agents only/)).toBeTruthy();
  expect(sessionStorage.getItem('mac.token.reference')).toBe(JSON.stringify(DEMO_EVERYTHING));
});

it('a new profile made with the new token reads the run, and the refused profile keeps its token', async () => {
  const { user, main, prompt } = await openRefused();
  const fresh = within(prompt).getByRole('region', { name: 'Make a new profile with another token' });
  await user.clear(within(fresh).getByLabelText('Profile name'));
  await user.type(within(fresh).getByLabelText('Profile name'), 'Run owner');
  await user.click(within(fresh).getByLabelText('Token for the new profile'));
  await user.paste(DEMO.agents);
  await user.click(within(fresh).getByRole('button', { name: 'Make the profile and use it' }));
  await readsTheRun(main);
  expect(within(main).getByText(/profile Run owner/)).toBeTruthy();
  expect(sessionStorage.getItem('mac.token.reference')).toBe(JSON.stringify(DEMO_EVERYTHING));
  const order = JSON.parse(localStorage.getItem('mac.profileOrder')!) as string[];
  expect(order.map((id) => (JSON.parse(localStorage.getItem(`mac.profile.${id}`)!) as { label: string }).label)).toEqual(['Reference service', 'Run owner']);
  // The tab's profile is the new one, which has the new token.
  const activeId = JSON.parse(sessionStorage.getItem('mac.activeProfile')!) as string;
  expect(activeId).toBe(order[1]);
  expect(sessionStorage.getItem(`mac.token.${activeId}`)).toBe(JSON.stringify(DEMO.agents));
});

it('replacing the profile’s token is still possible, when chosen as such', async () => {
  const { user, main, prompt } = await openRefused();
  const replace = within(prompt).getByRole('region', { name: 'Replace this profile’s token' });
  await user.click(within(replace).getByLabelText('New token for Reference service'));
  await user.paste(DEMO.agents);
  await user.click(within(replace).getByRole('button', { name: 'Replace the token of Reference service' }));
  await readsTheRun(main);
  expect(sessionStorage.getItem('mac.token.reference')).toBe(JSON.stringify(DEMO.agents));
});
