/**
 * Runs v3: one run model for stream, wait and durable runs. Each test is a bug found on the
 * runs page before it (commit 8e37cee), written first against that code, where it failed.
 * Every request goes to the real reference service; `slowNetwork` only holds an answer back
 * or stands in for an instance that answers wrongly.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { wipeHistory } from '../db/history';
import { DEMO_EVERYTHING, servicePosts } from '../test-support/reference-service';
import { slowNetwork } from '../test-support/slow-network';
import { DEMO, freshBrowser, renderConsole, settleConsole, startRun } from './test-console';

let restore: (() => void) | undefined;
beforeEach(async () => {
  await wipeHistory();
});
afterEach(async () => {
  await settleConsole();
  restore?.();
  restore = undefined;
  cleanup();
});

type User = ReturnType<typeof userEvent.setup>;

const runRegion = () => screen.getByRole('region', { name: 'Run' });
const headStatus = () => within(runRegion()).getAllByRole('status')[0]!;
const history = () => screen.getByRole('region', { name: 'History' });

async function say(user: User, text: string) {
  const box = await screen.findByLabelText('Message 1 text');
  await user.clear(box);
  await user.type(box, text);
}

async function createDurableRun(token: string, agentId: string): Promise<string> {
  const res = await fetch(`/api/agents/${agentId}/runs`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ execution_mode: 'DURABLE', messages: [{ role: 'USER', content: [{ type: 'text', text: 'Go' }] }] }),
  });
  return ((await res.json()) as { run: { run_id: string } }).run.run_id;
}

it('history tells a durable run’s real outcome: a run that failed at the service says Failed, not Done', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/failing-job');
  await user.click(await screen.findByRole('radio', { name: /Durable/ }));
  await say(user, 'Export the rows');
  await user.click(screen.getByRole('button', { name: 'Start durable run' }));
  // The run fails at the service about a second later; history is read on the runs page.
  await new Promise((r) => setTimeout(r, 2_500));
  await user.click(within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: /Agent runs/ }));
  const row = await within(await screen.findByRole('region', { name: 'History' })).findByRole('listitem');
  await waitFor(() => expect(row.querySelector('.status')!.textContent).toBe('Failed'), { timeout: 20_000 });
  expect(row.textContent).not.toMatch(/Done/);
  expect(row.textContent).toMatch(/profile Reference service/);
  expect(within(row).getByRole('link', { name: /^run_/ }).getAttribute('href')).toMatch(/^\/runs\/failing-job\/run_/);
});

it('Run again loads the run exactly (agent, API, mode, messages) into the form and sends nothing', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/echo-assistant');
  await say(user, 'Hello there');
  await startRun(user, screen.getByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(headStatus().textContent).toBe('Done'));
  await within(history()).findByRole('listitem');

  // Another agent, with Durable chosen for it.
  await user.type(screen.getByRole('combobox', { name: 'Agent' }), 'Expense');
  await user.click(await screen.findByRole('option', { name: /Expense Filer/ }));
  await user.click(await screen.findByRole('radio', { name: /Durable/ }));
  const posts = (await servicePosts()).length;

  await user.click(within(history()).getByRole('button', { name: 'Run again…' }));
  await screen.findByRole('heading', { name: /Echo Assistant/ });
  expect(screen.getByRole<HTMLInputElement>('radio', { name: /Stream/ }).checked).toBe(true);
  expect(screen.getByRole<HTMLInputElement>('radio', { name: /Current/ }).checked).toBe(true);
  expect(screen.getByRole('button', { name: 'Run and stream' })).toBeTruthy();
  expect((await screen.findByLabelText<HTMLTextAreaElement>('Message 1 text')).value).toBe('Hello there');
  expect(screen.getByRole('note', { name: 'Loaded from history' }).textContent).toMatch(/Nothing is sent until you run it/);
  await new Promise((r) => setTimeout(r, 300));
  expect((await servicePosts()).length).toBe(posts);
});

it('a page that was left does not navigate when its durable run’s 201 arrives', async () => {
  freshBrowser(DEMO.agents);
  restore = slowNetwork({ match: (url, method) => method === 'POST' && url.endsWith('/api/agents/expense-filer/runs'), delayMs: 800 }).restore;
  const user = userEvent.setup();
  renderConsole('/runs/expense-filer');
  await user.click(await screen.findByRole('radio', { name: /Durable/ }));
  await say(user, 'File my receipts');
  await user.click(screen.getByRole('button', { name: 'Start durable run' }));
  await user.click(within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: 'Connection' }));
  await screen.findByRole('heading', { name: 'Profiles' });
  await new Promise((r) => setTimeout(r, 1_500));
  expect(screen.getByRole('heading', { name: 'Profiles' })).toBeTruthy();
  expect(screen.queryByRole('heading', { name: /Durable run/ })).toBeNull();
});

it('switching profile while a cancel is in flight shows nothing of one token’s run under the other, which stops reading it', async () => {
  freshBrowser(DEMO.agents, {
    profiles: [
      { id: 'reference', label: 'Reference service', mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} },
      { id: 'second', label: 'Second token', mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} },
    ],
    activeId: 'reference',
    screenShare: false,
  });
  sessionStorage.setItem('mac.token.second', JSON.stringify(DEMO_EVERYTHING));
  const runId = await createDurableRun(DEMO.agents, 'long-runner');
  const network = slowNetwork({ match: (url, method) => method === 'POST' && url.endsWith('/cancellations'), delayMs: 800 });
  restore = network.restore;
  const user = userEvent.setup();
  renderConsole(`/runs/long-runner/${runId}`);
  await waitFor(() => expect(screen.getByRole('status', { name: 'Run state' }).textContent).toBe('Running'), { timeout: 20_000 });
  await user.click(screen.getByRole('button', { name: 'Cancel run…' }));
  await user.click(screen.getByRole('button', { name: 'Yes, cancel the run' }));
  await user.selectOptions(screen.getByLabelText('Profile'), 'second');
  await screen.findByRole('heading', { name: `No run “${runId}” for agent “long-runner”` });
  // The first profile's cancellation answers now; nothing of it shows under the second.
  await new Promise((r) => setTimeout(r, 1_500));
  expect(screen.getByRole('heading', { name: `No run “${runId}” for agent “long-runner”` })).toBeTruthy();
  expect(screen.queryByRole('status', { name: 'Run state' })).toBeNull();
  expect(screen.queryByText('Cancelling')).toBeNull();
  const secondReads = () => network.sent.filter((s) => s.method === 'GET' && s.url.endsWith(`/runs/${runId}`) && s.authorization === `Bearer ${DEMO_EVERYTHING}`).length;
  const reads = secondReads();
  await new Promise((r) => setTimeout(r, 2_500));
  expect(secondReads()).toBe(reads);
  expect(reads).toBeLessThanOrEqual(1);
});

it('a 201 without a run id is a clear failure, never a link to an undefined run', async () => {
  freshBrowser(DEMO.agents);
  restore = slowNetwork({
    match: (url, method) => method === 'POST' && url.endsWith('/api/agents/expense-filer/runs'),
    // An instance that answers 201 with no run in its body.
    answer: (real) => new Response(JSON.stringify({ request_id: 'req_broken' }), { status: real.status, headers: { 'content-type': 'application/json' } }),
  }).restore;
  const user = userEvent.setup();
  renderConsole('/runs/expense-filer');
  await user.click(await screen.findByRole('radio', { name: /Durable/ }));
  await say(user, 'File my receipts');
  await startRun(user, screen.getByRole('button', { name: 'Start durable run' }));
  await waitFor(() => expect(headStatus().textContent).toBe('Failed'));
  expect(within(runRegion()).getByRole('heading', { name: /The answer has no run id/ })).toBeTruthy();
  for (const link of screen.queryAllByRole('link')) expect(link.getAttribute('href')).not.toMatch(/undefined/);
});

it('a stream refused because the agent needs a durable run offers Run as durable; one click each starts it and approves it', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/expense-filer');
  await say(user, 'File my travel receipts');
  // Its tools ask for approval, so the page starts it in Durable mode: a user who chooses Stream anyway is refused, and offered durable.
  await screen.findByRole('note', { name: 'Approval' });
  await user.click(screen.getByRole('radio', { name: /Stream/ }));
  await startRun(user, await screen.findByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(headStatus().textContent).toBe('Refused'));
  await user.click(within(runRegion()).getByRole('button', { name: 'Run as durable' }));
  await waitFor(() => expect(headStatus().textContent).toBe('Waiting for your approval'), { timeout: 20_000 });
  expect(screen.getByRole<HTMLInputElement>('radio', { name: /Durable/ }).checked).toBe(true);
  // The decision sits below the output: the head says the run waits for it and takes the user there, its first choice focused.
  await user.click(within(runRegion()).getByRole('button', { name: 'Go to the approval' }));
  expect(document.activeElement).toBe(within(runRegion()).getByRole('button', { name: 'Approve' }));
  await user.keyboard('{Enter}');
  await waitFor(() => expect(headStatus().textContent).toBe('Succeeded'), { timeout: 20_000 });
  // The decision's buttons went with their card: focus is on the run's state, not the page's body.
  expect(document.activeElement).toBe(within(runRegion()).getByRole('status', { name: 'Run state' }));
  const states = within(runRegion()).getByRole('list', { name: 'States seen' });
  expect(states.textContent).toMatch(/You approved “Submit expense report”/);
  // What was said while the run went on is gone once it ended.
  expect(within(runRegion()).queryByText(/decisions were accepted/)).toBeNull();
  expect(within(runRegion()).queryByRole('region', { name: 'Cancel' })).toBeNull();
  // Both are turns of one conversation: the durable run was asked at the point the stream was refused.
  await waitFor(() => expect(within(history()).getAllByRole('listitem')[0]!.querySelector('.status')!.textContent).toBe('Succeeded'));
  // An earlier test's last history write may land after this test cleared history (its store's
  // writes are queued): only this conversation's rows count, told apart by their question.
  const rows = within(history()).getAllByRole('listitem').filter((li) => /File my travel receipts/.test(li.textContent ?? ''));
  expect(rows.map((r) => r.textContent)).toHaveLength(1);
  expect(rows[0]!.textContent).toMatch(/File my travel receipts · conversation, 2 turns/);
  const turns = within(runRegion()).getByRole('list', { name: /turn/i });
  expect(within(turns).getByRole('group', { name: 'Branches at this turn' }).textContent).toMatch(/Branch 2 of 2/);
  await userEvent.setup().click(within(turns).getByRole('button', { name: 'Previous branch' }));
  await waitFor(() => expect(runRegion().querySelector('.turn-meta')!.textContent).toMatch(/current API, stream/));
  expect(runRegion().querySelector('.turn-meta .status')!.textContent).toBe('Refused');
});

it('API and mode are remembered per agent: Durable chosen for one agent does not carry over to the next', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  // An agent that starts in Stream mode (its tools ask for no approval), so Durable is a choice made here.
  renderConsole('/runs/long-runner');
  await screen.findByRole('note', { name: 'Approval' });
  await user.click(await screen.findByRole('radio', { name: /Durable/ }));
  await user.type(screen.getByRole('combobox', { name: 'Agent' }), 'Echo');
  await user.click(await screen.findByRole('option', { name: /Echo Assistant/ }));
  await screen.findByRole('heading', { name: /Echo Assistant/ });
  expect(screen.getByRole<HTMLInputElement>('radio', { name: /Stream/ }).checked).toBe(true);
  expect(screen.getByRole('button', { name: 'Run and stream' })).toBeTruthy();
  await user.type(screen.getByRole('combobox', { name: 'Agent' }), 'Long');
  await user.click(await screen.findByRole('option', { name: /Long Runner/ }));
  await screen.findByRole('heading', { name: /Long Runner/ });
  expect(screen.getByRole<HTMLInputElement>('radio', { name: /Durable/ }).checked).toBe(true);
});

it('offers fields typed by hand only where they help: not for a token refused the agent (403)', async () => {
  freshBrowser(DEMO.global); // no agents.run
  renderConsole('/runs/hr-policy-form');
  const panel = await screen.findByRole('heading', { name: 'The agent’s input schema could not be loaded' });
  expect(panel.parentElement!.textContent).toMatch(/403/);
  expect(screen.queryByRole('button', { name: 'Add input fields by hand' })).toBeNull();
  expect(panel.parentElement!.textContent).toMatch(/agents\.run/);
});

it('every run’s answer shows its status, time and size', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/echo-assistant');
  await user.click(await screen.findByRole('radio', { name: /Wait/ }));
  await say(user, 'Hi');
  await startRun(user, screen.getByRole('button', { name: 'Run and wait' }));
  await waitFor(() => expect(headStatus().textContent).toBe('Done'));
  expect(runRegion().querySelector('.response-summary')!.textContent).toMatch(/^Status 200 · \d+ ms · [\d.,]+\s?(B|kB)/);
});

it('a stopped run has one duration: the response head, the counters and history say the same number', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/slow-storyteller');
  await say(user, 'A story');
  await startRun(user, screen.getByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(headStatus().textContent).toBe('Streaming…'));
  await new Promise((r) => setTimeout(r, 900));
  await user.click(screen.getByRole('button', { name: 'Stop' }));
  await waitFor(() => expect(headStatus().textContent).toBe('Stopped'));
  const head = headStatus().nextElementSibling!.textContent!;
  const row = await within(history()).findByText((_, el) => el?.tagName === 'LI' && /Slow Storyteller/.test(el.textContent ?? ''));
  const ms = /^([\d,.\s\u202f]+) ms$/.exec(head)![1]!.replace(/\D/g, '');
  expect(row.textContent!.replace(/[,.\s\u202f]/g, '')).toContain(`·${ms}ms`);
  const counters = within(runRegion().querySelector<HTMLElement>('dl.counters')!).getByText('Duration', { selector: 'dt' }).nextElementSibling!;
  expect(counters.textContent!.replace(/\D/g, '')).toBe(ms);
});

it('what was opened in one run’s timeline does not open itself in the next run', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/echo-assistant');
  await say(user, 'one two three');
  await startRun(user, screen.getByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(headStatus().textContent).toBe('Done'));
  const timeline = within(runRegion()).getByRole('listbox', { name: /events$/ });
  await user.click(within(timeline).getAllByRole('option')[0]!);
  expect(within(runRegion()).getByLabelText(/^Event \d+$/)).toBeTruthy();
  await say(user, 'four five');
  await startRun(user, screen.getByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(headStatus().textContent).toBe('Done'));
  expect(within(runRegion()).getByText(/four five|five/, { selector: '.transcript *' })).toBeTruthy();
  expect(within(runRegion()).queryByLabelText(/^Event \d+$/)).toBeNull();
});

it('another agent’s finished run is not shown under the agent chosen next; coming back shows it again', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/echo-assistant');
  await say(user, 'hello');
  await startRun(user, screen.getByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(headStatus().textContent).toBe('Done'), { timeout: 20_000 });
  await user.type(screen.getByRole('combobox', { name: 'Agent' }), 'Slow');
  await user.click(await screen.findByRole('option', { name: /Slow Storyteller/ }));
  await screen.findByRole('heading', { name: /Slow Storyteller/ });
  await waitFor(() => expect(headStatus().textContent).toBe('No run yet'));
  await user.type(screen.getByRole('combobox', { name: 'Agent' }), 'Echo');
  await user.click(await screen.findByRole('option', { name: /Echo Assistant/ }));
  await waitFor(() => expect(headStatus().textContent).toBe('Done'));
});
