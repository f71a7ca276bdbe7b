import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import { DEMO, freshBrowser, renderConsole } from './test-console';

afterEach(() => cleanup());

const PROFILES = {
  profiles: [
    { id: 'reference', label: 'Reference service', mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} },
    { id: 'direct', label: 'Direct, no URL', mode: 'direct', target: '', scopes: [], remember: false, outcomes: {} },
  ],
  activeId: 'reference',
  screenShare: false,
};

it('switching profile on the runs page never shows the other profile’s agent or its form', async () => {
  freshBrowser(DEMO.agents, PROFILES);
  sessionStorage.setItem('mac.token.direct', JSON.stringify(DEMO.agents));
  const user = userEvent.setup();
  renderConsole('/runs/hr-policy-form');
  await screen.findByRole('heading', { name: /HR Policy Agent/ });
  await screen.findByLabelText(/^Topic/);

  await user.selectOptions(screen.getByLabelText('Profile'), 'direct');
  const main = screen.getByRole('main');
  expect(await within(main).findByRole('heading', { name: 'Connection not set up' })).toBeTruthy();
  expect(within(main).queryByRole('heading', { name: /HR Policy Agent/ })).toBeNull();
  expect(within(main).queryByLabelText(/^Topic/)).toBeNull();
  expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Run and stream' }).disabled).toBe(true);

  await user.selectOptions(screen.getByLabelText('Profile'), 'reference');
  expect(await within(main).findByRole('heading', { name: /HR Policy Agent/ })).toBeTruthy();
});
