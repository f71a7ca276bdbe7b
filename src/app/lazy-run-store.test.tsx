/**
 * The run store and its engine load after the first page (the initial bundle's budget): the
 * console is usable before they arrive, and the runs page works once they have. Rendered as the
 * page renders it (createRoot, no act()): Testing Library's act() holds back the retry of what
 * waited for the store, which the page's own scheduler runs.
 */
import { screen, within } from '@testing-library/react';
import { StrictMode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DEMO, freshBrowser } from '../test-support/reference-service';
import { AppProviders, Layout } from './app';

const actEnvironment = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
let before: boolean | undefined;
let root: Root | undefined;
let host: HTMLElement | undefined;
beforeEach(() => {
  before = actEnvironment.IS_REACT_ACT_ENVIRONMENT;
  actEnvironment.IS_REACT_ACT_ENVIRONMENT = false;
});
afterEach(() => {
  root?.unmount();
  host?.remove();
  actEnvironment.IS_REACT_ACT_ENVIRONMENT = before;
});

it('shows the navigation before the run store has loaded, and the runs page once it has', async () => {
  freshBrowser(DEMO.agents);
  host = document.body.appendChild(document.createElement('div'));
  root = createRoot(host);
  root.render(
    <StrictMode>
      <AppProviders>
        <MemoryRouter initialEntries={['/runs/echo-assistant']}>
          <Layout />
        </MemoryRouter>
      </AppProviders>
    </StrictMode>,
  );
  const nav = await screen.findByRole('navigation', { name: 'Main' });
  expect(within(nav).getByRole('link', { name: /Agent runs/ })).toBeTruthy();
  expect(await screen.findByRole('heading', { name: /Echo Assistant/ }, { timeout: 20_000 })).toBeTruthy();
  expect(await screen.findByRole('button', { name: /Run and stream/ })).toBeTruthy();
});
