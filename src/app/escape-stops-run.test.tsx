/**
 * Escape stops the run in flight from anywhere on the runs page (README, "Keyboard"), wherever
 * focus is: the page itself, the connection panel, the navigation, the response side's chart
 * and timeline. Controls that use Escape first keep it: the agent list, an edited question,
 * a search box with text in it.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { clearHistory } from '../db/history';
import { DEMO, freshBrowser, renderConsole, settleConsole } from './test-console';

beforeAll(async () => {
  // Wide: the connection panel shown whole beside the page.
  await page.viewport(1440, 900);
});
beforeEach(async () => {
  await clearHistory();
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

type User = ReturnType<typeof userEvent.setup>;

const runRegion = () => screen.getByRole('region', { name: 'Run' });
const headStatus = () => within(runRegion()).getAllByRole('status')[0]!;

interface SandboxRun {
  requestId: string;
  agentId: string;
  outcome?: string;
}
async function sandboxRuns(): Promise<SandboxRun[]> {
  return ((await (await fetch('/sandbox/runs')).json()) as { runs: SandboxRun[] }).runs;
}

/** Starts a slow story from the form and waits until this run (a new service run) streams its first events. */
async function startStory(user: User): Promise<SandboxRun> {
  const before = new Set((await sandboxRuns()).map((r) => r.requestId));
  const box = await screen.findByLabelText('Message 1 text');
  await user.clear(box);
  await user.type(box, 'A long story');
  await user.click(screen.getByRole('button', { name: 'Run and stream' }));
  let mine: SandboxRun | undefined;
  await waitFor(async () => {
    mine = (await sandboxRuns()).find((r) => !before.has(r.requestId));
    expect(mine).toBeDefined();
  });
  await waitFor(() => expect(headStatus().textContent).toBe('Streaming…'));
  // Focus moves to the run's status once it starts (README, "Keyboard").
  await waitFor(() => expect(document.activeElement).toBe(headStatus()));
  return mine!;
}

/** The service saw that run end because this browser closed it. */
async function expectStopped(run: SandboxRun) {
  await waitFor(async () => expect((await sandboxRuns()).find((r) => r.requestId === run.requestId)?.outcome).toBe('client-closed'), { timeout: 20_000 });
  await waitFor(() => expect(headStatus().textContent).toBe('Stopped'));
}

it('Escape stops the run with focus on the page itself, in the connection panel, in the navigation, on the chart and on the timeline', { timeout: 60_000 }, async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/slow-storyteller');

  const places: [string, () => HTMLElement | null][] = [
    // A click on text, or a focused control that went away, leaves focus on the page's body.
    ['the connection panel', () => screen.getByLabelText('Profile')],
    ['the navigation', () => within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: 'Schemas' })],
    ['the chart', () => screen.getByRole('slider', { name: /the run's events in time/ })],
    ['the timeline', () => screen.getByRole('listbox', { name: /events$/ })],
    ['the page', () => null],
  ];
  for (const [where, element] of places) {
    const run = await startStory(user);
    if (where === 'the chart' || where === 'the timeline') await screen.findByRole('slider', { name: /the run's events in time/ });
    const target = element();
    if (target) target.focus();
    else (document.activeElement as HTMLElement | null)?.blur();
    expect(document.activeElement, where).toBe(target ?? document.body);
    await user.keyboard('{Escape}');
    await expectStopped(run);
  }
});

it('Escape that a control uses first does not stop the run: the agent list, an edited question, a search box with text', { timeout: 60_000 }, async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/slow-storyteller');
  // A run in history first, for its search box.
  const first = await startStory(user);
  await user.click(screen.getByRole('button', { name: 'Stop' }));
  await expectStopped(first);
  const run = await startStory(user);

  // The agent list open: Escape closes it and the run goes on.
  const picker = screen.getByRole('combobox', { name: 'Agent' });
  await user.type(picker, 'echo');
  await screen.findByRole('option', { name: /^Echo Assistant/ });
  await user.keyboard('{Escape}');
  expect(picker.getAttribute('aria-expanded')).toBe('false');

  // Editing the question: Escape closes the editor.
  const turns = screen.getByRole('list', { name: 'Turns' });
  await user.click(within(turns).getAllByRole('button', { name: 'Edit' }).at(-1)!);
  await screen.findByLabelText(/^Edit the question/);
  await user.keyboard('{Escape}');
  expect(screen.queryByLabelText(/^Edit the question/)).toBeNull();

  // History's search with text in it: Escape is the browser's "clear the field".
  const search = await screen.findByLabelText('Search history');
  await user.type(search, 'story');
  await user.keyboard('{Escape}');

  await new Promise((r) => setTimeout(r, 300));
  expect(headStatus().textContent).toBe('Streaming…');
  expect((await sandboxRuns()).find((r) => r.requestId === run.requestId)?.outcome).toBeUndefined();

  // And once nothing else wants it, Escape stops the run.
  (document.activeElement as HTMLElement | null)?.blur();
  await user.keyboard('{Escape}');
  await expectStopped(run);
});
