/**
 * For component tests: the History panel alone, with the providers it needs (a query client,
 * a run store of its own and a router), as a page would render it.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import type { RunConnection } from '../../../engine/run-record';
import { consoleRunStore } from '../../../hooks/console-run-store';
import { RunStoreProvider } from '../../../hooks/run-store';
import { HistoryPanel } from './history-panel';

export function renderHistoryPanel(connection: RunConnection) {
  return render(
    <QueryClientProvider client={new QueryClient()}>
      <RunStoreProvider store={consoleRunStore()}>
        <MemoryRouter>
          <HistoryPanel connection={connection} onLoad={() => undefined} onImported={() => undefined} />
        </MemoryRouter>
      </RunStoreProvider>
    </QueryClientProvider>,
  );
}
