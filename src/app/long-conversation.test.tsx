/**
 * A conversation as long as a file may bring (1,000 turns in one branch): the page draws its
 * newest turns and earlier ones on request. Drawn whole, an imported one held the page for
 * seconds (4.3 s of CPU with long texts, measured by the attack review).
 */
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { TURNS_PAGE } from '../features/conversations/components/thread-view';
import { clearHistory, importRuns } from '../db/history';
import { entriesOfFile, MAX_TURNS, parseThreadFile } from '../engine/thread-file';
import { DEMO, freshBrowser, renderConsole, settleConsole } from './test-console';

beforeEach(async () => {
  await clearHistory();
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

/** A conversation file whose turns each follow the one before. */
function chainFile(turns: number) {
  return {
    format: 'metadata-agents-console/thread',
    version: 1,
    exportedAt: '2026-11-25T10:00:00.000Z',
    thread: { id: 'thread_long', title: 'a long conversation', agent: { id: 'echo-assistant', name: 'Echo Assistant' } },
    turns: Array.from({ length: turns }, (_, i) => ({
      id: `t${i}`,
      ...(i > 0 && { parentId: `t${i - 1}` }),
      startedAt: new Date(Date.UTC(2026, 10, 25, 9, 0, i)).toISOString(),
      request: { api: 'platform', mode: 'wait', method: 'POST', path: '/api/agents/echo-assistant/runs/wait', body: { messages: [{ role: 'USER', content: [{ type: 'text', text: `question ${i + 1}` }] }] } },
      status: 'done',
      durationMs: 10,
      events: { count: 0, bytes: 20 },
      answer: { messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text: `answer ${i + 1}` }] }], text: `answer ${i + 1}` },
    })),
  };
}

it('a conversation of 1,000 turns shows its newest 30, says how many are not shown, and shows earlier ones on request', async () => {
  const parsed = await parseThreadFile(JSON.stringify(chainFile(MAX_TURNS)));
  if (!parsed.ok) throw new Error(parsed.error);
  const importedAt = Date.now();
  const entries = entriesOfFile(parsed.file, importedAt, 'long.json');
  await importRuns(entries, importedAt);
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole(`/runs/echo-assistant/thread/${entries[0]!.request.thread!.id}`);

  const turns = await screen.findByRole('list', { name: 'Turns' }, { timeout: 20_000 });
  const shown = () => within(turns).getAllByRole('listitem', { name: /^Turn: / }).map((li) => li.getAttribute('aria-label'));
  expect(shown()).toHaveLength(TURNS_PAGE);
  expect(shown().at(-1)).toBe('Turn: question 1000');
  expect(shown()[0]).toBe(`Turn: question ${MAX_TURNS - TURNS_PAGE + 1}`);
  expect(screen.getByText(/^Conversation with Echo Assistant: /).textContent).toBe(`Conversation with Echo Assistant: the last ${TURNS_PAGE} of 1,000 turns shown.`);

  await user.click(screen.getByRole('button', { name: `Show ${TURNS_PAGE} earlier turns (${(MAX_TURNS - TURNS_PAGE).toLocaleString('en-US')} not shown)` }));
  expect(shown()).toHaveLength(2 * TURNS_PAGE);
  expect(shown()[0]).toBe(`Turn: question ${MAX_TURNS - 2 * TURNS_PAGE + 1}`);
  expect(shown().at(-1)).toBe('Turn: question 1000');
});
