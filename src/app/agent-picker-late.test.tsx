/**
 * Enter before the search answered fetches the search and picks from it; the pick
 * must not land after the user has already moved on to another agent.
 */
import { cleanup, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import { DEMO, freshBrowser, renderConsole, settleConsole } from './test-console';
import { clearHistory } from '../features/agent-runs/model/history';
import { slowNetwork } from '../test-support/slow-network';

let restore: (() => void) | undefined;
afterEach(async () => {
  restore?.();
  restore = undefined;
  await settleConsole();
  cleanup();
  await clearHistory();
});

it('a slow search answered after the user opened another agent does not take the page back to the first pick', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs');
  const box = await screen.findByRole('combobox', { name: 'Agent' });
  box.focus();
  await user.paste('expense');
  // The next agent search (the one Enter asks for) is slow to answer.
  let armed = true;
  restore = slowNetwork({
    match: (url, method) => {
      if (!armed || method !== 'POST' || !url.endsWith('/agents/search')) return false;
      armed = false;
      return true;
    },
    delayMs: 1_500,
  }).restore;
  await user.keyboard('{Enter}');
  // Nothing happened yet; the user gives up on it and opens another agent by its id.
  await user.clear(box);
  await user.type(box, 'calendar-helper{Enter}');
  expect(await screen.findByRole('heading', { name: /Calendar Helper/ })).toBeTruthy();
  // The slow answer arrives.
  await new Promise((r) => setTimeout(r, 2_000));
  expect(screen.queryByRole('heading', { name: /Expense Filer/ })).toBeNull();
  expect(screen.getByRole('heading', { name: /Calendar Helper/ })).toBeTruthy();
});
