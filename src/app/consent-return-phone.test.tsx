/**
 * Back from a tool's consent page on a phone (390×844, one column): what the consent page
 * answered is said above the response, a long form's height below the top of the page. It
 * takes focus, so it is on screen (and read out) at once, not left for the user to scroll to
 * while the bar at the bottom still says "Refused".
 */
import './styles.css';
import { cleanup, screen } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { wipeHistory } from '../db/history';
import { DEMO, freshBrowser, renderConsole, settleConsole } from './test-console';

beforeAll(async () => {
  await page.viewport(390, 844);
});
beforeEach(async () => {
  await wipeHistory();
});
afterEach(async () => {
  await settleConsole();
  cleanup();
});

function onScreen(el: Element): boolean {
  const r = el.getBoundingClientRect();
  return r.top >= 0 && r.bottom <= window.innerHeight;
}

for (const [answer, query, said] of [
  ['allowed', 'glean_tool_auth=success&serverId=srv_gcal_01', 'access to tool server srv_gcal_01 was allowed'],
  ['denied', 'glean_tool_auth=error&serverId=srv_gcal_01&error=access_denied', 'was not allowed (access_denied)'],
] as const) {
  it(`a consent ${answer} is said on screen, with focus, when the page comes back`, async () => {
    freshBrowser(DEMO.agents);
    renderConsole(`/runs/calendar-helper?${query}`);
    const notice = await screen.findByText(/Back from the consent page/);
    // The agent's form is drawn above it: the notice is below the first screen unless brought to it.
    await screen.findByRole('heading', { name: /Calendar Helper/ });
    await new Promise((r) => setTimeout(r, 300));
    expect(notice.textContent).toContain(said);
    const box = notice.closest('[role="status"]')!;
    expect(box.contains(document.activeElement)).toBe(true);
    expect(onScreen(box)).toBe(true);
  });
}
