/** The Connection page on a phone (390×844), with the console's own styles. Failed on 8e37cee. */
import './styles.css';
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { freshBrowser, renderConsole } from './test-console';

beforeAll(async () => {
  await page.viewport(390, 844);
});
afterEach(() => cleanup());

it('every profile’s Switch and Delete stay on screen, however long its scopes or URL', async () => {
  localStorage.clear();
  sessionStorage.clear();
  localStorage.setItem(
    'mac.profiles',
    JSON.stringify({
      profiles: [
        { id: 'reference', label: 'Reference service', mode: 'same-origin', target: '', scopes: ['custommetadata:global_scope', 'agents.run'], remember: false, outcomes: {} },
        { id: 'acme', label: 'Acme production direct', mode: 'direct', target: 'https://acme-production-be.glean.com', scopes: ['custommetadata:engineering'], remember: false, outcomes: {} },
      ],
      activeId: 'reference',
      screenShare: false,
    }),
  );
  renderConsole('/connection');
  const profiles = await screen.findByRole('region', { name: 'Profiles' });
  const buttons = within(profiles).getAllByRole('button', { name: /^(Switch to|Delete) / });
  expect(buttons.length).toBe(3);
  for (const b of buttons) {
    const r = b.getBoundingClientRect();
    expect(r.right, `${b.getAttribute('aria-label')} ends at ${r.right}px`).toBeLessThanOrEqual(window.innerWidth);
    expect(r.left).toBeGreaterThanOrEqual(0);
  }
  expect(document.documentElement.scrollWidth).toBeLessThanOrEqual(window.innerWidth);
});

it('the connection summary, opened, closes when the user navigates, by the navigation or by a link inside it', async () => {
  localStorage.clear();
  sessionStorage.clear();
  const user = userEvent.setup();
  renderConsole('/runs');
  const panel = screen.getByRole('complementary', { name: 'Connection' });
  const details = panel.querySelector('details')!;
  await user.click(within(panel).getByText('Connection', { selector: '.summary-title' }));
  expect(details.open).toBe(true);
  // Working in the panel keeps it open.
  await user.selectOptions(within(panel).getByLabelText('Profile'), 'reference');
  expect(details.open).toBe(true);

  await user.click(within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: 'Schemas' }));
  await screen.findByRole('heading', { name: 'Schemas', level: 1 });
  expect(details.open).toBe(false);

  await user.click(within(panel).getByText('Connection', { selector: '.summary-title' }));
  expect(details.open).toBe(true);
  await user.click(within(panel).getByRole('link', { name: 'Manage profiles and sandbox tokens' }));
  await screen.findByRole('heading', { name: 'Connection', level: 1 });
  expect(details.open).toBe(false);
  // The link that navigated is hidden now: focus is on the summary, where the keyboard left off.
  expect(document.activeElement).toBe(panel.querySelector('summary'));
});

it('the connection summary names the token’s stated scopes, and none once the token is cleared', async () => {
  const user = userEvent.setup();
  freshBrowser('a-pasted-token', {
    profiles: [{ id: 'reference', label: 'Reference service', mode: 'same-origin', target: '', scopes: ['custommetadata:sales'], remember: false, outcomes: {} }],
    activeId: 'reference',
    screenShare: false,
  });
  renderConsole('/runs');
  const panel = screen.getByRole('complementary', { name: 'Connection' });
  const summary = panel.querySelector('summary')!;
  expect(summary.textContent).toMatch(/custommetadata:sales/);
  await user.click(within(panel).getByText('Connection', { selector: '.summary-title' }));
  await user.click(within(panel).getByRole('button', { name: 'Clear' }));
  expect(summary.textContent).toMatch(/token \(none\)$/);
  expect(summary.textContent).not.toMatch(/custommetadata|scopes/);
});
