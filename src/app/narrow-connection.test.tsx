/** The Connection page on a phone (390×844), with the console's own styles. Failed on 8e37cee. */
import './styles.css';
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { renderConsole } from './test-console';

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
