/** Focus after a navigation: moved to the main region only when a user's control went away. */
import { cleanup, screen } from '@testing-library/react';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DEMO, freshBrowser, renderConsole, settleConsole } from './test-console';

beforeEach(() => freshBrowser(DEMO.agents));
afterEach(async () => {
  await settleConsole();
  cleanup();
});

it('opening the console at / (redirected to Connection) leaves focus at the top of the page, where the first Tab reaches Skip to content', async () => {
  renderConsole('/');
  await screen.findByRole('heading', { level: 1, name: /Connection/ });
  await new Promise((r) => setTimeout(r, 200));
  expect(document.activeElement).toBe(document.body);
});

it('an unknown address (redirected to Connection) leaves focus at the top of the page too', async () => {
  renderConsole('/no-such-page');
  await screen.findByRole('heading', { level: 1, name: /Connection/ });
  await new Promise((r) => setTimeout(r, 200));
  expect(document.activeElement).toBe(document.body);
});
