/**
 * The four bugs a review found in the runs page before the run store existed. Each test was
 * first written against that code (commit d70887b) and failed there; they pass now. Run again
 * has since become "load into the form" (runs v3), and fields by hand are offered only where
 * they help, so bugs 1 and 2 say so.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { wipeHistory } from '../db/history';
import { DEMO, freshBrowser, renderConsole, serviceRuns, settleConsole } from './test-console';

beforeEach(async () => {
  await wipeHistory();
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

async function pickAgent(user: ReturnType<typeof userEvent.setup>, name: string) {
  await user.type(screen.getByRole('combobox', { name: 'Agent' }), name);
  await user.click(await screen.findByRole('option', { name: new RegExp(name) }));
}

it('bug 1: "Run again" from history loads the agent it ran, not the one open now, and the next run records it', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/hr-policy-form');
  await user.type(await screen.findByLabelText(/^Topic/), 'leave');
  await user.selectOptions(screen.getByLabelText(/^Region/), 'emea');
  await user.click(screen.getByRole('radio', { name: /Wait/ }));
  await user.click(screen.getByRole('button', { name: 'Run and wait' }));
  const history = screen.getByRole('region', { name: 'History' });
  await within(history).findByRole('link', { name: 'HR Policy Agent' });
  // History shows a run from its start: the next run can be sent only once this one has ended
  // (on a loaded machine it was still in flight, and Run and wait was not yet offered).
  await waitFor(() => expect(within(history).getByRole('listitem').textContent).toMatch(/Done/));

  await pickAgent(user, 'Echo Assistant');
  await screen.findByRole('heading', { name: /Echo Assistant/ });
  const before = (await serviceRuns()).length;
  await user.click(within(history).getByRole('button', { name: 'Run again…' }));
  await screen.findByRole('heading', { name: /HR Policy Agent/ });
  expect((await screen.findByLabelText<HTMLInputElement>(/^Topic/)).value).toBe('leave');
  const runAgain = screen.getByRole('button', { name: 'Run and wait' });
  expect(runAgain.hasAttribute('disabled')).toBe(false);
  await user.click(runAgain);

  await waitFor(() => expect(within(history).getAllByRole('listitem')).toHaveLength(2));
  const [newest] = within(history).getAllByRole('listitem');
  expect(newest!.textContent).toMatch(/HR Policy Agent/);
  expect(newest!.textContent).not.toMatch(/Echo Assistant/);
  const run = screen.getByRole('region', { name: 'Run' });
  expect(within(run).getByText('HR Policy Agent', { selector: 'strong' })).toBeTruthy();
  // History has the run from its click on; its POST goes out once its entry is written.
  await waitFor(async () => expect((await serviceRuns()).slice(before).map((r) => r.agentId)).toEqual(['hr-policy-form']));
});

it('bug 2: adding input fields by hand renders a bounded number of times', async () => {
  // An instance that cannot be reached: the agent's schema cannot be loaded, and fields by hand are the way on.
  freshBrowser(DEMO.agents, {
    profiles: [{ id: 'gone', label: 'Unreachable', mode: 'direct', target: 'http://127.0.0.1:9', scopes: [], remember: false, outcomes: {} }],
    activeId: 'gone',
    screenShare: false,
  });
  sessionStorage.setItem('mac.token.gone', JSON.stringify(DEMO.agents));
  const user = userEvent.setup();
  let renders = 0;
  renderConsole('/runs/hr-policy-form', () => renders++);
  await user.click(await screen.findByRole('button', { name: 'Add input fields by hand' }));
  await user.type(screen.getByLabelText('New field name'), 'topic');
  await user.click(screen.getByRole('button', { name: 'Add field' }));
  await screen.findByLabelText(/^topic/);
  const before = renders;
  await new Promise((r) => setTimeout(r, 500));
  // Idle for half a second: a loop re-renders hundreds of times; a settled page a handful.
  expect(renders - before).toBeLessThan(10);
  await user.type(screen.getByLabelText(/^topic/), 'abc');
  expect(screen.getByLabelText<HTMLTextAreaElement>('Request body preview').textContent).toMatch(/"topic": "abc"/);
});

it('bug 3: leaving the page mid-run and coming back shows the same run live; the service runs it once', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  const before = (await serviceRuns()).length;
  renderConsole('/runs/slow-storyteller');
  await user.type(await screen.findByLabelText('Message 1 text'), 'Tell me a story');
  await user.click(await screen.findByRole('button', { name: 'Run and stream' }));
  await screen.findByText('Streaming…', { selector: '[role=status]' });
  const nav = screen.getByRole('navigation', { name: 'Main' });
  expect(within(nav).getByRole('link', { name: /Agent runs, a run is live/ })).toBeTruthy();

  await user.click(within(nav).getByRole('link', { name: 'Connection' }));
  await screen.findByRole('heading', { name: 'Profiles' });
  await user.click(within(nav).getByRole('link', { name: /Agent runs/ }));
  await screen.findByText('Streaming…', { selector: '[role=status]' });
  const mine = (await serviceRuns()).slice(before);
  expect(mine).toHaveLength(1);
  expect(mine[0]!.endedAt).toBeUndefined();

  // A second start while it streams is not possible: one run in flight at a time.
  expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Run and stream' }).disabled).toBe(true);
  await user.click(screen.getByRole('button', { name: 'Stop' }));
  await screen.findByText('Stopped', { selector: '[role=status]' });
  await waitFor(async () => expect((await serviceRuns()).slice(before)[0]!.endedAt).toBeDefined());
});

it('bug 4: switching to a profile with no instance URL never shows what the bundled service answered', async () => {
  freshBrowser(DEMO.global, {
    profiles: [
      { id: 'reference', label: 'Reference service', mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} },
      { id: 'direct', label: 'Direct, no URL', mode: 'direct', target: '', scopes: [], remember: false, outcomes: {} },
    ],
    activeId: 'reference',
    screenShare: false,
  });
  sessionStorage.setItem('mac.token.direct', JSON.stringify(DEMO.global));
  const user = userEvent.setup();
  renderConsole('/schemas/sales');
  await screen.findByRole('cell', { name: 'status' });
  await user.selectOptions(screen.getByLabelText('Profile'), 'direct');
  await screen.findByText(/Connection not set up/);
  expect(screen.queryByRole('cell', { name: 'status' })).toBeNull();
  // And back: the bundled service's answer is still its own.
  await user.selectOptions(screen.getByLabelText('Profile'), 'reference');
  await screen.findByRole('cell', { name: 'status' });
});
