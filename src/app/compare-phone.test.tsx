/**
 * A comparison on a phone (390×844), with the console's own styles: each run titled by its
 * agent's name, and no word broken in the middle to fit a column ("Faile/d").
 */
import './styles.css';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { clearHistory } from '../db/history';
import { DEMO, freshBrowser, renderConsole, runOnBoth, saveWaitRun, settleConsole } from './test-console';

beforeAll(async () => {
  await page.viewport(390, 844);
});
beforeEach(async () => {
  await clearHistory();
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

/**
 * The pieces of text under `root` that the browser laid out on more than one line: a word
 * (between spaces, and after a hyphen or slash, where a line may break) cut in two.
 */
function brokenWords(root: Element): string[] {
  const broken: string[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent ?? '';
    for (const m of text.matchAll(/[^\s/-]+[/-]?/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (lines.size > 1) broken.push(m[0]);
    }
  }
  return broken;
}

it('on a phone, both runs are titled by their agent’s name and no word is broken to fit', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  renderConsole('/runs/echo-assistant');
  await user.type(await screen.findByLabelText('Message 1 text'), 'Two agents, one question about parental leave');
  await user.click(screen.getByText(/^Run on both: compare/));
  await user.click(screen.getByRole('radio', { name: 'to another agent' }));
  await user.type(screen.getByLabelText('Agent id for B'), 'flaky-reporter');
  await runOnBoth(user);
  // The flaky reporter fails its run: the verdict says so rather than compare.
  await waitFor(() => expect(screen.getByRole('status', { name: 'Verdict' }).textContent).toMatch(/^Run B did not end with an answer/), { timeout: 20_000 });

  expect(within(screen.getByRole('region', { name: 'Run A' })).getByRole('heading', { level: 3 }).textContent).toBe('A: Echo Assistant');
  await waitFor(() => expect(within(screen.getByRole('region', { name: 'Run B' })).getByRole('heading', { level: 3 }).textContent).toBe('B: Flaky Reporter'));
  const comparison = document.querySelector('.comparison')!;
  // The request bodies too, opened.
  for (const summary of comparison.querySelectorAll('details > summary')) await user.click(summary);
  expect(document.documentElement.scrollWidth).toBeLessThanOrEqual(window.innerWidth);
  expect(brokenWords(comparison)).toEqual([]);
});

it('on a phone, the request bodies’ pointers break after a slash, never inside a key (“/input/audienc e”)', async () => {
  freshBrowser(DEMO.agents);
  await saveWaitRun('pa', 1_000, { input: { topic: 'leave', region: 'emea', audience: 'managers', tone: 'formal', maxPoints: 3, includeLinks: true } });
  await saveWaitRun('pb', 2_000, { input: { topic: 'travel', region: 'apac', audience: 'everyone', tone: 'friendly', maxPoints: 5, includeLinks: false } });
  renderConsole('/compare/pa/pb');
  const table = await screen.findByRole('table', { name: 'Request body differences' });
  expect(table.textContent).toContain('/input/includeLinks');
  // The pointers (row headers); values are the user's own text, broken where they must be.
  const pointers = within(table).getAllByRole('rowheader');
  expect(pointers.length).toBeGreaterThanOrEqual(5);
  expect(pointers.flatMap((p) => brokenWords(p))).toEqual([]);
});
