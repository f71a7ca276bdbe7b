/**
 * What a newcomer meets on the Connection page and in the panel, against the reference service
 * the browser test project serves on this origin. Each test failed on 8e37cee.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { StrictMode } from 'react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { ConnectionPage } from './connection-page';
import { ConnectionPanel } from './connection-panel';
import { ConnectionProvider } from './connection-provider';

// Public demo tokens of the reference service (README, "Demo tokens").
const SALES = 'sandbox-sales-8b1e6d0c93a2f457';
const HR = 'sandbox-hr-52d7a9f10c6e3b84';
const GLOBAL = 'sandbox-global-3f9c2a7d41e8b605';

beforeAll(async () => {
  // Wide enough for the full connection panel, not its one-line summary.
  await page.viewport(1280, 900);
});
beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});
afterEach(() => cleanup());

function renderConnection() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <StrictMode>
      <QueryClientProvider client={client}>
        <ConnectionProvider>
          <MemoryRouter initialEntries={['/connection']}>
            <ConnectionPanel />
            <main>
              <ConnectionPage />
            </main>
          </MemoryRouter>
        </ConnectionProvider>
      </QueryClientProvider>
    </StrictMode>,
  );
}

const panel = () => screen.getByRole('complementary', { name: 'Connection' });
const tokenSummary = () => within(panel()).getByText(/^Token:/).textContent;

async function pasteToken(user: ReturnType<typeof userEvent.setup>, token: string) {
  const field = within(panel()).getByLabelText('Bearer token');
  await user.clear(field);
  await user.click(field);
  await user.paste(token);
}

it('choosing a demo token moves focus to the confirmation that replaced the list, not to the page body', async () => {
  const user = userEvent.setup();
  renderConnection();
  await user.click(await screen.findByRole('button', { name: 'Use “Demo: agents”' }));

  const confirmation = await screen.findByRole('region', { name: 'Using “Demo: agents”' });
  expect(document.activeElement).not.toBe(document.body);
  expect(document.activeElement).toBe(confirmation);
  expect(confirmation.textContent).toContain('agents.run');
  expect(screen.queryByRole('region', { name: 'Start here' })).toBeNull();
});

it('with a token already, the demo tokens stay one disclosure away, and choosing one replaces the token', async () => {
  const user = userEvent.setup();
  renderConnection();
  await pasteToken(user, SALES);
  await waitFor(() => expect(screen.queryByRole('region', { name: 'Start here' })).toBeNull());
  // The demo tokens come from the service (a read of its console info), which a loaded machine may answer late.
  await user.click(await screen.findByText('Demo tokens of the reference service'));
  await user.click(screen.getByRole('button', { name: 'Use “Demo: agents”' }));
  const confirmation = await screen.findByRole('region', { name: 'Using “Demo: agents”' });
  expect(document.activeElement).toBe(confirmation);
  expect(within(panel()).getByLabelText<HTMLInputElement>('Bearer token').value).not.toBe(SALES);
});

it('says in plain words whether the service accepts the token and whether it can run agents', async () => {
  const user = userEvent.setup();
  renderConnection();
  await user.click(await screen.findByRole('button', { name: 'Use “Demo: agents”' }));
  const check = () => within(panel()).getByRole('status', { name: 'Token check' }).textContent ?? '';
  await waitFor(() => expect(check()).toBe('Token accepted. It can run agents.'));

  await pasteToken(user, GLOBAL);
  await waitFor(() => expect(check()).toMatch(/^Token accepted\. It cannot run agents \(it lacks agents\.run\)\./));
  expect(check()).not.toMatch(/\bmay\b/);
});

it('a demo token pasted by hand fills in the scopes it has, as choosing it does', async () => {
  const user = userEvent.setup();
  renderConnection();
  await screen.findByRole('button', { name: 'Use “Demo: group sales”' });
  const scopes = within(panel()).getByLabelText<HTMLInputElement>('Scopes this token has');
  expect(scopes.value).toBe('');

  await pasteToken(user, SALES);
  await waitFor(() => expect(scopes.value).toBe('custommetadata:sales'));
  // A token that is not a demo token leaves the stated scopes as they were.
  await pasteToken(user, 'sbx_not-a-demo-token-0123456789');
  expect(scopes.value).toBe('custommetadata:sales');
});

it('masked demo tokens are told apart by their label; another token shows only its first characters', async () => {
  const user = userEvent.setup();
  renderConnection();
  await screen.findByRole('button', { name: 'Use “Demo: group sales”' });

  await pasteToken(user, SALES);
  await waitFor(() => expect(tokenSummary()).toBe('Token: sandbo…•••• (Demo: group sales)'));
  await pasteToken(user, HR);
  await waitFor(() => expect(tokenSummary()).toBe('Token: sandbo…•••• (Demo: group hr)'));

  const secret = 'sbx_kept-secret-0123456789abcdef';
  await pasteToken(user, secret);
  await waitFor(() => expect(tokenSummary()).toBe('Token: sbx_ke…••••'));
  expect(panel().textContent).not.toContain(secret.slice(0, 7));
});

// One click lost a profile for good, with its base URL, scopes and token.
it('Delete on a profile says so and offers Undo (focused), which brings it back where it stood, active again, with its token', async () => {
  const user = userEvent.setup();
  renderConnection();
  await user.type(within(panel()).getByLabelText('Bearer token'), SALES);
  await user.click(screen.getByRole('button', { name: 'New profile' }));
  await user.click(screen.getByRole('button', { name: 'New profile' }));
  // The newest profile is active; the first one, with the sales token, is deleted from the list.
  const list = () => within(screen.getByRole('region', { name: 'Profiles' }));
  const names = () => list().getAllByRole('listitem').map((li) => li.querySelector('strong')!.textContent);
  expect(names()).toEqual(['Reference service', 'Profile 2', 'Profile 3']);
  await user.click(list().getByRole('button', { name: 'Switch to Reference service' }));
  await user.click(list().getByRole('button', { name: 'Delete Reference service' }));
  expect(names()).toEqual(['Profile 2', 'Profile 3']);
  const undo = await screen.findByRole('button', { name: 'Undo' });
  expect(undo.closest('[role=status]')!.textContent).toMatch(/^Deleted profile “Reference service”, with its token\./);
  expect(document.activeElement).toBe(undo);
  // A second Delete keeps the first one's Undo: Undo brings back one at a time, the newest first.
  await user.click(list().getByRole('button', { name: 'Delete Profile 2' }));
  expect(screen.getByRole('button', { name: 'Undo' }).closest('[role=status]')!.textContent).toMatch(/^Deleted profile “Profile 2” \(and 1 more on this visit/);
  await user.click(screen.getByRole('button', { name: 'Undo' }));
  expect(names()).toEqual(['Profile 2', 'Profile 3']);
  expect(screen.getByRole('button', { name: 'Undo' }).closest('[role=status]')!.textContent).toMatch(/^Deleted profile “Reference service”, with its token\. Undo$/);
  await user.click(screen.getByRole('button', { name: 'Undo' }));
  expect(names()).toEqual(['Reference service', 'Profile 2', 'Profile 3']);
  expect(list().getAllByRole('listitem')[0]!.textContent).toContain('active');
  await waitFor(() => expect(within(panel()).getByLabelText<HTMLInputElement>('Bearer token').value).toBe(SALES));
  expect(screen.queryByRole('button', { name: 'Undo' })).toBeNull();
  // The last Undo leaves focus on the list's heading, not on the page's body.
  expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Profiles' }));
});
