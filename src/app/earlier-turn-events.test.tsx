/**
 * An earlier turn of a conversation offers its events and raw answer, as history kept
 * them, while the console still holds its run (whose full log was let go when the next turn
 * was sent), as it does once the console no longer holds it.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { wipeHistory } from '../db/history';
import { DEMO, freshBrowser, renderConsole, settleConsole, startRun } from './test-console';

beforeEach(async () => {
  await wipeHistory();
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

const runRegion = () => screen.getByRole('region', { name: 'Run' });
const turnItems = () => within(within(runRegion()).getByRole('list', { name: 'Turns' })).getAllByRole('listitem', { name: /^Turn/ });
const lastTurnStatus = () => [...runRegion().querySelectorAll('.turn-meta .status')].at(-1)?.textContent;

it('the first turn’s events can still be seen once the second turn has been sent', async () => {
  freshBrowser(DEMO.agents);
  const u = userEvent.setup();
  renderConsole('/runs/echo-assistant');
  await u.type(await screen.findByLabelText('Message 1 text'), 'first');
  await startRun(u, screen.getByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(lastTurnStatus()).toBe('Done'), { timeout: 20_000 });
  await u.type(await within(runRegion()).findByLabelText(/^Reply to /), 'second');
  await u.click(within(runRegion()).getByRole('button', { name: 'Send reply' }));
  await waitFor(() => expect(turnItems()).toHaveLength(2));
  await waitFor(() => expect(lastTurnStatus()).toBe('Done'), { timeout: 20_000 });

  const first = turnItems()[0]!;
  // The first turn streamed events (its head says how many); its details offer them.
  expect(first.querySelector('.turn-meta')!.textContent).toMatch(/\d+ events/);
  await u.click(within(first).getByText('Events, timeline and raw answer'));
  const details = first.querySelector('details')!;
  const offered =
    within(details).queryByRole('button', { name: /^Show its [\d,]+ events$/ }) ?? within(details).queryByRole('listbox') ?? within(details).queryByLabelText('Events');
  expect(offered, details.textContent ?? '').not.toBeNull();
});
