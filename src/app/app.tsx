import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { createBrowserRouter, Navigate, NavLink, Outlet, RouterProvider } from 'react-router';
import { AgentRunsPage } from '../features/agent-runs/agent-runs-page';
import { ConnectionPage } from '../features/connection/connection-page';
import { SchemasPage } from '../features/schemas/schemas-page';
import { createQueryClient } from './query-client';

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
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}

const router = createBrowserRouter([
  {
    element: <Layout />,
    children: [
      { index: true, element: <Navigate to="/connection" replace /> },
      { path: 'connection', element: <ConnectionPage /> },
      { path: 'schemas/:group?', element: <SchemasPage /> },
      { path: 'runs', element: <AgentRunsPage /> },
      { path: '*', element: <Navigate to="/connection" replace /> },
    ],
  },
]);

export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
