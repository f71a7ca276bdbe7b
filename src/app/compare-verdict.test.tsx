/** The comparison's verdict in words, for two runs read from history. */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { wipeHistory } from '../db/history';
import { DEMO, freshBrowser, renderConsole, saveWaitRun, settleConsole } from './test-console';

const verdict = () => screen.getByRole('status', { name: 'Verdict' });
const words = (prefix: string) => Array.from({ length: 3_000 }, (_, i) => `${prefix}${i}`).join(' ');

beforeEach(async () => {
  await wipeHistory();
  freshBrowser(DEMO.agents);
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

it('answers that differ in a few words say how many parts differ', async () => {
  await saveWaitRun('near-a', 1_000, { transcript: 'The policy allows ten days of leave.' });
  await saveWaitRun('near-b', 2_000, { transcript: 'The policy allows twelve days of leave.' });
  renderConsole('/compare/near-a/near-b');
  await waitFor(() => expect(verdict().textContent).toMatch(/^The answers differ: 2 parts differ, marked below/));
});

it('answers too different to compare word by word say so, with no count of parts beside it', async () => {
  await saveWaitRun('far-a', 1_000, { transcript: words('a') });
  await saveWaitRun('far-b', 2_000, { transcript: words('b') });
  renderConsole('/compare/far-a/far-b');
  await waitFor(() => expect(verdict().textContent).toMatch(/^The answers differ in too many places to compare word by word: where they differ, each is marked whole below/));
  expect(verdict().textContent).not.toMatch(/parts? differs?/);
});

it('the link that opens a comparison goes away with its page: focus goes to the comparison’s main region, not the page body', async () => {
  const user = userEvent.setup();
  await saveWaitRun('first', 1_000, { transcript: 'one answer' });
  await saveWaitRun('second', 2_000, { transcript: 'another answer' });
  renderConsole('/runs/hr-policy-form');
  const history = await screen.findByRole('region', { name: 'History' });
  await waitFor(() => expect(within(history).getAllByRole('button', { name: 'Compare…' })).toHaveLength(2));
  await user.click(within(history).getAllByRole('button', { name: 'Compare…' })[1]!);
  within(history).getByRole('link', { name: 'Compare with the chosen run' }).focus();
  await user.keyboard('{Enter}');
  await screen.findByRole('heading', { level: 1, name: 'Compare two runs' });
  await waitFor(() => expect(document.activeElement).toBe(document.getElementById('main')));
});

it('two runs that were both refused are not said to match: the verdict says how each ended, why and with which fault', async () => {
  const refused = { httpStatus: 429, problem: 'Too many requests: try again in 7 s.', fault: 'status=429; retry-after=7' };
  await saveWaitRun('refused-a', 1_000, { refused });
  await saveWaitRun('refused-b', 2_000, { refused });
  renderConsole('/compare/refused-a/refused-b');
  await waitFor(() => expect(verdict().textContent).toMatch(/^Neither run ended with an answer; what each sent before it ended is below/));
  expect(verdict().textContent).not.toMatch(/match/);
  const ends = within(verdict()).getAllByRole('listitem').map((li) => li.textContent);
  expect(ends).toEqual([
    'A: Refused (HTTP 429): Too many requests: try again in 7 s. Sent with the fault “status=429; retry-after=7” (Inject a fault).',
    'B: Refused (HTTP 429): Too many requests: try again in 7 s. Sent with the fault “status=429; retry-after=7” (Inject a fault).',
  ]);
});

it('one answer against a refusal says which run ended without one', async () => {
  await saveWaitRun('answered', 1_000, { transcript: 'The policy allows ten days of leave.' });
  await saveWaitRun('refused', 2_000, { refused: { httpStatus: 503, problem: 'The service is unavailable.' } });
  renderConsole('/compare/answered/refused');
  await waitFor(() => expect(verdict().textContent).toMatch(/^Run B did not end with an answer/));
  const [endA, endB] = within(verdict()).getAllByRole('listitem').map((li) => li.textContent);
  expect(endA).toMatch(/^A: Done/);
  expect(endB).toBe('B: Refused (HTTP 503): The service is unavailable.');
});
