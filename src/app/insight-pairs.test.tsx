/**
 * "Run on both" pairs in the whole console, against the real reference service. Each test is a
 * finding of a review of the first version of Run insight, written against it, where it failed.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { wipeHistory } from '../db/history';
import { DEMO_EVERYTHING } from '../test-support/reference-service';
import { DEMO, freshBrowser, renderConsole, runOnBoth, settleConsole } from './test-console';

beforeEach(async () => {
  await wipeHistory();
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

const verdict = () => screen.getByRole('status', { name: 'Verdict' });

async function runOnBothWithAgent(user: ReturnType<typeof userEvent.setup>, agentB: string) {
  await user.click(screen.getByText(/^Run on both: compare/));
  await user.click(screen.getByRole('radio', { name: 'to another agent' }));
  await user.type(screen.getByLabelText('Agent id for B'), agentB);
  await runOnBoth(user);
}

it('back on the runs page while A of a pair still streams, Stop is offered (it stops every run in flight)', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/slow-storyteller');
  await user.type(await screen.findByLabelText('Message 1 text'), 'A story');
  await runOnBothWithAgent(user, 'echo-assistant');
  // B (the echo assistant) ends in about half a second; A (the slow storyteller) goes on for many seconds.
  await waitFor(() => expect(within(screen.getByRole('region', { name: 'Run B' })).getByText('Done')).toBeTruthy(), { timeout: 20_000 });
  expect(within(screen.getByRole('region', { name: 'Run A' })).queryByText('Done')).toBeNull();
  await user.click(screen.getByRole('link', { name: 'Back to agent runs' }));
  // Back on A's agent, where the comparison was started.
  expect(await screen.findByRole('heading', { name: /Slow Storyteller/ })).toBeTruthy();
  const stop = await screen.findByRole('button', { name: 'Stop' });
  // A is still live (the navigation says so)...
  expect(screen.getByRole('link', { name: /Agent runs, a run is live/ })).toBeTruthy();
  // ...and the panel shows it, not B, which has ended: Stop is offered.
  expect(stop.hasAttribute('disabled')).toBe(false);
  expect(within(screen.getByRole('region', { name: 'Response' })).getAllByRole('status')[0]!.textContent).not.toBe('Done');
});

it('a durable run compared with a stream is followed on the comparison page until it ends', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/echo-assistant');
  await user.type(await screen.findByLabelText('Message 1 text'), 'Hello both');
  await user.click(screen.getByRole('radio', { name: /^Durable/ }));
  await user.click(screen.getByText(/^Run on both: compare/));
  await user.click(screen.getByRole('radio', { name: /^as stream/ }));
  await runOnBoth(user);
  // The echo assistant answers in well under a second, durable or not.
  await waitFor(() => expect(verdict().textContent).toMatch(/The answers (match|differ)/), { timeout: 20_000 });
});

it('while a stream (A) and a wait (B) of a pair run, both are drawn on one time axis', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/slow-storyteller');
  await user.type(await screen.findByLabelText('Message 1 text'), 'A story');
  await user.click(screen.getByText(/^Run on both: compare/));
  await user.click(screen.getByRole('radio', { name: /^as wait/ }));
  await runOnBoth(user);
  // A few of the storyteller's events (one every 400 ms) have arrived.
  await waitFor(() => expect(within(screen.getByRole('region', { name: 'Run A' })).getByText(/Once upon a time, in/)).toBeTruthy(), { timeout: 20_000 });
  const axisEnds = () => [...document.querySelectorAll('.comparison .run-chart .chart-axis span:last-child')].map((s) => s.textContent);
  const ends = axisEnds();
  expect(ends).toHaveLength(2);
  // "Over time, on one axis": not A's axis following its own last event and B's stopped at its last state change.
  expect(ends[1]).toBe(ends[0]);
});

it('B’s durable run, sent with another profile, is named with that profile rather than linked to a page that would read it with this one', async () => {
  freshBrowser(DEMO.agents, {
    profiles: [
      { id: 'reference', label: 'Reference service', mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} },
      { id: 'second', label: 'Second token', mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} },
    ],
    activeId: 'reference',
    screenShare: false,
  });
  sessionStorage.setItem('mac.token.second', JSON.stringify(DEMO_EVERYTHING));
  const user = userEvent.setup();
  renderConsole('/runs/echo-assistant');
  await user.type(await screen.findByLabelText('Message 1 text'), 'Hello both');
  await user.click(screen.getByRole('radio', { name: /^Durable/ }));
  await user.click(screen.getByText(/^Run on both: compare/));
  await user.click(screen.getByRole('radio', { name: 'with another profile' }));
  await runOnBoth(user);
  const b = screen.getByRole('region', { name: 'Run B' });
  expect(within(b).getByText(/durable · profile Second token/)).toBeTruthy();
  // B is followed with its own token to its end, and compared.
  await waitFor(() => expect(verdict().textContent).toMatch(/The answers match/), { timeout: 20_000 });
  // Its page would read it with the current profile's token, which the service refuses: no link, but why.
  await waitFor(() => expect(within(b).getByText(/switch to that profile to open it/)).toBeTruthy());
  expect(within(b).queryByRole('link', { name: /^run_/ })).toBeNull();
  // A's, sent with the current profile, is a link to its page.
  expect(within(screen.getByRole('region', { name: 'Run A' })).getByRole('link', { name: /^run_/ })).toBeTruthy();
});

it('a mode comparison from a stream: B (a wait) keeps the client timeout the user set for waits', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/slow-storyteller');
  await user.type(await screen.findByLabelText('Message 1 text'), 'A story');
  // The user sets a 1 s timeout for waits, then runs as a stream compared with a wait.
  await user.click(screen.getByRole('radio', { name: /^Wait/ }));
  await user.type(screen.getByLabelText(/^Client timeout, seconds/), '1');
  await user.click(screen.getByRole('radio', { name: /^Stream/ }));
  await user.click(screen.getByText(/^Run on both: compare/));
  await user.click(screen.getByRole('radio', { name: /^as wait/ }));
  await runOnBoth(user);
  // The storyteller's wait takes many seconds: with the 1 s timeout B is stopped well within 5 s.
  await waitFor(() => expect(within(screen.getByRole('region', { name: 'Run B' })).getByText('Stopped')).toBeTruthy(), { timeout: 20_000 });
});
