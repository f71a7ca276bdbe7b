import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react';
import { BrowserRouter, Navigate, NavLink, Route, Routes, useLocation } from 'react-router';
import { PageErrorBoundary } from '../components/page-error-boundary';
import { SlotsProvider } from '../components/slots';
import type { RunStore } from '../engine/run-store';
import { RunStoreProvider, useRuns } from '../hooks/run-store';
import { ConnectionPage } from '../features/connection/connection-page';
import { ConnectionPanel } from '../features/connection/connection-panel';
import { ConnectionProvider } from '../features/connection/connection-provider';
import { createQueryClient } from './query-client';
import { consoleSlots } from './slots';

// Pages with forms load when first opened, keeping the first load small; the panel and
// the connection page, where a new user starts, are in the initial bundle.
const SchemasPage = lazy(() => import('../features/schemas/schemas-page').then((m) => ({ default: m.SchemasPage })));
const RunsPage = lazy(() => import('./runs-page').then((m) => ({ default: m.RunsPage })));
const ComparePage = lazy(() => import('../features/insight/routes/compare-page').then((m) => ({ default: m.ComparePage })));
const SuitesPage = lazy(() => import('../features/suites/routes/suites-page').then((m) => ({ default: m.SuitesPage })));
const SuitePage = lazy(() => import('../features/suites/routes/suite-page').then((m) => ({ default: m.SuitePage })));
const DurableRunRoute = lazy(() => import('./durable-run-route').then((m) => ({ default: m.DurableRunRoute })));
// History's database loads after the first paint, with what keeps it true (follows runs going on).
const HistoryKeeper = lazy(() => import('./history-keeper').then((m) => ({ default: m.HistoryKeeper })));

/** The navigation's Agent runs link, before the run store has loaded: no run can be live yet. */
function PlainRunsLink() {
  return <NavLink to="/runs">Agent runs</NavLink>;
}

function RunsLink() {
  const { active: live, paused } = useRuns();
  return (
    <NavLink to={live ? `/runs/${encodeURIComponent(live.request.agentId)}` : '/runs'} className={({ isActive }) => (isActive ? 'active' : undefined)}>
      Agent runs
      {live && (
        <span className="live-mark" title={`A run of ${live.request.agentName ?? live.request.agentId} is live`}>
          <span aria-hidden="true"> ●</span>
          <span className="visually-hidden">, a run is live</span>
        </span>
      )}
      {paused.length > 0 && (
        <span className="paused-mark" title={`${paused.length === 1 ? 'A durable run waits' : `${paused.length} durable runs wait`} for your approval`}>
          <span aria-hidden="true"> ‖</span>
          <span className="visually-hidden">, {paused.length === 1 ? 'a run waits for your approval' : `${paused.length} runs wait for your approval`}</span>
        </span>
      )}
    </NavLink>
  );
}

export function Layout() {
  const { pathname } = useLocation();
  const main = useRef<HTMLElement>(null);
  // A link or button that navigated and went away with its page (Compare with the chosen run,
  // an import that opens what it imported) left focus on the page body, and a keyboard user
  // at the top of the page: focus goes to the new page's main region instead. A control that
  // is still there (the navigation's own links), or focus a page gave itself, is left alone.
  // Only a control the user had focused counts: a redirect on opening (/ to Connection) has
  // none, and focus stays at the top of the page, where the first Tab is Skip to content.
  const lastFocused = useRef<Element | null>(null);
  useEffect(() => {
    const remember = (e: FocusEvent) => {
      lastFocused.current = e.target instanceof Element ? e.target : null;
    };
    document.addEventListener('focusin', remember);
    return () => document.removeEventListener('focusin', remember);
  }, []);
  const shownPath = useRef(pathname);
  useEffect(() => {
    if (shownPath.current === pathname) return;
    shownPath.current = pathname;
    const gone = lastFocused.current !== null && !lastFocused.current.isConnected;
    const active = document.activeElement;
    if (gone && (!active || active === document.body)) main.current?.focus();
  }, [pathname]);
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
          <Suspense fallback={<PlainRunsLink />}>
            <RunsLink />
          </Suspense>
          <NavLink to="/suites">Suites</NavLink>
        </nav>
      </header>
      <div className="body">
        <ConnectionPanel />
        <main id="main" tabIndex={-1} ref={main}>
          <PageErrorBoundary resetKey={pathname}>
            <Suspense fallback={<p role="status">Loading…</p>}>
              <Routes>
                <Route index element={<Navigate to="/connection" replace />} />
                <Route path="connection" element={<ConnectionPage />} />
                <Route path="schemas" element={<SchemasPage />} />
                <Route path="schemas/:group" element={<SchemasPage />} />
                <Route path="runs" element={<RunsPage />} />
                <Route path="runs/:agentId" element={<RunsPage />} />
                <Route path="runs/:agentId/thread/:threadId" element={<RunsPage />} />
                <Route path="compare/:a/:b" element={<ComparePage />} />
                <Route path="suites" element={<SuitesPage />} />
                <Route path="suites/:suiteId" element={<SuitePage />} />
                <Route path="runs/:agentId/:runId" element={<DurableRunRoute />} />
                <Route path="*" element={<Navigate to="/connection" replace />} />
              </Routes>
            </Suspense>
          </PageErrorBoundary>
        </main>
      </div>
    </div>
  );
}

/** Everything the pages share, above the router: server state, the connection, the runs. */
export function AppProviders({ children, runStore }: { children: ReactNode; /** The run store (component tests give one, ready at once); else it loads after the first page. */ runStore?: RunStore }) {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <ConnectionProvider>
        <RunStoreProvider store={runStore}>
          <SlotsProvider slots={consoleSlots}>
            {children}
            <Suspense fallback={null}>
              <HistoryKeeper />
            </Suspense>
          </SlotsProvider>
        </RunStoreProvider>
      </ConnectionProvider>
    </QueryClientProvider>
  );
}

export function App() {
  return (
    <AppProviders>
      <BrowserRouter>
        <Layout />
      </BrowserRouter>
    </AppProviders>
  );
}
