/**
 * Conversations: a messages agent's runs as turns of one thread. Every request goes to the
 * real reference service, and what each turn sent is read back from the service's own log
 * of run POSTs.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Message } from '../contract/agents';
import { wipeHistory } from '../db/history';
import { servicePosts } from '../test-support/reference-service';
import { DEMO, freshBrowser, renderConsole, settleConsole, startRun } from './test-console';

beforeEach(async () => {
  await wipeHistory();
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

type User = ReturnType<typeof userEvent.setup>;

const runRegion = () => screen.getByRole('region', { name: 'Run' });
const turns = () => within(runRegion()).getByRole('list', { name: 'Turns' });
const user = (text: string): Message => ({ role: 'USER', content: [{ type: 'text', text }] });
const echoWords = (q: string) =>
  `You asked: "${q}". This is the reference service's echo assistant, answering one word per event.`.split(' ').map((w, i, all) => (i < all.length - 1 ? `${w} ` : w));
const ai = (words: string[]): Message[] => words.map((text) => ({ role: 'GLEAN_AI', content: [{ type: 'text', text }] }));
/** A streamed answer goes back as the one message its fragments (a word per event) form. */
const answer = (q: string): Message[] => ai([echoWords(q).join('')]);

async function postsAfter(n: number) {
  return (await servicePosts()).slice(n);
}

async function firstTurn(u: User, text: string, agent = 'echo-assistant') {
  renderConsole(`/runs/${agent}`);
  const box = await screen.findByLabelText('Message 1 text');
  await u.type(box, text);
  await u.click(screen.getByRole('button', { name: /^Run and stream|^Run and wait|^Start durable run/ }));
}

async function reply(u: User, text: string, keyboard = false) {
  const box = await within(runRegion()).findByLabelText(/^Reply to /, {}, { timeout: 20_000 });
  await waitFor(() => expect(box.getAttribute('aria-describedby')).toBeTruthy());
  await u.type(box, text);
  if (keyboard) await u.keyboard('{Control>}{Enter}{/Control}');
  else await u.click(within(runRegion()).getByRole('button', { name: 'Send reply' }));
}

const turnItems = () => within(turns()).getAllByRole('listitem', { name: /^Turn/ });
const lastTurnStatus = () => [...runRegion().querySelectorAll('.turn-meta .status')].at(-1)?.textContent;

it('each turn sends the last request’s messages, the answer as received and the new question; the thread shows every turn', async () => {
  freshBrowser(DEMO.agents);
  const u = userEvent.setup();
  const before = (await servicePosts()).length;
  await firstTurn(u, 'first');
  await waitFor(() => expect(lastTurnStatus()).toBe('Done'), { timeout: 20_000 });
  await reply(u, 'second', true);
  await waitFor(() => expect(turnItems()).toHaveLength(2));
  await waitFor(() => expect(lastTurnStatus()).toBe('Done'), { timeout: 20_000 });

  // The third turn is sent waiting for one answer: API and mode can change from turn to turn.
  await u.selectOptions(within(runRegion()).getByLabelText('Answer'), 'wait');
  await within(runRegion()).findByLabelText(/^Reply to /);
  await u.type(within(runRegion()).getByLabelText(/^Reply to /), 'third');
  const preview = JSON.parse(within(runRegion()).getByLabelText('Reply request body').textContent!) as { messages: Message[]; stream: boolean };
  await u.click(within(runRegion()).getByRole('button', { name: 'Send reply' }));
  await waitFor(() => expect(turnItems()).toHaveLength(3));
  await waitFor(() => expect(lastTurnStatus()).toBe('Done'), { timeout: 20_000 });

  const sent = (await postsAfter(before)).map((p) => p.messages);
  const turn2 = [user('first'), ...answer('first'), user('second')];
  const turn3 = [...turn2, ...answer('second'), user('third')];
  expect(sent).toEqual([[user('first')], turn2, turn3]);
  expect(preview).toEqual({ messages: turn3, stream: false });
  expect(turns().textContent).toMatch(/You asked: "second"/);
  // The reply box is empty again, ready for the next turn, which goes the way the last one went.
  expect(within(runRegion()).getByLabelText<HTMLTextAreaElement>(/^Reply to /).value).toBe('');
  expect(within(runRegion()).getByLabelText<HTMLSelectElement>('Answer').value).toBe('wait');

  // The fourth on the deprecated API: its body carries the same conversation, with agent_id.
  await u.selectOptions(within(runRegion()).getByLabelText('API'), 'legacy');
  await reply(u, 'fourth');
  await waitFor(() => expect(turnItems()).toHaveLength(4));
  await waitFor(() => expect(lastTurnStatus()).toBe('Done'), { timeout: 20_000 });
  const posts = await postsAfter(before);
  expect(posts[3]).toMatchObject({ path: '/rest/api/v1/agents/runs/wait', messages: [...turn3, ...ai([echoWords('third').join('')]), user('fourth')] });
});

it('a conversation carried on after a stream turn sends the same messages as after a wait turn with the same answer', async () => {
  freshBrowser(DEMO.agents);
  const u = userEvent.setup();
  const bodies: Message[][] = [];
  for (const mode of ['stream', 'wait'] as const) {
    renderConsole('/runs/echo-assistant');
    await u.click(await screen.findByRole('radio', { name: mode === 'stream' ? /Stream/ : /Wait/ }));
    // The form keeps its values across a remount: the question is typed afresh.
    const box = await screen.findByLabelText('Message 1 text');
    await u.clear(box);
    await u.type(box, 'same question');
    await u.click(screen.getByRole('button', { name: mode === 'stream' ? 'Run and stream' : 'Run and wait' }));
    await waitFor(() => expect(lastTurnStatus()).toBe('Done'), { timeout: 20_000 });
    const before = (await servicePosts()).length;
    await reply(u, 'and then?');
    await waitFor(async () => expect(await postsAfter(before)).toHaveLength(1));
    bodies.push((await postsAfter(before))[0]!.messages as Message[]);
    await settleConsole();
    cleanup();
  }
  // What the service received: the question, the answer as one message, the reply.
  expect(bodies[0]).toEqual([user('same question'), ...answer('same question'), user('and then?')]);
  expect(bodies[0]).toEqual(bodies[1]);
});

it('an edited earlier question starts a new branch from that point; the old branch stays and can be shown again', async () => {
  freshBrowser(DEMO.agents);
  const u = userEvent.setup();
  await firstTurn(u, 'one');
  await waitFor(() => expect(lastTurnStatus()).toBe('Done'), { timeout: 20_000 });
  await reply(u, 'two');
  await waitFor(() => expect(turnItems()).toHaveLength(2));
  await waitFor(() => expect(lastTurnStatus()).toBe('Done'), { timeout: 20_000 });
  const before = (await servicePosts()).length;

  const second = turnItems()[1]!;
  await u.click(within(second).getByRole('button', { name: 'Edit' }));
  const editor = within(second).getByLabelText(/Edit the question/);
  await u.clear(editor);
  await u.type(editor, 'two, said better');
  await u.click(within(second).getByRole('button', { name: 'Send as a new branch' }));
  // The new branch's own answer (the old turn was Done too): it echoes the edited question.
  await waitFor(() => expect(turns().textContent).toMatch(/You asked: "two, said better"/), { timeout: 20_000 });
  await waitFor(() => expect(lastTurnStatus()).toBe('Done'), { timeout: 20_000 });

  const [edited] = (await postsAfter(before)).map((p) => p.messages);
  expect(edited).toEqual([user('one'), ...answer('one'), user('two, said better')]);
  const branches = within(turns()).getByRole('group', { name: 'Branches at this turn' });
  expect(branches.textContent).toMatch(/Branch 2 of 2/);
  expect(turns().textContent).toMatch(/two, said better/);
  await u.click(within(branches).getByRole('button', { name: 'Previous branch' }));
  await waitFor(() => expect(within(turns()).getByRole('group', { name: 'Branches at this turn' }).textContent).toMatch(/Branch 1 of 2/));
  expect(turns().textContent).toMatch(/You asked: "two"/);
  expect(turns().textContent).not.toMatch(/two, said better/);
});

it('a failed turn is shown in place and retried with the same messages; the reply box waits for an answer', async () => {
  freshBrowser(DEMO.agents);
  const u = userEvent.setup();
  const before = (await servicePosts()).length;
  await firstTurn(u, 'report please', 'flaky-reporter');
  await waitFor(() => expect(lastTurnStatus()).toBe('Failed'), { timeout: 20_000 });
  expect(runRegion().textContent).toMatch(/Spend Limit Exceeded/);
  expect(within(runRegion()).getByRole<HTMLButtonElement>('button', { name: 'Send reply' }).disabled).toBe(true);
  expect(runRegion().textContent).toMatch(/did not answer: retry it, or edit its question/);

  await u.click(within(runRegion()).getByRole('button', { name: 'Retry this turn' }));
  await waitFor(() => expect(within(turns()).getByRole('group', { name: 'Branches at this turn' }).textContent).toMatch(/Branch 2 of 2/));
  await waitFor(() => expect(lastTurnStatus()).toBe('Failed'), { timeout: 20_000 });
  const [first, retried] = (await postsAfter(before)).map((p) => p.messages);
  expect(first).toEqual([user('report please')]);
  expect(retried).toEqual(first);
});

it('a durable turn paused for approval is approved inside the thread, in one click, and the conversation goes on from its answer', async () => {
  freshBrowser(DEMO.agents);
  const u = userEvent.setup();
  renderConsole('/runs/expense-filer');
  await u.click(await screen.findByRole('radio', { name: /Durable/ }));
  await u.type(await screen.findByLabelText('Message 1 text'), 'File my receipts');
  await startRun(u, screen.getByRole('button', { name: 'Start durable run' }));
  const approve = await within(turns()).findByRole('button', { name: 'Approve' }, { timeout: 20_000 });
  await u.click(approve);
  await waitFor(() => expect(lastTurnStatus()).toBe('Succeeded'), { timeout: 20_000 });
  expect(within(turns()).getByRole('list', { name: 'States seen' }).textContent).toMatch(/You approved “Submit expense report”/);

  const before = (await servicePosts()).length;
  await reply(u, 'Thanks');
  await waitFor(() => expect(turnItems()).toHaveLength(2));
  // The turn is in history from its click on; its POST goes out once its entry is written.
  await waitFor(async () => expect(await postsAfter(before)).toHaveLength(1));
  const [next] = (await postsAfter(before)).map((p) => p.messages as Message[]);
  expect(next![0]).toEqual(user('File my receipts'));
  expect(next!.at(-1)).toEqual(user('Thanks'));
  const answer = next!.slice(1, -1);
  expect(answer.length).toBeGreaterThan(0);
  expect(answer.every((m) => m.role === 'GLEAN_AI')).toBe(true);
  expect(answer.map((m) => (m.content[0] as { text: string }).text).join(' ')).toMatch(/EXP-1042/);
});

it('an input-form agent keeps its form and says why there is no reply box', async () => {
  freshBrowser(DEMO.agents);
  const u = userEvent.setup();
  renderConsole('/runs/hr-policy-form');
  await u.type(await screen.findByLabelText(/^Topic/), 'Leave');
  await u.selectOptions(screen.getByLabelText(/^Region/), 'emea');
  await startRun(u, screen.getByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(within(runRegion()).getAllByRole('status')[0]!.textContent).toBe('Done'), { timeout: 20_000 });
  expect(within(runRegion()).queryByLabelText(/^Reply to /)).toBeNull();
  expect(runRegion().textContent).toMatch(/takes an input form, not a conversation/);
});

it('with the profile’s token cleared, the reply box says why nothing can be sent, and sends nothing', async () => {
  freshBrowser(DEMO.agents);
  const u = userEvent.setup();
  await firstTurn(u, 'before the token goes');
  await waitFor(() => expect(lastTurnStatus()).toBe('Done'), { timeout: 20_000 });
  const before = (await servicePosts()).length;
  await u.click(screen.getByRole('button', { name: 'Clear' }));
  const box = await within(runRegion()).findByLabelText(/^Reply to /);
  await u.type(box, 'after');
  const send = within(runRegion()).getByRole('button', { name: 'Send reply' });
  expect(send.hasAttribute('disabled')).toBe(true);
  expect(runRegion().textContent).toMatch(/has no token: give one with agents\.run in the connection panel to send/);
  await u.keyboard('{Control>}{Enter}{/Control}');
  expect(await postsAfter(before)).toHaveLength(0);
  // What was typed stays for when a token is back.
  expect((box as HTMLTextAreaElement).value).toBe('after');
});

it('a turn sent with an injected fault says so in its heading, as a single run does', async () => {
  freshBrowser(DEMO.agents);
  const u = userEvent.setup();
  renderConsole('/runs/echo-assistant');
  await u.type(await screen.findByLabelText('Message 1 text'), 'break me');
  await u.click(screen.getByText('Inject a fault (reference service)'));
  await u.type(screen.getByLabelText('Drop the stream after N events'), '3');
  await u.click(screen.getByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(lastTurnStatus()).toBe('Interrupted'), { timeout: 20_000 });
  expect(runRegion().querySelector('.turn-meta')?.textContent).toContain('with fault drop-after=3');
});

it('with no token, Run says the profile needs one, not that the input form is not ready', async () => {
  freshBrowser('');
  renderConsole('/runs/echo-assistant');
  await waitFor(() => expect(runRegion().textContent).toContain('Profile Reference service has no token: give one with agents.run in the connection panel.'));
  expect(runRegion().textContent).not.toContain('The input form is not ready.');
  expect(within(runRegion()).getByRole('button', { name: 'Run and stream' })).toBeDisabled();
});
