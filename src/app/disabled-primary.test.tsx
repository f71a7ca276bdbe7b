/**
 * The primary button with the console's own styles: filled only while it can be pressed. Faded
 * (opacity), the dark theme's light accent still read as an enabled button.
 */
import './styles.css';
import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import { DEMO, freshBrowser, renderConsole } from './test-console';

afterEach(() => cleanup());

it('a disabled primary button is outlined, not filled; enabled, it is filled with the accent', async () => {
  freshBrowser(DEMO.agents, {
    profiles: [
      { id: 'reference', label: 'Reference service', mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} },
      { id: 'direct', label: 'Direct, no URL', mode: 'direct', target: '', scopes: [], remember: false, outcomes: {} },
    ],
    activeId: 'reference',
    screenShare: false,
  });
  const user = userEvent.setup();
  renderConsole('/runs/hr-policy-form');
  await screen.findByLabelText(/^Topic/);
  const run = () => screen.getByRole<HTMLButtonElement>('button', { name: 'Run and stream' });
  await waitFor(() => expect(run().disabled).toBe(false));
  const root = getComputedStyle(document.documentElement);
  const colourOf = (cssVar: string) => {
    // The variable resolved to the colour a computed style reports (rgb(…)).
    const probe = document.createElement('span');
    probe.style.color = root.getPropertyValue(cssVar).trim();
    document.body.append(probe);
    const c = getComputedStyle(probe).color;
    probe.remove();
    return c;
  };
  expect(getComputedStyle(run()).backgroundColor).toBe(colourOf('--accent'));

  await user.selectOptions(screen.getByLabelText('Profile'), 'direct');
  await waitFor(() => expect(run().disabled).toBe(true));
  const off = getComputedStyle(run());
  expect(off.backgroundColor).toBe(colourOf('--panel'));
  expect(off.borderTopStyle).toBe('dashed');
  expect(off.opacity).toBe('1');
});
