import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import { DEMO, freshBrowser, renderConsole } from './test-console';

afterEach(() => cleanup());

const SALES = 'sandbox-sales-8b1e6d0c93a2f457';

it('a group the token read, shown again from what that token read before, is said to have answered it', async () => {
  freshBrowser(DEMO.global, {
    profiles: [{ id: 'reference', label: 'Reference service', mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} }],
    activeId: 'reference',
    screenShare: false,
  });
  const user = userEvent.setup();
  renderConsole('/schemas/sales');
  const panel = screen.getByRole('complementary', { name: 'Connection' });
  const answered = () => within(panel).getByRole('group', { name: 'Groups seen with this profile' }).textContent;
  await waitFor(() => expect(answered()).toMatch(/Answered: sales/));

  // On a narrow page the panel is a summary: opened, its fields can be used.
  const details = panel.querySelector('details');
  if (details && !details.open) await user.click(within(panel).getByText('Connection', { selector: '.summary-title' }));
  const field = within(panel).getByLabelText('Bearer token');
  const replaceToken = async (token: string) => {
    await user.tripleClick(field);
    await user.paste(token);
    expect((field as HTMLInputElement).value).toBe(token);
  };
  await replaceToken(SALES);
  await waitFor(() => expect(answered()).toMatch(/Answered: sales/));
  // Back to the first token: its answer is still cached, and the page shows it at once.
  await replaceToken(DEMO.global);
  await waitFor(() => expect(answered()).toMatch(/Answered: sales/));
});
