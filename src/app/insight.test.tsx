/**
 * Run insight in the console: Run on both and the comparison it opens, and choosing two runs
 * from history. Every request goes to the real reference service, whose log of run POSTs
 * says what was sent.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { wipeHistory } from '../db/history';
import { servicePosts } from '../test-support/reference-service';
import { DEMO, freshBrowser, renderConsole, runOnBoth, settleConsole, startRun } from './test-console';

beforeEach(async () => {
  await wipeHistory();
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

const history = () => screen.getByRole('region', { name: 'History' });
const verdict = () => screen.getByRole('status', { name: 'Verdict' });
const sentLine = () => [...document.querySelectorAll('.comparison > p')].find((p) => /^A against B/.test(p.textContent ?? ''))?.textContent;

async function runForm(user: ReturnType<typeof userEvent.setup>, topic: string) {
  const field = await screen.findByLabelText(/^Topic/);
  await user.clear(field);
  await user.type(field, topic);
  await user.selectOptions(screen.getByLabelText(/^Region/), 'emea');
  await startRun(user, screen.getByRole('button', { name: 'Run and stream' }));
  await waitFor(() => expect(within(screen.getByRole('region', { name: 'Run' })).getAllByRole('status')[0]!.textContent).toBe('Done'), { timeout: 20_000 });
}

it('the legacy banner runs the same input on both APIs, one POST each, shown live side by side; Stop both ends both, and then they are compared', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/slow-storyteller');
  await user.click(await screen.findByRole('radio', { name: /Legacy/ }));
  await user.type(await screen.findByLabelText('Message 1 text'), 'A story, twice');
  const before = (await servicePosts()).length;
  await runOnBoth(user, 'Compare with the replacement (runs both)');
  await waitFor(() => expect(within(verdict()).getByRole('button', { name: 'Stop both' })).toBeTruthy());
  // Both stream at once: each side's answer grows before either ends.
  await waitFor(() => {
    for (const name of ['Run A', 'Run B']) expect(within(screen.getByRole('region', { name })).getByText(/Once upon/)).toBeTruthy();
  }, { timeout: 20_000 });
  expect(sentLine()).toBe('A against B: legacy API against current API.');
  await user.click(within(verdict()).getByRole('button', { name: 'Stop both' }));
  // Stopped, neither ended with its answer: the verdict says how each ended, not that they match.
  await waitFor(() => expect(verdict().textContent).toMatch(/^Neither run ended with an answer/));
  expect(within(verdict()).getAllByRole("listitem").map((li) => li.textContent)).toEqual([expect.stringMatching(/^A: Stopped/), expect.stringMatching(/^B: Stopped/)]);
  for (const name of ['Run A', 'Run B']) expect(within(screen.getByRole('region', { name })).getByText('Stopped')).toBeTruthy();
  const posts = (await servicePosts()).slice(before).map((p) => p.path).sort();
  expect(posts).toEqual(['/api/agents/slow-storyteller/runs', '/rest/api/v1/agents/runs/stream']);
  expect(screen.getByRole('button', { name: 'Export comparison (JSON)' }).hasAttribute('disabled')).toBe(false);
});

it('two runs are chosen in history to compare; the choice can be cancelled, and a chosen run that leaves history is chosen no more', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/hr-policy-form');
  for (const topic of ['parental leave', 'remote work']) await runForm(user, topic);
  // (An earlier test's last history writes may land after this test cleared history: only this agent's rows count.)
  const rows = () => within(history()).queryAllByRole('listitem').filter((li) => /HR Policy/.test(li.textContent ?? ''));
  await waitFor(() => expect(rows()).toHaveLength(2));
  // The older run, whose full log the console let go when the next one started, still shows its transcript.
  await user.click(within(rows()[1]!).getByRole('button', { name: 'View' }));
  expect(within(rows()[1]!).getByText(/^Policy summary on parental leave/)).toBeTruthy();
  await user.click(within(rows()[1]!).getByRole('button', { name: 'Hide' }));
  await user.click(within(rows()[1]!).getByRole('button', { name: 'Compare…' }));
  expect(within(history()).getByRole('status').textContent).toMatch(/One run chosen to compare/);
  expect(within(rows()[0]!).getByRole('link', { name: 'Compare with the chosen run' })).toBeTruthy();
  // Cancelled: every row offers Compare… again.
  await user.click(within(rows()[1]!).getByRole('button', { name: 'Chosen to compare (cancel)' }));
  expect(within(history()).getAllByRole('button', { name: 'Compare…' })).toHaveLength(2);
  // Chosen, then history cleared: nothing stays chosen.
  await user.click(within(rows()[1]!).getByRole('button', { name: 'Compare…' }));
  await user.click(within(history()).getByRole('button', { name: 'Clear history…' }));
  await user.click(within(history()).getByRole('button', { name: 'Clear history' }));
  await waitFor(() => expect(rows()).toHaveLength(0));
  expect(within(history()).queryByText(/One run chosen to compare/)).toBeNull();
  // Two new runs, compared from history.
  for (const topic of ['travel', 'travel']) await runForm(user, topic);
  await waitFor(() => expect(rows()).toHaveLength(2));
  await user.click(within(rows()[1]!).getByRole('button', { name: 'Compare…' }));
  await user.click(within(rows()[0]!).getByRole('link', { name: 'Compare with the chosen run' }));
  await screen.findByRole('heading', { level: 1, name: 'Compare two runs' });
  // A's answer is history's: the console let go of its log when B started, not of its transcript.
  await waitFor(() => expect(verdict().textContent).toMatch(/The answers match/));
  expect(screen.getByRole('document', { name: 'Answer of A' }).textContent).toMatch(/^Policy summary on travel/);
  expect(sentLine()).toBe('A against B: the same request, sent twice.');
  expect(screen.getByText('The two bodies are the same.')).toBeTruthy();
});
