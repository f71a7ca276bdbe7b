/**
 * Test support: the whole console (providers, layout, routes) in a memory router. Only
 * tests import it.
 */
import { render } from '@testing-library/react';
import { Profiler, StrictMode } from 'react';
import { MemoryRouter } from 'react-router';
import { AppProviders, Layout } from './app';

export { DEMO, freshBrowser, serviceRuns } from '../test-support/reference-service';

/** Renders the console at `path`; `onRender` is told of every commit of the page area. */
export function renderConsole(path: string, onRender?: () => void) {
  return render(
    <StrictMode>
      <AppProviders>
        <MemoryRouter initialEntries={[path]}>
          <Profiler id="console" onRender={() => onRender?.()}>
            <Layout />
          </Profiler>
        </MemoryRouter>
      </AppProviders>
    </StrictMode>,
  );
}
