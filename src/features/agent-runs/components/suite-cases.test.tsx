import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expect, it } from 'vitest';
import type { Suite } from '../model/suite/suite';
import { CASES_PAGE, SuiteCases } from './suite-cases';

it('lists a long suite’s cases a hundred at a time, each with its edit and remove, and shows more on request', async () => {
  const user = userEvent.setup();
  const cases = Array.from({ length: 150 }, (_, i) => ({ id: `c${i}`, name: `Case ${i + 1}`, agent: { id: 'echo-assistant' }, api: 'platform' as const, mode: 'stream' as const, messages: [], assertions: [] }));
  const suite: Suite = { id: 's_long', name: 'Long', createdAt: 1, updatedAt: 1, cases };
  render(<SuiteCases suite={suite} />);
  const table = screen.getByRole('region', { name: 'Cases of the suite' });
  expect(within(table).getAllByRole('row')).toHaveLength(CASES_PAGE + 1);
  expect(within(table).getByRole('button', { name: /^Edit ?Case 100$/ })).toBeVisible();
  await user.click(screen.getByRole('button', { name: 'Show 50 more cases of 50' }));
  expect(within(table).getAllByRole('row')).toHaveLength(151);
  expect(within(table).getByRole('button', { name: /^Remove ?Case 150$/ })).toBeVisible();
  expect(screen.queryByRole('button', { name: /more cases/ })).toBeNull();
});
