import { useLiveQuery } from 'dexie-react-hooks';
import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { PageTitle } from '../../../components/page-title';
import { download } from '../../../lib/download';
import { SuiteCases } from '../components/suite-cases';
import { SuiteCompare } from '../components/suite-compare';
import { SuiteResults } from '../components/suite-results';
import { RunsKeptNote, SuiteRunPanel, useLiveSuiteRun } from '../components/suite-run-panel';
import { consoleDb } from '../../../db/console-db';
import { putSuite } from '../model/suite-db';
import { suiteRuns } from '../model/suite-runs';
import { suiteFileOf } from '../../../engine/suites/suite-file';

/**
 * /suites/:suiteId: a suite's cases with their last result, **Run suite** (against this or another
 * profile, the other API, another agent), the results of a run case by case, two runs compared,
 * **Export suite**.
 */
export function SuitePage() {
  const { suiteId = '' } = useParams();
  const navigate = useNavigate();
  const suite = useLiveQuery(() => consoleDb().suites.get(suiteId).then((s) => s ?? null), [suiteId]);
  const runs = useLiveQuery(() => consoleDb().suiteRuns.where('suiteId').equals(suiteId).reverse().sortBy('startedAt'), [suiteId]);
  const live = useLiveSuiteRun(suiteId);
  // The same array between renders (the page renders at every progress of a run): Compare renders again only when the runs change.
  const ended = useMemo(() => runs?.filter((r) => r.status !== 'running'), [runs]);
  const [shown, setShown] = useState<string>();
  const [confirmDelete, setConfirmDelete] = useState(false);
  if (suite === undefined) return <p role="status">Loading the suite…</p>;
  if (suite === null)
    return (
      <div className="error-panel" role="alert">
        <p>No suite “{suiteId}” in this browser: it was deleted, or kept in another browser.</p>
        <Link to="/suites">All suites</Link>
      </div>
    );
  // The run shown: the one chosen, else the one going on (or just ended) in this tab, else the newest kept.
  const shownId = shown ?? live?.id ?? runs?.[0]?.id;
  return (
    <div className="suite">
      <PageTitle title={`Suite · ${suite.name}`} />
      <p>
        <Link to="/suites">← All suites</Link>
      </p>
      <div className="toolbar">
        <h1>
          <span className="visually-hidden">Suite </span>
          <input
            className="suite-name"
            aria-label="Suite name"
            defaultValue={suite.name}
            key={suite.name}
            onBlur={(e) => {
              const name = e.target.value.trim();
              if (name && name !== suite.name) void putSuite({ ...suite, name });
            }}
          />
        </h1>
        <button type="button" onClick={() => download(`suite-${suite.name.replace(/[^\w.-]+/g, '-').slice(0, 60)}.json`, JSON.stringify(suiteFileOf(suite), null, 2))}>
          Export suite
        </button>
        {confirmDelete ? (
          <span className="confirm">
            Delete the suite, its {suite.cases.length} cases and their results?{' '}
            <button type="button" className="danger" onClick={() => void suiteRuns.deleteSuite(suite.id).then(() => navigate('/suites'))}>
              Delete suite
            </button>
            <button type="button" onClick={() => setConfirmDelete(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" onClick={() => setConfirmDelete(true)}>
            Delete suite…
          </button>
        )}
      </div>
      <SuiteRunPanel suite={suite} live={live} onStarted={() => setShown(undefined)} />
      <SuiteCases suite={suite} lastRunId={runs?.find((r) => r.status !== 'running')?.id} />
      {runs && runs.length > 0 && (
        <div className="field suite-run-choice">
          <label htmlFor="suite-run-shown">Results of</label>
          <select id="suite-run-shown" value={shownId} onChange={(e) => setShown(e.target.value)}>
            {runs.map((r) => (
              <option key={r.id} value={r.id}>
                {new Date(r.startedAt).toLocaleString()} · profile {r.target.profileLabel}
                {r.target.api ? ` · ${r.target.api === 'legacy' ? 'legacy' : 'current'} API` : ''}
                {r.target.agentId ? ` · agent ${r.target.agentId}` : ''} · {r.summary ? `${r.summary.passed} passed, ${r.summary.failed} failed` : r.status}
              </option>
            ))}
          </select>
          <RunsKeptNote runs={runs} />
        </div>
      )}
      {shownId && <SuiteResults key={shownId} suiteRunId={shownId} live={live?.id === shownId && !live.ended ? live : undefined} />}
      {ended && ended.length > 1 && <SuiteCompare runs={ended} />}
    </div>
  );
}
