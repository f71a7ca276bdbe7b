/**
 * A conversation with two branches: the response head (the run's status and duration at the
 * top of the response side) tells the run of the branch shown, not the newest branch's.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { clearHistory, listRuns } from '../db/history';
import { DEMO, freshBrowser, renderConsole, settleConsole } from './test-console';

beforeEach(async () => {
  await clearHistory();
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

const runRegion = () => screen.getByRole('region', { name: 'Run' });
const head = () => runRegion().querySelector('.response-head')!;
/** The head's duration ("1,234 ms"), shown once the run it tells has ended. */
const headDuration = () => head().querySelector('.toolbar .muted')?.textContent;
/** The shown leaf turn's meta line: its status, duration, events. */
const leafMeta = () => [...runRegion().querySelectorAll('.turn-meta')].at(-1)!.textContent!;
const durationIn = (meta: string) => /· ([\d,]+ ms)/.exec(meta)?.[1];

it('on Branch 1, the head shows Branch 1’s run, and on Branch 2 Branch 2’s', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/echo-assistant');
  await user.type(await screen.findByLabelText('Message 1 text'), 'Hi');
  await user.click(screen.getByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(leafMeta()).toMatch(/ · Done · /), { timeout: 20_000 });
  const first = durationIn(leafMeta());

  // The question edited into a long one: a second branch whose run lasts several times longer
  // (the echo assistant answers a word per event, 20 ms apart).
  await user.click(within(runRegion()).getByRole('button', { name: 'Edit' }));
  const editor = within(runRegion()).getByLabelText(/^Edit the question/);
  await user.clear(editor);
  await user.type(editor, Array.from({ length: 60 }, (_, i) => `word${i}`).join(' '));
  await user.click(within(runRegion()).getByRole('button', { name: 'Send as a new branch' }));
  await within(runRegion()).findByText('Branch 2 of 2');
  await waitFor(() => expect(leafMeta()).toMatch(/ · Done · /), { timeout: 20_000 });
  const second = durationIn(leafMeta());
  expect(second).not.toBe(first);
  await waitFor(() => expect(headDuration()).toBe(second));

  await user.click(within(runRegion()).getByRole('button', { name: 'Previous branch' }));
  await within(runRegion()).findByText('Branch 1 of 2');
  expect(durationIn(leafMeta())).toBe(first);
  expect(headDuration()).toBe(first);
  expect(within(head() as HTMLElement).getAllByRole('status')[0]!.textContent).toBe('Done');

  await user.click(within(runRegion()).getByRole('button', { name: 'Next branch' }));
  await within(runRegion()).findByText('Branch 2 of 2');
  expect(headDuration()).toBe(second);
});

it('looking at Branch 1 while Branch 2’s run streams, the head tells Branch 1’s run and Stop still stops the one in flight', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/slow-storyteller');
  await user.type(await screen.findByLabelText('Message 1 text'), 'A story');
  await user.click(screen.getByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(leafMeta()).toMatch(/ · Streaming… /), { timeout: 20_000 });
  await user.click(within(head() as HTMLElement).getByRole('button', { name: 'Stop' }));
  await waitFor(() => expect(leafMeta()).toMatch(/ · Stopped · /));

  await user.click(within(runRegion()).getByRole('button', { name: 'Edit' }));
  const editor = within(runRegion()).getByLabelText(/^Edit the question/);
  await user.clear(editor);
  await user.type(editor, 'Another story');
  await user.click(within(runRegion()).getByRole('button', { name: 'Send as a new branch' }));
  await within(runRegion()).findByText('Branch 2 of 2');
  await waitFor(() => expect(leafMeta()).toMatch(/ · Streaming… /), { timeout: 20_000 });

  await user.click(within(runRegion()).getByRole('button', { name: 'Previous branch' }));
  await within(runRegion()).findByText('Branch 1 of 2');
  expect(within(head() as HTMLElement).getAllByRole('status')[0]!.textContent).toBe('Stopped');
  const stop = within(head() as HTMLElement).getByRole<HTMLButtonElement>('button', { name: 'Stop' });
  expect(stop.disabled).toBe(false);
  await user.click(stop);
  await user.click(within(runRegion()).getByRole('button', { name: 'Next branch' }));
  await waitFor(() => expect(leafMeta()).toMatch(/ · Stopped · /));
});

// New-user review (u6): back from a tool's consent page (a new page load), the head said
// "Conversation from history" beside a turn that was Refused. A conversation opened by its
// address holds no run in the page; its head tells its newest turn as history has it.
it('a conversation opened by its address after a reload: the head tells its newest turn’s status', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/calendar-helper');
  await user.type(await screen.findByLabelText('Message 1 text'), 'Book a meeting');
  await user.click(screen.getByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(leafMeta()).toMatch(/ · Refused · /), { timeout: 20_000 });
  await settleConsole();
  cleanup();

  const [turn] = await listRuns();
  // As after a reload: a new page, whose store holds no run, opens the conversation's address.
  renderConsole(`/runs/calendar-helper/thread/${turn!.request.thread!.id}`);
  await waitFor(() => expect(leafMeta()).toMatch(/ · Refused · /), { timeout: 20_000 });
  const status = within(head() as HTMLElement).getAllByRole('status')[0]!;
  expect({ text: status.textContent, run: status.dataset.runId }).toEqual({ text: 'Refused', run: turn!.id });
});
