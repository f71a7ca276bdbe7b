/**
 * A suite's page on a phone (390×844), with the console's own styles: its tables scroll sideways
 * in their own boxes, and the page itself does not (the suite's name field and the tables' hidden
 * labels once widened it to 536 px).
 */
import './styles.css';
import { cleanup, screen } from '@testing-library/react';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { createSuite, deleteSuite } from '../features/suites/model/suite-db';
import { DEMO, freshBrowser, renderConsole, settleConsole } from './test-console';

beforeAll(async () => {
  await page.viewport(390, 844);
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

it('a suite with cases fits a phone’s width: only its tables scroll sideways', async () => {
  freshBrowser(DEMO.agents);
  const suite = await createSuite('Release checks of the support bot', [
    { id: 'c1', name: 'Echo Assistant stream: Hello from a phone', agent: { id: 'echo-assistant' }, api: 'platform', mode: 'stream', messages: [], assertions: [{ kind: 'events-at-least', count: 1 }] },
  ]);
  try {
    renderConsole(`/suites/${suite.id}`);
    await screen.findByRole('region', { name: 'Cases of the suite' });
    // One case is “1 case”, not “1 cases”.
    expect(screen.getByText('1 run (1 case, each row of a case one run).')).toBeVisible();
    expect(screen.getByLabelText('Suite name').getBoundingClientRect().right).toBeLessThanOrEqual(window.innerWidth);
    expect(document.documentElement.scrollWidth).toBeLessThanOrEqual(window.innerWidth);
    // New-user review (u6): scrolled to, the table's Remove broke mid-word ("Rem / ove").
    for (const name of [/^Edit/, /^Remove/]) {
      const label = screen.getByRole('button', { name }).firstChild!;
      const range = document.createRange();
      range.selectNodeContents(label);
      expect(new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size, String(name)).toBe(1);
    }
  } finally {
    await deleteSuite(suite.id);
  }
});
