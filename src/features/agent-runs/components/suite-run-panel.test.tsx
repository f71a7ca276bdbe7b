import { render, screen } from '@testing-library/react';
import { expect, it } from 'vitest';
import type { StoredSuiteRun } from '../model/console-db';
import { SUITE_RUNS_KEPT } from '../model/suite/suite-db';
import { RunsKeptNote } from './suite-run-panel';

const run = (i: number, status: StoredSuiteRun['status'] = 'done'): StoredSuiteRun => ({ id: `r${i}`, suiteId: 's', suiteName: 'S', startedAt: Date.UTC(2026, 0, 1, 10, i), status, target: { profileId: 'p', profileLabel: 'P' }, concurrency: 4, total: 1 });

it('says how many runs of a suite are kept, apart from History, and which run the next Run suite lets go', () => {
  const { rerender } = render(<RunsKeptNote runs={[run(1), run(2)]} />);
  expect(screen.getByText(/keeps the newest 10 runs of a suite, apart from History/)).toBeVisible();
  expect(screen.queryByText(/lets go of/)).toBeNull();
  // Full: the oldest is named, as long as it is not still going on in some tab (that one is never let go).
  const full = [run(20, 'running'), ...Array.from({ length: SUITE_RUNS_KEPT - 1 }, (_, i) => run(i + 1))];
  rerender(<RunsKeptNote runs={full} />);
  expect(screen.getAllByText(/lets go of the run of/)).toHaveLength(1);
  expect(screen.getByText(new RegExp(`The next Run suite lets go of the run of ${new Date(run(1).startedAt).toLocaleString().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.`))).toBeVisible();
  rerender(<RunsKeptNote runs={[...full.slice(1), run(0, 'running')]} />);
  expect(screen.queryByText(/lets go of/)).toBeNull();
});
