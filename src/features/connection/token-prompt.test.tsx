/**
 * The token gate the app puts around pages that need a token, for a link opened in a new tab
 * (tokens are kept per tab by default), against the reference service on this origin.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { StrictMode } from 'react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { AGENTS_SCOPE } from '../../contract/scopes';
import { ConnectionProvider } from './connection-provider';
import { TokenGate } from './token-prompt';

const TOKEN_KEY = 'mac.token.reference';

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});
afterEach(() => cleanup());

function renderGate() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <StrictMode>
      <QueryClientProvider client={client}>
        <ConnectionProvider>
          <MemoryRouter>
            <TokenGate scope={AGENTS_SCOPE} why="A durable run can be read only with the token that started it.">
              <h1>The page behind the gate</h1>
            </TokenGate>
          </MemoryRouter>
        </ConnectionProvider>
      </QueryClientProvider>
    </StrictMode>,
  );
}

it('without a token, asks for one; a pasted token, remembered on this device, opens the page and takes focus there', async () => {
  const user = userEvent.setup();
  renderGate();
  const prompt = await screen.findByRole('region', { name: 'A token is needed for this page' });
  expect(prompt.textContent).toContain('only with the token that started it');
  expect(screen.queryByRole('heading', { name: 'The page behind the gate' })).toBeNull();

  // Nothing pasted: said, and nothing else happens.
  await user.click(within(prompt).getByRole('button', { name: 'Use this token' }));
  expect(within(prompt).getByText('Paste a token first.')).toBeTruthy();
  expect(within(prompt).getByLabelText('Bearer token').getAttribute('aria-invalid')).toBe('true');

  const token = 'sbx_pasted-by-hand-0123456789';
  await user.click(within(prompt).getByLabelText('Bearer token'));
  await user.paste(token);
  await user.click(within(prompt).getByLabelText('Remember on this device'));
  await user.click(within(prompt).getByRole('button', { name: 'Use this token' }));

  const heading = await screen.findByRole('heading', { name: 'The page behind the gate' });
  expect(localStorage.getItem(TOKEN_KEY)).toBe(JSON.stringify(token));
  expect(sessionStorage.getItem(TOKEN_KEY)).toBeNull();
  expect(document.activeElement).not.toBe(document.body);
  expect(document.activeElement?.contains(heading)).toBe(true);
});

it('with the bundled service, offers the demo tokens that have the scope the page needs, one click each, kept for this tab', async () => {
  const user = userEvent.setup();
  renderGate();
  const prompt = await screen.findByRole('region', { name: 'A token is needed for this page' });
  const demos = await within(prompt).findAllByRole('button', { name: /^Use “Demo: / });
  expect(demos.map((b) => b.textContent)).toEqual(['Use “Demo: agents”', 'Use “Demo: global metadata and agents”']);

  await user.click(demos[0]!);
  const heading = await screen.findByRole('heading', { name: 'The page behind the gate' });
  expect(sessionStorage.getItem(TOKEN_KEY)).toBe(JSON.stringify('sandbox-agents-1d6f3b9e0a7c2548'));
  expect(localStorage.getItem(TOKEN_KEY)).toBeNull();
  // The profile states the demo token's scopes, as choosing it on the Connection page does, kept
  // with the token in this tab.
  expect(JSON.parse(sessionStorage.getItem('mac.stated.reference')!).scopes).toEqual([AGENTS_SCOPE]);
  expect(document.activeElement?.contains(heading)).toBe(true);
});
