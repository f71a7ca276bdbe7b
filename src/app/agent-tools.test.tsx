/**
 * Issue 25 on the runs page: an agent's tools listed with what each needs, whether the agent
 * may pause for approval said before any run, and an agent whose tools ask for approval
 * starting in Durable mode (or offering it when another mode was chosen), against the
 * reference service's agents.
 */
import { cleanup, screen, within } from '@testing-library/react';
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

const tools = () => screen.getByRole('region', { name: 'Tools' });
const approval = () => within(tools()).getByRole('note', { name: 'Approval' });
const radio = (name: RegExp) => screen.getByRole<HTMLInputElement>('radio', { name });

it('lists each tool with its type, the authorization it needs, whether it writes and whether its setup is finished', async () => {
  freshBrowser(DEMO.agents);
  renderConsole('/runs/expense-filer');
  const submit = await within(await screen.findByRole('region', { name: 'Tools' })).findByRole('listitem', { name: 'Submit expense report' });
  expect(submit.textContent).toBe(
    'Submit expense report finance.submit_expense_reportTypeACTIONAuthorizationan administrator’s sign-in (OAuth)Writesyes (EXECUTION)SetupfinishedKnowledgeNEUTRAL_KNOWLEDGE',
  );
  const read = within(tools()).getByRole('listitem', { name: 'Read receipts' });
  expect(read.textContent).toContain('Writesno');
  expect(within(tools()).getByRole('list', { name: '2 tools' })).toBeTruthy();
});

it('an agent whose tools ask for approval starts in Durable mode and says so; another mode chosen before is kept, and Durable offered', async () => {
  const user = userEvent.setup();
  freshBrowser(DEMO.agents);
  const { unmount } = renderConsole('/runs/trip-planner');
  await within(await screen.findByRole('region', { name: 'Tools' })).findByRole('note', { name: 'Approval' });
  expect(approval().textContent).toBe(
    'Approval: May pause for your approval before Book flight, Book hotel: tools that write. Only a durable run can wait for a decision; Durable is chosen, so the run waits for you under Run.',
  );
  expect(radio(/^Durable/).checked).toBe(true);
  expect(screen.getByRole('button', { name: 'Start durable run' })).toBeTruthy();

  await user.click(radio(/^Stream/));
  expect(approval().textContent).toContain('a stream or wait run would be refused or cut short.');
  unmount();

  // Chosen, so kept: the page offers Durable instead of switching back.
  renderConsole('/runs/trip-planner');
  const offer = await within(await screen.findByRole('note', { name: 'Approval' })).findByRole('button', { name: 'Use Durable mode' });
  expect(radio(/^Stream/).checked).toBe(true);
  await user.click(offer);
  expect(radio(/^Durable/).checked).toBe(true);
  expect(within(approval()).queryByRole('button')).toBeNull();
});

it('on the legacy API, which has no durable runs, it offers the current API in Durable mode', async () => {
  const user = userEvent.setup();
  freshBrowser(DEMO.agents);
  localStorage.setItem('mac.runSettings.expense-filer', JSON.stringify({ flavour: 'legacy', mode: 'wait', timeoutSec: '' }));
  renderConsole('/runs/expense-filer');
  const note = await screen.findByRole('note', { name: 'Approval' });
  expect(note.textContent).toContain('durable runs exist only on the current API.');
  await user.click(within(note).getByRole('button', { name: 'Use the current API, Durable' }));
  expect(screen.getByRole<HTMLInputElement>('radio', { name: /^Current/ }).checked).toBe(true);
  expect(radio(/^Durable/).checked).toBe(true);
});

it('an agent without tools, or whose tools only read, does not pause for approval and starts in Stream mode', async () => {
  freshBrowser(DEMO.agents);
  const { unmount } = renderConsole('/runs/echo-assistant');
  expect((await screen.findByRole('note', { name: 'Approval' })).textContent).toBe('Approval: Does not pause for approval: it uses no tools.');
  expect(radio(/^Stream/).checked).toBe(true);
  unmount();
  renderConsole('/runs/calendar-helper');
  expect((await screen.findByRole('note', { name: 'Approval' })).textContent).toBe('Approval: Does not pause for approval: none of its tools writes.');
  expect(within(tools()).getAllByRole('listitem').map((li) => li.getAttribute('aria-label'))).toEqual(['List calendar events', 'Find free time', 'Search Outlook mail']);
  expect(radio(/^Stream/).checked).toBe(true);
});
