import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { BrowserRouter, Navigate, NavLink, Route, Routes } from 'react-router';
import { ConnectionPage } from '../features/connection/connection-page';
import { ConnectionPanel } from '../features/connection/connection-panel';
import { ConnectionProvider } from '../features/connection/connection-provider';
import { createQueryClient } from './query-client';

// Pages with forms load when first opened, keeping the first load small; the panel and
// the connection page, where a new user starts, are in the initial bundle.
const SchemasPage = lazy(() => import('../features/schemas/schemas-page').then((m) => ({ default: m.SchemasPage })));
const AgentRunsPage = lazy(() => import('../features/agent-runs/agent-runs-page').then((m) => ({ default: m.AgentRunsPage })));

function Layout() {
  return (
    <div className="layout">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Metadata &amp; Agents Console</span>
        <nav aria-label="Main">
          <NavLink to="/connection">Connection</NavLink>
          <NavLink to="/schemas">Schemas</NavLink>
          <NavLink to="/runs">Agent runs</NavLink>
        </nav>
      </header>
      <div className="body">
        <ConnectionPanel />
        <main id="main" tabIndex={-1}>
          <Suspense fallback={<p role="status">Loading…</p>}>
            <Routes>
              <Route index element={<Navigate to="/connection" replace />} />
              <Route path="connection" element={<ConnectionPage />} />
              <Route path="schemas" element={<SchemasPage />} />
              <Route path="schemas/:group" element={<SchemasPage />} />
              <Route path="runs" element={<AgentRunsPage />} />
              <Route path="*" element={<Navigate to="/connection" replace />} />
            </Routes>
          </Suspense>
        </main>
      </div>
    </div>
  );
}

export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <ConnectionProvider>
        <BrowserRouter>
          <Layout />
        </BrowserRouter>
      </ConnectionProvider>
    </QueryClientProvider>
  );
}
