/**
 * Test support: the whole console (providers, layout, routes) in a memory router. Only
 * tests import it.
 */
import { render } from '@testing-library/react';
import { Profiler, StrictMode, useEffect } from 'react';
import { MemoryRouter } from 'react-router';
import { useRunStore } from '../features/agent-runs/model/run-store-context';
import type { RunStore } from '../features/agent-runs/model/run-store';
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
      <AppProviders>
        <CaptureStore />
        <MemoryRouter initialEntries={[path]}>
          <Profiler id="console" onRender={() => onRender?.()}>
            <Layout />
          </Profiler>
        </MemoryRouter>
      </AppProviders>
    </StrictMode>,
  );
}
