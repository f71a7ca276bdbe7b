import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import { ConnectionContext, ConnectionsContext, type ActiveConnection, type Connections } from '../../../lib/connection';
import { mintAgentsToken, referenceConnection } from '../../../test-support/reference-service';
import { consoleDb, type StoredSuiteRun } from '../../../db/console-db';
import type { Suite } from '../../../engine/suites/suite';
import { createSuite, SUITE_RUNS_KEPT } from '../model/suite-db';
import { suiteRuns } from '../model/suite-runs';
import { RunsKeptNote, SuiteRunPanel, useLiveSuiteRun } from './suite-run-panel';

afterEach(() => cleanup());

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

it('Run suite runs against the profile in use when it is clicked: a profile chosen in the header since the page opened, not the one it opened with', async () => {
  const user = userEvent.setup();
  const token = await mintAgentsToken();
  const profile = (id: string, label: string): ActiveConnection => ({ ...referenceConnection(token, `fp-${id}`), profileId: id, profileLabel: label, scopes: [], displayBaseUrl: '', outcomes: {}, recordOutcome: () => undefined, screenShare: false });
  const a = profile('prof-a', 'Profile A');
  const b = profile('prof-b', 'Profile B');
  const connections: Connections = { profiles: [{ id: a.profileId, label: a.profileLabel }, { id: b.profileId, label: b.profileLabel }], connectionOf: (id) => [a, b].find((p) => p.profileId === id) };
  const suite: Suite = await createSuite('Whose profile', [{ id: 'echo', name: 'Echo', agent: { id: 'echo-assistant' }, api: 'platform', mode: 'stream', messages: [{ role: 'USER', content: [{ type: 'text', text: 'hi' }] }], assertions: [] }]);
  function Page({ current }: { current: ActiveConnection }) {
    const live = useLiveSuiteRun(suite.id);
    return (
      <ConnectionsContext.Provider value={connections}>
        <ConnectionContext.Provider value={current}>
          <SuiteRunPanel suite={suite} live={live} onStarted={() => undefined} />
        </ConnectionContext.Provider>
      </ConnectionsContext.Provider>
    );
  }
  const { rerender } = render(<Page current={a} />);
  // The user switches to profile B (the header's profile menu), then runs the suite without touching its options.
  rerender(<Page current={b} />);
  expect(screen.getByLabelText<HTMLSelectElement>('Against profile').value).toBe('prof-b');
  await user.click(screen.getByRole('button', { name: 'Run suite' }));
  await waitFor(() => expect(suiteRuns.of(suite.id)?.ended).toBe(true), { timeout: 20_000 });
  expect((await consoleDb().suiteRuns.get(suiteRuns.of(suite.id)!.id))?.target.profileId).toBe('prof-b');
});

/** The panel of a new one-case suite of the slow storyteller (a run long enough to act on mid-way), on a profile of its own. */
async function renderSlowSuite(name: string): Promise<{ suite: Suite; current: ActiveConnection }> {
  const token = await mintAgentsToken();
  const current: ActiveConnection = { ...referenceConnection(token, `fp-${name}`), profileId: `prof-${name}`, profileLabel: `Profile ${name}`, scopes: [], displayBaseUrl: '', outcomes: {}, recordOutcome: () => undefined, screenShare: false };
  const connections: Connections = { profiles: [{ id: current.profileId, label: current.profileLabel }], connectionOf: (id) => (id === current.profileId ? current : undefined) };
  const suite: Suite = await createSuite(name, [{ id: 'slow', name: 'Slow', agent: { id: 'slow-storyteller' }, api: 'platform', mode: 'stream', messages: [{ role: 'USER', content: [{ type: 'text', text: 'hi' }] }], assertions: [] }]);
  function Page() {
    const live = useLiveSuiteRun(suite.id);
    return (
      <ConnectionsContext.Provider value={connections}>
        <ConnectionContext.Provider value={current}>
          <SuiteRunPanel suite={suite} live={live} onStarted={() => undefined} />
        </ConnectionContext.Provider>
      </ConnectionsContext.Provider>
    );
  }
  render(<Page />);
  return { suite, current };
}

it('by keyboard, Run suite hands focus to Stop while the suite runs, and Stop hands it back to Run suite once it ended (never the page body)', async () => {
  const user = userEvent.setup();
  const { suite } = await renderSlowSuite('Focus');
  screen.getByRole('button', { name: 'Run suite' }).focus();
  await user.keyboard('{Enter}');
  await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Stop' })));
  await user.keyboard('{Enter}');
  await waitFor(() => expect(suiteRuns.of(suite.id)?.ended).toBe(true), { timeout: 20_000 });
  await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Run suite' })));
});

it('a suite run started elsewhere (another page, another tab) does not pull focus to this page’s Stop', async () => {
  const { suite, current } = await renderSlowSuite('Elsewhere');
  // The user reads the page: nothing of it has focus.
  (document.activeElement as HTMLElement | null)?.blur();
  expect(document.activeElement).toBe(document.body);
  expect(suiteRuns.start(suite, current, { concurrency: 1, overrides: {} })).toBeTruthy();
  await waitFor(() => expect(screen.getByRole('button', { name: 'Stop' })).toBeEnabled());
  await new Promise((r) => setTimeout(r, 100));
  const focused = document.activeElement;
  suiteRuns.stop(suiteRuns.of(suite.id)!.id);
  await waitFor(() => expect(suiteRuns.of(suite.id)?.ended).toBe(true), { timeout: 20_000 });
  expect(focused).toBe(document.body);
});
