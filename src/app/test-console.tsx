/**
 * Test support: the whole console (providers, layout, routes) in a memory router. Only
 * tests import it.
 */
import { render, screen, waitFor, within } from '@testing-library/react';
import { expect } from 'vitest';
import { Profiler, StrictMode, Suspense, useEffect } from 'react';
import { MemoryRouter } from 'react-router';
import { consoleRunStore } from '../hooks/console-run-store';
import { useRunStore } from '../hooks/run-store';
import type { RunStore } from '../engine/run-store';
import { saveRun, type HistoryEntry } from '../db/history';
import { runRequest } from '../engine/run-request';
import { SANDBOX_FAULT_HEADER } from '../contract/sandbox-fault';
import { AppProviders, Layout } from './app';

let rendered: RunStore | undefined;

/** Notes the run store of the console rendered last, for settleConsole. */
function CaptureStore() {
  const store = useRunStore();
  useEffect(() => {
    rendered = store;
  }, [store]);
  return null;
}

/**
 * Ends the last rendered console's runs and waits for its history writes: call it before
 * cleanup, so one test's late writes never land in the next test's history.
 */
export async function settleConsole(): Promise<void> {
  const store = rendered;
  rendered = undefined;
  await store?.settle();
}

export { DEMO, freshBrowser, serviceRuns } from '../test-support/reference-service';

/** Renders the console at `path`; `onRender` is told of every commit of the page area. */
export function renderConsole(path: string, onRender?: () => void) {
  return render(
    <StrictMode>
      <AppProviders runStore={consoleRunStore()}>
        <Suspense fallback={null}>
          <CaptureStore />
        </Suspense>
        <MemoryRouter initialEntries={[path]}>
          <Profiler id="console" onRender={() => onRender?.()}>
            <Layout />
          </Profiler>
        </MemoryRouter>
      </AppProviders>
    </StrictMode>,
  );
}

/** The response head's status: what the run it tells is doing, and (data-run-id) which run that is. */
export function headStatusOf(): HTMLElement {
  return within(screen.getByRole('region', { name: 'Run' })).getAllByRole('status')[0]!;
}

/**
 * Clicks a button that sends a run and waits until the response head tells the new run, by its
 * id: waiting for a status ("Done") the run before it also had would read the wrong run.
 */
export async function startRun(user: { click(element: Element): Promise<void> }, button: HTMLElement): Promise<string> {
  const before = screen.queryByRole('region', { name: 'Run' }) ? headStatusOf().dataset.runId : undefined;
  await user.click(button);
  let id = '';
  await waitFor(() => {
    id = headStatusOf().dataset.runId ?? '';
    expect(id).not.toBe('');
    expect(id).not.toBe(before);
  });
  return id;
}

/** What the page shows now, in a line: for a failed wait to say where the console was instead. */
export function screenSummary(): string {
  const main = document.querySelector('main')?.textContent ?? '(no main)';
  const nav = screen.queryByRole('navigation', { name: 'Main' })?.textContent ?? '';
  return `navigation: "${nav}"; main: "${main.replace(/\s+/g, ' ').slice(0, 600)}"`;
}

/**
 * Clicks "Run on both" (open, its target chosen), or the legacy banner's button named `name`, and
 * waits for the comparison's page. A click on a disabled button does nothing, silently: it must be
 * enabled, else the test says why not.
 */
export async function runOnBoth(user: { click(element: Element): Promise<void> }, name = 'Run on both'): Promise<void> {
  // Waited for, not read once: what the page is still loading (the agent's tools, say) may hold it back a moment.
  await waitFor(() => {
    const button = screen.getByRole('button', { name });
    expect(button.hasAttribute('disabled'), `${name} is disabled: ${button.parentElement?.textContent}`).toBe(false);
  });
  await user.click(screen.getByRole('button', { name }));
  try {
    await screen.findByRole('heading', { level: 1, name: 'Compare two runs' }, { timeout: 30_000 });
  } catch {
    throw new Error(`The comparison did not open within 30 s of the click. ${screenSummary()}`);
  }
}

/** Puts an ended wait run of the HR Policy Agent in history, as if it had run here: to compare runs without running them. */
export function saveWaitRun(
  id: string,
  startedAt: number,
  {
    input = { topic: id },
    transcript = `answer ${id}`,
    refused,
  }: { input?: Record<string, unknown>; transcript?: string; refused?: { httpStatus: number; problem: string; fault?: string } } = {},
) {
  const request = runRequest('platform', 'wait', { id: 'hr-policy-form', name: 'HR Policy Agent' }, { input });
  const entry: HistoryEntry = {
    id,
    startedAt,
    request: refused?.fault ? { ...request, headers: { [SANDBOX_FAULT_HEADER]: refused.fault } } : request,
    target: { profileId: 'reference', profileLabel: 'Reference service', mode: 'same-origin', baseUrl: '' },
    status: refused ? 'refused' : 'done',
    durationMs: 5,
    eventCount: 0,
    bytes: transcript.length,
    transcript: refused ? '' : transcript,
    ...(refused && {
      problem: refused.problem,
      meta: { method: 'POST', url: '/api/agents/hr-policy-form/runs', status: refused.httpStatus, durationMs: 5, headers: [], receivedAt: startedAt + 5 },
    }),
  };
  return saveRun(entry);
}
