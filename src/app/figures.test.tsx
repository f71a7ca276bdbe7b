/**
 * One figure per run, the same everywhere, live: a turn's head, the response's status line,
 * the counters and the run's own page say the same events, bytes and duration.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { wipeHistory } from '../db/history';
import { DEMO, freshBrowser, renderConsole, settleConsole } from './test-console';

beforeEach(async () => {
  await wipeHistory();
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

const runRegion = () => screen.getByRole('region', { name: 'Run' });
const turnHead = () => [...runRegion().querySelectorAll('.turn-meta')].at(-1)!.textContent!;
const counter = (name: string) => within(runRegion().querySelector<HTMLElement>('dl.counters')!).getByText(name, { selector: 'dt' }).nextElementSibling!.textContent!;
const digits = (s: string) => s.replace(/\D/g, '');

async function ask(user: ReturnType<typeof userEvent.setup>, text: string) {
  const box = await screen.findByLabelText('Message 1 text');
  await user.clear(box);
  await user.type(box, text);
}

it('a turn left mid-stream and come back to: its head says the events and bytes its counters say, as they arrive', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/slow-storyteller');
  await ask(user, 'A long story');
  await user.click(screen.getByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(turnHead()).toMatch(/Streaming…/));
  const nav = within(screen.getByRole('navigation', { name: 'Main' }));
  await user.click(nav.getByRole('link', { name: /Schemas/ }));
  await user.click(nav.getByRole('link', { name: /Agent runs/ }));
  await waitFor(() => expect(turnHead()).toMatch(/Streaming…/));
  // More events arrive while the turn is shown again; head and counters move together.
  await new Promise((r) => setTimeout(r, 1_000));
  const head = turnHead();
  const events = /([\d,\u202f ]+) events/.exec(head)?.[1];
  expect(events && digits(events)).toBe(digits(counter('Events')));
  expect(head).toContain(counter('Bytes'));
  // The status line, too, says what has arrived, never "0 B" once events came.
  expect(runRegion().querySelector('.response-summary')!.textContent).not.toMatch(/· 0 B/);
  await user.click(screen.getByRole('button', { name: 'Stop' }));
  await waitFor(() => expect(turnHead()).toMatch(/Stopped/));
});

it('a refused turn is as large as its refusal’s body, in its head and its status line alike', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/expense-filer');
  // Stream chosen for an agent whose tools ask for approval (once the page has said so and started it in Durable): refused with 409.
  await screen.findByRole('note', { name: 'Approval' });
  await user.click(screen.getByRole('radio', { name: /Stream/ }));
  await ask(user, 'File my receipts');
  await user.click(screen.getByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(turnHead()).toMatch(/Refused/));
  const line = runRegion().querySelector('.response-summary')!.textContent!;
  const size = /· ([\d.,]+\s?(?:B|kB))$/.exec(line)?.[1];
  expect(size).toBeDefined();
  expect(size).not.toBe('0 B');
  expect(turnHead()).toContain(`· ${size}`);
});

it('a durable turn’s duration is the one its own page says', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/failing-job');
  await user.click(await screen.findByRole('radio', { name: /Durable/ }));
  await ask(user, 'Export the rows');
  await user.click(screen.getByRole('button', { name: 'Start durable run' }));
  await waitFor(() => expect(turnHead()).toMatch(/· Failed ·/), { timeout: 20_000 });
  const ms = /· ([\d,\u202f ]+) ms/.exec(turnHead())![1]!;
  await user.click(within(runRegion()).getByRole('link', { name: 'Open the run’s own page' }));
  const took = await screen.findByText(/^Took [\d,\u202f ]+ ms/, {}, { timeout: 20_000 });
  expect(digits(took.textContent!.split(' ms')[0]!)).toBe(digits(ms));
});
