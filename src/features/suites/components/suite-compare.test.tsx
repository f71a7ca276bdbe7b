/**
 * Compare two runs of a suite: it shows up while the second run is going on, with one run ended;
 * when that run ends, A is the older run and B the newer, and they are compared at once.
 */
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { consoleDb, type StoredSuiteRun } from '../../../db/console-db';
import { SuiteCompare } from './suite-compare';

const run = (id: string, startedAt: number): StoredSuiteRun => ({
  id,
  suiteId: 'suite-cmp',
  suiteName: 'S',
  startedAt,
  endedAt: startedAt + 1,
  status: 'done',
  target: { profileId: 'reference', profileLabel: 'Reference service' },
  concurrency: 4,
  total: 0,
});

beforeEach(async () => {
  await consoleDb().suiteRuns.where('suiteId').equals('suite-cmp').delete();
});
afterEach(cleanup);

it('when the second run ends, A is the older run, B the newer, and they are compared without choosing', async () => {
  const older = run('sr-older', Date.UTC(2026, 0, 1, 9));
  const newer = run('sr-newer', Date.UTC(2026, 0, 1, 10));
  // While the second run goes on, only the first has ended.
  const { rerender } = render(<SuiteCompare runs={[older]} />);
  rerender(<SuiteCompare runs={[newer, older]} />);
  const section = screen.getByRole('region', { name: 'Compare two runs' });
  expect((within(section).getByLabelText('A (before)') as HTMLSelectElement).value).toBe('sr-older');
  expect((within(section).getByLabelText('B (after)') as HTMLSelectElement).value).toBe('sr-newer');
  expect(await within(section).findByRole('heading', { name: 'Outcomes that changed' })).toBeTruthy();
});

it('a third run becomes B unless B was chosen by hand', async () => {
  const [r1, r2, r3] = [run('sr-1', 1_000), run('sr-2', 2_000), run('sr-3', 3_000)];
  const { rerender } = render(<SuiteCompare runs={[r2, r1]} />);
  rerender(<SuiteCompare runs={[r3, r2, r1]} />);
  const section = screen.getByRole('region', { name: 'Compare two runs' });
  expect((within(section).getByLabelText('A (before)') as HTMLSelectElement).value).toBe('sr-2');
  expect((within(section).getByLabelText('B (after)') as HTMLSelectElement).value).toBe('sr-3');
  await userEvent.selectOptions(within(section).getByLabelText('B (after)'), 'sr-1');
  rerender(<SuiteCompare runs={[run('sr-4', 4_000), r3, r2, r1]} />);
  expect((within(section).getByLabelText('A (before)') as HTMLSelectElement).value).toBe('sr-3');
  expect((within(section).getByLabelText('B (after)') as HTMLSelectElement).value).toBe('sr-1');
});
