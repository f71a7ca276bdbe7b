import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { runRequest } from '../../../engine/run-request';
import { createSuite, deleteSuite, startSuiteRun, writeResults } from '../model/suite-db';
import { SuiteResults } from './suite-results';

afterEach(() => cleanup());

const user = (text: string) => [{ role: 'USER' as const, content: [{ type: 'text' as const, text }] }];

it('a finished run’s kept results are never said to be missing while they are still being read', async () => {
  const suite = await createSuite('Kept results', []);
  const resultOf = (key: string) => ({ key, caseId: key, name: key, verdict: 'passed' as const, assertions: [], entry: { id: key, startedAt: 1, request: runRequest('platform', 'wait', { id: 'echo-assistant' }, { messages: user(key) }), target: { profileLabel: 'Reference', mode: 'same-origin' as const, baseUrl: '' }, status: 'done' as const, durationMs: 1, eventCount: 0, bytes: 0, transcript: '' }, details: {} });
  await startSuiteRun({ id: 'kept', suiteId: suite.id, suiteName: suite.name, startedAt: 1, status: 'done', target: { profileId: 'reference', profileLabel: 'Reference' }, concurrency: 1, total: 3 });
  await writeResults('kept', [0, 1, 2].map((index) => ({ index, result: resultOf(`case-${index}`) })));
  try {
    render(<SuiteResults suiteRunId="kept" />);
    expect(screen.queryByText('No result kept for this run.')).toBeNull();
    expect(await screen.findByText('case-2')).toBeTruthy();
    expect(screen.queryByText('No result kept for this run.')).toBeNull();
  } finally {
    await deleteSuite(suite.id);
  }
});

it('when a run that was shown live ends, its results are not said to be missing while the kept ones are read', async () => {
  const suite = await createSuite('Ends here', []);
  const resultOf = (key: string) => ({ key, caseId: key, name: key, verdict: 'passed' as const, assertions: [], entry: { id: key, startedAt: 1, request: runRequest('platform', 'wait', { id: 'echo-assistant' }, { messages: user(key) }), target: { profileLabel: 'Reference', mode: 'same-origin' as const, baseUrl: '' }, status: 'done' as const, durationMs: 1, eventCount: 0, bytes: 0, transcript: '' }, details: {} });
  await startSuiteRun({ id: 'ends', suiteId: suite.id, suiteName: suite.name, startedAt: 1, status: 'done', target: { profileId: 'reference', profileLabel: 'Reference' }, concurrency: 1, total: 1 });
  await writeResults('ends', [{ index: 0, result: resultOf('only-case') }]);
  try {
    const live = { id: 'ends', suiteId: suite.id, total: 1, started: 1, results: [{ ...resultOf('only-case'), index: 0 }], passed: 1, failed: 0, stopped: 0, running: 0, stopping: false, ended: false };
    const { rerender } = render(<SuiteResults suiteRunId="ends" live={live as never} />);
    expect(await screen.findByText('only-case')).toBeTruthy();
    // The live query has answered for the live phase (null) by now.
    await new Promise((r) => setTimeout(r, 200));
    rerender(<SuiteResults suiteRunId="ends" />);
    expect(screen.queryByText('No result kept for this run.')).toBeNull();
    expect(await screen.findByText('only-case')).toBeTruthy();
    expect(screen.queryByText('No result kept for this run.')).toBeNull();
  } finally {
    await deleteSuite(suite.id);
  }
});

it('a run with no result kept says so once it has been read', async () => {
  render(<SuiteResults suiteRunId="never-ran" />);
  expect(await screen.findByText('No result kept for this run.')).toBeTruthy();
});
