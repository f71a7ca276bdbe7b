import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useLiveQuery } from 'dexie-react-hooks';
import { afterEach, expect, it } from 'vitest';
import { consoleDb } from '../../../db/console-db';
import type { Suite } from '../../../engine/suites/suite';
import { createSuite, deleteSuite } from '../model/suite-db';
import { CASES_PAGE, SuiteCases } from './suite-cases';

afterEach(() => cleanup());

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

// New-user review (u6): Remove took a case out of its suite at one click, with no way back.
it('Remove takes a case out with one click and says so, with Undo (focused), which puts it back where it stood', async () => {
  const user = userEvent.setup();
  const caseOf = (id: string, name: string) => ({ id, name, agent: { id: 'echo-assistant' }, api: 'platform' as const, mode: 'stream' as const, messages: [], assertions: [] });
  const suite = await createSuite('Undo checks', [caseOf('u1', 'First case'), caseOf('u2', 'Second case'), caseOf('u3', 'Third case')]);
  try {
    function Live() {
      const current = useLiveQuery(() => consoleDb().suites.get(suite.id), []);
      return current ? <SuiteCases suite={current} /> : null;
    }
    render(<Live />);
    const table = await screen.findByRole('region', { name: 'Cases of the suite' });
    await user.click(within(table).getByRole('button', { name: /^Remove ?Second case$/ }));
    const undo = await screen.findByRole('button', { name: 'Undo' });
    expect(screen.getByRole('status').textContent).toMatch(/^Removed “Second case”\./);
    await waitFor(() => expect(document.activeElement).toBe(undo));
    expect((await consoleDb().suites.get(suite.id))!.cases.map((c) => c.name)).toEqual(['First case', 'Third case']);
    // A second Remove keeps the first one's Undo: Undo puts back one at a time, the newest first.
    await user.click(within(table).getByRole('button', { name: /^Remove ?First case$/ }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toMatch(/^Removed “First case” \(and 1 more on this visit/));
    await user.click(screen.getByRole('button', { name: 'Undo' }));
    await waitFor(async () => expect((await consoleDb().suites.get(suite.id))!.cases.map((c) => c.name)).toEqual(['First case', 'Third case']));
    await waitFor(() => expect(screen.getByRole('status').textContent).toMatch(/^Removed “Second case”\. Undo$/));
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Undo' }));
    await user.click(screen.getByRole('button', { name: 'Undo' }));
    await waitFor(async () => expect((await consoleDb().suites.get(suite.id))!.cases.map((c) => c.name)).toEqual(['First case', 'Second case', 'Third case']));
    await waitFor(() => expect(within(table).getAllByRole('row').map((r) => (r as HTMLTableRowElement).cells[0]!.textContent).slice(1)).toEqual(['First case', 'Second case', 'Third case']));
    expect(screen.queryByRole('button', { name: 'Undo' })).toBeNull();
    // The last Undo leaves focus on the list's heading, not on the page's body.
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Cases' }));
  } finally {
    await deleteSuite(suite.id);
  }
});
