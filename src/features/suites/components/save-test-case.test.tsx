/**
 * Save as test case on a conversation's turn: the case holds the messages up to that turn, as
 * the turn sent them, and the suite run of that case passes the assertions filled from the turn;
 * and the panel by keyboard.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { mintAgentsToken, referenceConnection } from '../../../test-support/reference-service';
import { wipeHistory, type HistoryEntry } from '../../../db/history';
import { historyEntryOf } from '../../../engine/run-record';
import type { RunStore } from '../../../engine/run-store';
import { consoleRunStore } from '../../../hooks/console-run-store';
import { createSuite } from '../model/suite-db';
import { suiteRuns } from '../model/suite-runs';
import { replyRequest } from '../../../engine/thread';
import { caseOfRun, SaveTestCase } from './save-test-case';

let store: RunStore | undefined;
beforeEach(async () => {
  await wipeHistory();
});
afterEach(async () => {
  cleanup();
  await store?.settle();
});

it('a conversation’s second turn saved as a test case holds the messages up to that turn, and its suite run passes', async () => {
  const token = await mintAgentsToken();
  const connection = referenceConnection(token, 'fp-turn-case');
  store = consoleRunStore();
  const thread = { id: 'thread_case', agentId: 'echo-assistant', agentName: 'Echo Assistant' };
  let parent: HistoryEntry | undefined;
  for (const q of ['first question', 'second question']) {
    const { id } = store.start(connection, replyRequest(thread, parent, q, { flavour: 'platform', mode: 'stream' }))!;
    await waitFor(() => expect(store!.get(id)!.state.status).toBe('done'), { timeout: 10_000 });
    await store.settle();
    parent = historyEntryOf(store.get(id)!);
  }
  const turn = parent!;
  const c = await caseOfRun(turn, 'Second turn', undefined);
  expect(c).toMatchObject({ agent: { id: 'echo-assistant', name: 'Echo Assistant' }, api: 'platform', mode: 'stream' });
  // The messages as the turn sent them: the first question, the agent's answer to it, the second question.
  expect(c.messages!.map((m) => [m.role, m.content.map((p) => p.text).join('')])).toEqual([
    ['USER', 'first question'],
    ['GLEAN_AI', expect.stringContaining('first question')],
    ['USER', 'second question'],
  ]);
  expect(c).not.toHaveProperty('thread');
  expect(c.assertions).toContainEqual({ kind: 'answer-equals', text: turn.transcript });
  const suite = await createSuite('From a conversation', [c]);
  suiteRuns.start(suite, connection, { concurrency: 1 });
  await waitFor(() => expect(suiteRuns.of(suite.id)?.ended).toBe(true), { timeout: 20_000 });
  expect(suiteRuns.of(suite.id)).toMatchObject({ total: 1, passed: 1, failed: 0 });
});

/** Save as test case on a finished stream turn of the echo assistant, run against the reference service. */
async function renderFinishedTurn(fingerprint: string, threadId: string) {
  const connection = referenceConnection(await mintAgentsToken(), fingerprint);
  store = consoleRunStore();
  const thread = { id: threadId, agentId: 'echo-assistant', agentName: 'Echo Assistant' };
  const { id } = store.start(connection, replyRequest(thread, undefined, 'a question', { flavour: 'platform', mode: 'stream' }))!;
  await waitFor(() => expect(store!.get(id)!.state.status).toBe('done'), { timeout: 10_000 });
  await store.settle();
  render(
    <MemoryRouter>
      <SaveTestCase entry={historyEntryOf(store.get(id)!)} />
    </MemoryRouter>,
  );
}

it('by keyboard: the panel opens at its first field, Escape closes it back on its button, and a saved case’s notice takes focus', async () => {
  await renderFinishedTurn('fp-save-focus', 'thread_focus');
  const user = userEvent.setup();
  const open = screen.getByRole('button', { name: 'Save as test case' });
  open.focus();
  await user.keyboard('{Enter}');
  await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText('Suite')));
  await user.keyboard('{Escape}');
  expect(screen.queryByLabelText('Suite')).toBeNull();
  expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Save as test case' }));

  await user.keyboard('{Enter}');
  // Suites other tests saved may be listed first: a new one is chosen.
  await user.selectOptions(screen.getByLabelText('Suite'), 'New suite…');
  await user.type(await screen.findByLabelText('Name of the new suite'), 'Focus suite');
  await user.click(screen.getByRole('button', { name: 'Save case' }));
  const notice = await screen.findByRole('status');
  expect(notice.textContent).toMatch(/^Saved to Focus suite with \d+ assertions/);
  expect(document.activeElement).toBe(notice);
});

// Review r6: an Escape that ends an IME composition (typing Japanese, say, in Case name) belongs
// to the input method, as the page's own Escape (escapeIsTaken) already knows; escapeCancels
// closed the whole panel on it.
it('an Escape that ends a composition in a field leaves the panel open', async () => {
  await renderFinishedTurn('fp-save-ime', 'thread_ime');
  await userEvent.setup().click(screen.getByRole('button', { name: 'Save as test case' }));
  const name = await screen.findByLabelText('Case name');
  fireEvent.keyDown(name, { key: 'Escape', isComposing: true });
  expect(screen.queryByLabelText('Case name')).not.toBeNull();
});
