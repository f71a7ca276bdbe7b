import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { createBrowserRouter, Navigate, NavLink, Outlet, RouterProvider } from 'react-router';
import { ConnectionPage } from '../features/connection/connection-page';
import { ConnectionPanel } from '../features/connection/connection-panel';
import { ConnectionProvider } from '../features/connection/connection-provider';
import { SchemasPage } from '../features/schemas/schemas-page';
import { createQueryClient } from './query-client';

// The agent workspace is the heaviest page; it loads when first opened.
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
            <Outlet />
          </Suspense>
        </main>
      </div>
    </div>
  );
}

const router = createBrowserRouter([
  {
    element: <Layout />,
    children: [
      { index: true, element: <Navigate to="/connection" replace /> },
      { path: 'connection', element: <ConnectionPage /> },
      { path: 'schemas', element: <SchemasPage /> },
      { path: 'schemas/:group', element: <SchemasPage /> },
      { path: 'runs', element: <AgentRunsPage /> },
      { path: '*', element: <Navigate to="/connection" replace /> },
    ],
  },
]);

export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <ConnectionProvider>
        <RouterProvider router={router} />
      </ConnectionProvider>
    </QueryClientProvider>
  );
}
