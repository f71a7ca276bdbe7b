import './styles.css';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import { userEvent as browserUser } from 'vitest/browser';
import { DEMO, freshBrowser, renderConsole, settleConsole } from './test-console';
import { wipeHistory } from '../db/history';
import { slowNetwork } from '../test-support/slow-network';
import { AGENT_OPTIONS_SHOWN } from '../features/runs/components/agent-picker';

let restore: (() => void) | undefined;
afterEach(async () => {
  restore?.();
  restore = undefined;
  await settleConsole();
  cleanup();
  await wipeHistory();
});

function picker() {
  return screen.getByRole('combobox', { name: 'Agent' });
}

it('searches agents by name as you type and opens the one you click', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs');
  await user.type(await screen.findByRole('combobox', { name: 'Agent' }), 'story');
  const list = await screen.findByRole('listbox', { name: 'Agents' });
  await waitFor(() => expect(within(list).getAllByRole('option').map((o) => o.textContent)).toEqual([expect.stringMatching(/^Slow Storyteller/), 'Open agent id story']));
  await user.click(within(list).getByRole('option', { name: /Slow Storyteller/ }));
  expect(await screen.findByRole('heading', { name: /Slow Storyteller/ })).toBeTruthy();
  expect(picker().getAttribute('aria-expanded')).toBe('false');
  expect((picker() as HTMLInputElement).value).toBe('');
});

it('moves through the matches with the arrow keys and opens one with Enter', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs');
  await user.type(await screen.findByRole('combobox', { name: 'Agent' }), 'e');
  const list = await screen.findByRole('listbox', { name: 'Agents' });
  // The list first shows every agent, then (after the 200 ms debounce) the answer for "e":
  // arrows pressed in between would move through a list about to be replaced.
  await new Promise((r) => setTimeout(r, 400));
  await waitFor(() => {
    expect(within(list).queryByText('Searching…')).toBeNull();
    expect(within(list).getAllByRole('option').length).toBeGreaterThan(2);
  });
  await user.keyboard('{ArrowDown}{ArrowDown}');
  // Read the options as they are now: the search's answer may have drawn the list anew since.
  const second = () => within(list).getAllByRole('option')[1]!;
  await waitFor(() => {
    expect(second().getAttribute('aria-selected')).toBe('true');
    expect(picker().getAttribute('aria-activedescendant')).toBe(second().id);
  });
  const name = second().querySelector('.option-name')!.textContent!;
  await user.keyboard('{Enter}');
  expect(await screen.findByRole('heading', { name: new RegExp(name) })).toBeTruthy();
});

it('opens a typed agent id that matches no name, and Escape closes the list without stopping anything', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs');
  await user.type(await screen.findByRole('combobox', { name: 'Agent' }), 'firehose');
  await screen.findByRole('option', { name: /^Firehose/ });
  await user.keyboard('{Escape}');
  expect(picker().getAttribute('aria-expanded')).toBe('false');
  expect((picker() as HTMLInputElement).value).toBe('firehose');
  await user.keyboard('{Escape}');
  expect((picker() as HTMLInputElement).value).toBe('');

  await user.type(picker(), 'calendar-helper{Enter}');
  expect(await screen.findByRole('heading', { name: /Calendar Helper/ })).toBeTruthy();
});

it('says why the search failed when the token may not list agents', async () => {
  freshBrowser(DEMO.global);
  const user = userEvent.setup();
  renderConsole('/runs');
  await user.type(await screen.findByRole('combobox', { name: 'Agent' }), 'echo');
  const list = await screen.findByRole('listbox', { name: 'Agents' });
  expect(await within(list).findByText(/Search failed: 403/)).toBeTruthy();
  // The typed id can still be opened.
  expect(within(list).getByRole('option', { name: 'Open agent id echo' })).toBeTruthy();
});

it('Enter on part of one agent’s name, matching no other, opens that agent rather than an id nobody has', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs');
  await user.type(await screen.findByRole('combobox', { name: 'Agent' }), 'calendar');
  await screen.findByRole('option', { name: /^Calendar Helper/ });
  await user.keyboard('{Enter}');
  expect(await screen.findByRole('heading', { name: /Calendar Helper/ })).toBeTruthy();
  expect(screen.queryByText(/No agent “calendar”/)).toBeNull();
});

/** "expense" pasted into the picker, reached by a click (the list opens and searches) or by keyboard (nothing searched yet). */
async function pasteExpense(reach: 'click' | 'keyboard') {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs');
  const box = await screen.findByRole('combobox', { name: 'Agent' });
  if (reach === 'click') await user.click(box);
  else box.focus();
  await user.paste('expense');
  return { user, box };
}

async function expectExpenseFiler() {
  expect(await screen.findByRole('heading', { name: /Expense Filer/ })).toBeTruthy();
  expect(screen.queryByText(/No agent “expense”/)).toBeNull();
}

it('Enter on a pasted part of one agent’s name opens that agent too', async () => {
  const { user } = await pasteExpense('click');
  await screen.findByRole('option', { name: /^Expense Filer/ });
  await user.keyboard('{Enter}');
  await expectExpenseFiler();
});

it('Enter at once on a pasted part of one agent’s name, before the search answered, opens that agent, not an id nobody has', async () => {
  const { user } = await pasteExpense('keyboard');
  await user.keyboard('{Enter}');
  await expectExpenseFiler();
});

it('a slow search answered after the user opened another agent does not take the page back to the first pick', async () => {
  const { user, box } = await pasteExpense('keyboard');
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

it('while a slow search answers, the last list stays narrowed to what is typed; arrows move through it, the highlight stays on its agent, and a click opens the agent it showed', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs');
  await user.click(await screen.findByRole('combobox', { name: 'Agent' }));
  const list = await screen.findByRole('listbox', { name: 'Agents' });
  const names = () => within(list).queryAllByRole('option').map((o) => o.querySelector('.option-name')?.textContent ?? o.textContent);
  await waitFor(() => expect(names()).toContain('Echo Assistant'));

  // Every search from now on takes two seconds to answer.
  let asked = 0;
  restore = slowNetwork({ match: (url, method) => method === 'POST' && url.endsWith('/agents/search') && ++asked > 0, delayMs: 2_000 }).restore;
  const highlighted = () => list.querySelector('[aria-selected=true] .option-name')?.textContent;
  const expectSearching = async (typedSoFar: string) => {
    await waitFor(() => expect(asked).toBeGreaterThan(0));
    expect(within(list).getByText('Searching…')).toBeTruthy();
    const shown = names().filter((n) => !n?.startsWith('Open agent id'));
    expect(shown.length).toBeGreaterThan(0);
    for (const n of shown) expect(n!.toLowerCase()).toContain(typedSoFar);
  };

  await user.type(picker(), 'e');
  await expectSearching('e');
  for (let i = 0; i < 20 && highlighted() !== 'Echo Assistant'; i++) await user.keyboard('{ArrowDown}');
  expect(highlighted()).toBe('Echo Assistant');
  // The answer for "e" redraws the list: the highlight is still on the agent it was on.
  await waitFor(() => expect(within(list).queryByText('Searching…')).toBeNull(), { timeout: 10_000 });
  expect(highlighted()).toBe('Echo Assistant');
  expect(picker().getAttribute('aria-activedescendant')).toBe(list.querySelector('[aria-selected=true]')!.id);

  asked = 0;
  await user.type(picker(), 'cho');
  await expectSearching('echo');
  expect(names().filter((n) => !n?.startsWith('Open agent id'))).toEqual(['Echo Assistant']);
  await user.click(within(list).getByRole('option', { name: /Echo Assistant/ }));
  expect(await screen.findByRole('heading', { name: /Echo Assistant/ })).toBeTruthy();
});

/** Every agent search from now on is answered with `body` in place of the service's answer. */
function searchAnswers(body: unknown) {
  restore = slowNetwork({
    match: (url, method) => method === 'POST' && url.endsWith('/agents/search'),
    answer: () => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } }),
  }).restore;
}

it('an instance answering the same agent id twice: the arrows still reach every agent, and Enter opens the one highlighted', async () => {
  freshBrowser(DEMO.agents);
  const agent = (agent_id: string, name: string) => ({ agent_id, name, capabilities: { 'ap.io.messages': true } });
  searchAnswers({ agents: [agent('echo-assistant', 'Echo Twice A'), agent('echo-assistant', 'Echo Twice B'), agent('calendar-helper', 'Calendar Helper')] });
  const user = userEvent.setup();
  renderConsole('/runs');
  await user.click(await screen.findByRole('combobox', { name: 'Agent' }));
  const list = await screen.findByRole('listbox', { name: 'Agents' });
  await waitFor(() => expect(within(list).getAllByRole('option').length).toBeGreaterThan(0));
  // One option per agent id: the second answer for the same id is not a second option.
  expect(within(list).getAllByRole('option').map((o) => o.querySelector('code')?.textContent)).toEqual(['echo-assistant', 'calendar-helper']);
  await user.keyboard('{ArrowDown}{ArrowDown}');
  expect(list.querySelector('[aria-selected=true] .option-name')?.textContent).toBe('Calendar Helper');
  await user.keyboard('{Enter}');
  expect(await screen.findByRole('heading', { name: /Calendar Helper/ })).toBeTruthy();
});

it('an instance answering agents without names or capabilities, or not a list: the picker says so, and a typed id still opens', async () => {
  freshBrowser(DEMO.agents);
  searchAnswers({ agents: [{ agent_id: 'calendar-helper' }, { name: 'No id' }, null, 7, { agent_id: 'echo-assistant', name: 42, capabilities: 'x' }] });
  const user = userEvent.setup();
  renderConsole('/runs');
  await user.click(await screen.findByRole('combobox', { name: 'Agent' }));
  const list = await screen.findByRole('listbox', { name: 'Agents' });
  // What has an id is listed under its id; what has none cannot be opened and is left out.
  await waitFor(() => expect(within(list).getAllByRole('option').map((o) => o.querySelector('code')?.textContent)).toEqual(['calendar-helper', 'echo-assistant']));
  restore?.();
  searchAnswers({ agents: 'all of them' });
  await user.type(picker(), 'cal');
  expect(await within(list).findByText(/Search failed: .*not a list/)).toBeTruthy();
  await user.clear(picker());
  await user.type(picker(), 'calendar-helper{Enter}');
  expect(await screen.findByRole('heading', { name: /Calendar Helper/ })).toBeTruthy();
});

it('an instance answering thousands of agents: the list draws the first few and says how many more, and Enter on a name beyond them opens that agent', async () => {
  freshBrowser(DEMO.agents);
  const agents = Array.from({ length: 5_000 }, (_, i) => ({ agent_id: `bulk-${i}`, name: `Bulk ${i} \u202e<b>é\u0301`, capabilities: {} }));
  agents[4_000] = { agent_id: 'calendar-helper', name: 'Calendar Helper', capabilities: {} };
  searchAnswers({ agents });
  const user = userEvent.setup();
  renderConsole('/runs');
  await user.click(await screen.findByRole('combobox', { name: 'Agent' }));
  const list = await screen.findByRole('listbox', { name: 'Agents' });
  // Five thousand options drawn held the tab for seconds per key pressed.
  expect(await within(list).findByText(/4,950 more: type more of a name to narrow/)).toBeTruthy();
  expect(within(list).getAllByRole('option')).toHaveLength(AGENT_OPTIONS_SHOWN);
  await user.keyboard('{ArrowUp}');
  expect(list.querySelector('[aria-selected=true] code')?.textContent).toBe(`bulk-${AGENT_OPTIONS_SHOWN - 1}`);
  await user.type(picker(), 'Calendar Helper{Enter}');
  expect(await screen.findByRole('heading', { name: /Calendar Helper/ })).toBeTruthy();
});

it('an instance answering an agent without its name or capabilities: the agent’s page shows it under its id, not an error page', async () => {
  freshBrowser(DEMO.agents);
  restore = slowNetwork({
    match: (url, method) => method === 'GET' && /\/agents\/calendar-helper$/.test(url),
    answer: () => new Response(JSON.stringify({ agent: { agent_id: 'calendar-helper', description: 7 } }), { status: 200, headers: { 'content-type': 'application/json' } }),
  }).restore;
  renderConsole('/runs/calendar-helper');
  expect(await screen.findByText(/Takes: input form/)).toBeTruthy();
  expect(screen.getByRole('heading', { name: 'calendar-helper' })).toBeTruthy();
});

it('Enter’s search answered after the user switched profile opens nothing on the other profile', async () => {
  freshBrowser(DEMO.agents, {
    profiles: [
      { id: 'reference', label: 'Reference service', mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} },
      { id: 'direct', label: 'Direct, no URL', mode: 'direct', target: '', scopes: [], remember: false, outcomes: {} },
    ],
    activeId: 'reference',
    screenShare: false,
  });
  const user = userEvent.setup();
  renderConsole('/runs');
  const box = await screen.findByRole('combobox', { name: 'Agent' });
  expect(screen.getByText('Choose an agent above to build its run.')).toBeTruthy();
  // The search Enter asks for is held until the user has switched profile.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let answered!: () => void;
  const done = new Promise<void>((r) => (answered = r));
  restore = slowNetwork({
    match: (url, method) => method === 'POST' && url.endsWith('/agents/search'),
    answer: async () => {
      await held;
      answered();
    },
  }).restore;
  box.focus();
  await user.paste('expense');
  await user.keyboard('{Enter}');
  await user.selectOptions(screen.getByLabelText('Profile'), 'direct');
  expect(await within(screen.getByRole('main')).findByRole('heading', { name: 'Connection not set up' })).toBeTruthy();
  release();
  await done;
  // Time for the answer to be read and acted on (too short a wait could only let the bug pass, never fail the fix).
  await new Promise((r) => setTimeout(r, 500));
  await user.selectOptions(screen.getByLabelText('Profile'), 'reference');
  expect(await screen.findByText('Choose an agent above to build its run.')).toBeTruthy();
  expect(screen.queryByRole('heading', { name: /Expense Filer/ })).toBeNull();
});

it('typed letters and arrows at once, before the search is asked: the list shown is already narrowed to what is typed, so Enter opens a match, never an agent the letters rule out', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs');
  await user.click(await screen.findByRole('combobox', { name: 'Agent' }));
  const list = await screen.findByRole('listbox', { name: 'Agents' });
  await waitFor(() => expect(within(list).getAllByRole('option').length).toBeGreaterThan(5));
  // Well within the 200 ms before the search for "fl" is asked: the full list was on screen.
  await user.keyboard('fl{ArrowDown}');
  const highlighted = list.querySelector('[aria-selected=true] .option-name')?.textContent;
  expect(highlighted).toBe('Flaky Reporter');
  await user.keyboard('{Enter}');
  expect(await screen.findByRole('heading', { name: /Flaky Reporter/ })).toBeTruthy();
});

it('Tab from the open list goes on to the next control: the scrolling list is no focus stop that vanishes under it', async () => {
  freshBrowser(DEMO.agents);
  renderConsole('/runs');
  const input = await screen.findByRole('combobox', { name: 'Agent' });
  input.focus();
  const list = await screen.findByRole('listbox', { name: 'Agents' });
  await waitFor(() => expect(within(list).getAllByRole('option').length).toBeGreaterThan(5));
  // A real Tab (Chromium's own focus order, where a scrolling box is a stop of its own).
  await browserUser.keyboard('{Tab}');
  await waitFor(() => expect(picker().getAttribute('aria-expanded')).toBe('false'));
  expect(document.activeElement).not.toBe(document.body);
  expect(document.activeElement).not.toBe(input);
});
