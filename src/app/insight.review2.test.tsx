/**
 * Review of "Run insight" (review2), in the whole console against the real reference service.
 * Each test states what should hold and fails on the current code.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { clearHistory } from '../features/agent-runs/model/history';
import { DEMO, freshBrowser, renderConsole, settleConsole } from './test-console';

beforeEach(async () => {
  await clearHistory();
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
  await user.click(screen.getByRole('button', { name: 'Run on both' }));
  await screen.findByRole('heading', { level: 1, name: 'Compare two runs' });
}

it('R5 back on the runs page while A of a pair still streams, Stop is offered (it stops every run in flight)', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/slow-storyteller');
  await user.type(await screen.findByLabelText('Message 1 text'), 'A story');
  await runOnBothWithAgent(user, 'echo-assistant');
  // B (the echo assistant) ends in about half a second; A (the slow storyteller) goes on for many seconds.
  await waitFor(() => expect(within(screen.getByRole('region', { name: 'Run B' })).getByText('Done')).toBeTruthy(), { timeout: 8_000 });
  expect(within(screen.getByRole('region', { name: 'Run A' })).queryByText('Done')).toBeNull();
  await user.click(screen.getByRole('link', { name: 'Back to agent runs' }));
  const stop = await screen.findByRole('button', { name: 'Stop' });
  // A is still live (the navigation says so)...
  expect(screen.getByRole('link', { name: /Agent runs, a run is live/ })).toBeTruthy();
  // ...but the panel shows B, which has ended, so Stop is disabled.
  expect(stop.hasAttribute('disabled')).toBe(false);
  expect(within(screen.getByRole('region', { name: 'Response' })).getAllByRole('status')[0]!.textContent).not.toBe('Done');
});

it('R6 a durable run compared with a stream is followed on the comparison page until it ends', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/echo-assistant');
  await user.type(await screen.findByLabelText('Message 1 text'), 'Hello both');
  await user.click(screen.getByRole('radio', { name: /^Durable/ }));
  await user.click(screen.getByText(/^Run on both: compare/));
  await user.click(screen.getByRole('radio', { name: /^as stream/ }));
  await user.click(screen.getByRole('button', { name: 'Run on both' }));
  await screen.findByRole('heading', { level: 1, name: 'Compare two runs' });
  // The echo assistant answers in well under a second, durable or not.
  await waitFor(() => expect(verdict().textContent).toMatch(/The answers (match|differ)/), { timeout: 10_000 });
});
