import { useLiveQuery } from 'dexie-react-hooks';
import { memo, useCallback, useEffect, useState } from 'react';
import { TableScroll } from '../../../components/table-scroll';
import { formatCount } from '../../../lib/format';
import { consoleDb, type StoredCaseResult } from '../../../db/console-db';
import type { HistoryDetails, HistoryEntry } from '../../../engine/history-entry';
import type { DurableRun } from '../../../contract/durable-runs';
import type { RunWaitResponse } from '../../../contract/agents';
import { recordOfEntry, type RunRecord } from '../../../engine/run-record';
import { StreamLog } from '../../../engine/stream-log';
import { caseDetails, resultsOf } from '../model/suite-db';
import type { LiveResult, LiveSuiteRun } from '../model/suite-runs';
import { SummaryView } from './suite-run-panel';
import { useSlots } from '../../../components/slots';

/** A kept case run as a record the run views show: a stream's log rebuilt from its events, a wait's answer, a durable run's last read. */
export function recordOfResult(entry: HistoryEntry, details: HistoryDetails): RunRecord {
  const base = recordOfEntry(entry);
  const mode = entry.request.mode;
  if (mode === 'stream' && details.events) {
    const log = new StreamLog(entry.request.flavour, 0, () => undefined);
    if (entry.meta) log.open(entry.meta);
    for (const e of details.events) log.event({ id: e.id, event: e.event, data: e.data }, e.at);
    log.finish();
    return { ...base, log, summary: undefined };
  }
  if (mode === 'wait' && details.result !== undefined && entry.meta) {
    return { ...base, answer: { ...entry.meta, rawBody: JSON.stringify(details.result), data: details.result as RunWaitResponse } };
  }
  if (mode === 'durable' && details.result !== undefined) {
    const run = details.result as DurableRun;
    return { ...base, state: { ...base.state, durable: { run, requestId: entry.meta?.requestId ?? '', readAt: entry.lastReadAt ?? entry.startedAt } } };
  }
  return base;
}

/** A case's run, read from the database when opened: timeline, chart, answer. */
function CaseRun({ result }: { result: StoredCaseResult }) {
  const { RunBody } = useSlots();
  const [record, setRecord] = useState<RunRecord | null>();
  useEffect(() => {
    let live = true;
    void caseDetails(result.id).then((d) => live && setRecord(recordOfResult(result.entry, d ?? {})), () => live && setRecord(null));
    return () => {
      live = false;
    };
  }, [result]);
  if (record === undefined) return <p role="status">Reading the run…</p>;
  if (record === null) return <p className="error">This run’s events and answer could not be read.</p>;
  return (
    <div className="response-body suite-case-run">
      <p className="muted">
        <code>POST {result.entry.request.path}</code> · {result.entry.request.flavour === 'legacy' ? 'legacy API' : 'current API'}, {result.entry.request.mode}
      </p>
      <RunBody run={record} />
    </div>
  );
}

function CaseDetail({ result }: { result: StoredCaseResult }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="suite-case-detail">
      <ul className="assertion-results">
        {result.assertions.map((a, i) => (
          <li key={i} className={a.pass ? 'pass' : 'fail'}>
            <span aria-hidden="true">{a.pass ? '✓' : '✗'}</span> <span className="visually-hidden">{a.pass ? 'Passed:' : 'Failed:'}</span> {a.expected}
            <span className="muted"> — actual: {a.actual}</span>
          </li>
        ))}
        {result.assertions.length === 0 && <li className="muted">No assertion: the case passes whatever the run does.</li>}
      </ul>
      {result.notes?.map((note, i) => (
        <p key={i} className="muted">
          {note}
        </p>
      ))}
      {result.decisions && (
        <p className="muted">Approvals: {result.decisions.map((d) => `${d.decision === 'APPROVE' ? 'approved' : 'rejected'} ${d.name}${d.byDefault ? ' (by default)' : ''}`).join(', ')}.</p>
      )}
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'Close its run' : 'Open its run'}
      </button>
      {open && <CaseRun result={result} />}
    </div>
  );
}

/** One case's row (and its details when open). Memoized: while a suite runs, the list renders again at every progress, its rows need not. */
const ResultRow = memo(function ResultRow({ r, open, onToggle }: { r: LiveResult | StoredCaseResult; open: boolean; onToggle(key: string): void }) {
  const stored = 'assertions' in r ? r : undefined;
  const failing = stored ? stored.assertions.filter((a) => !a.pass).length : (r as LiveResult).failing;
  const first = stored ? stored.entry.firstEventMs : (r as LiveResult).firstEventMs;
  const duration = stored ? stored.entry.durationMs : (r as LiveResult).durationMs;
  return (
    <>
      <tr>
        <td>
          {stored ? (
            <button type="button" className="link-button" aria-expanded={open} onClick={() => onToggle(r.key)}>
              {r.name}
            </button>
          ) : (
            r.name
          )}
        </td>
        <td>
          <span className={`status status-${verdictTone[r.verdict]}`}>{r.verdict}</span>
        </td>
        <td>{first === undefined ? '–' : `${formatCount(first)} ms`}</td>
        <td>{formatCount(duration)} ms</td>
        <td>{failing ? `${formatCount(failing)} failed` : stored ? `${formatCount(stored.assertions.length)} passed` : 'passed'}</td>
      </tr>
      {stored && open && (
        <tr>
          <td colSpan={5}>
            <CaseDetail result={stored} />
          </td>
        </tr>
      )}
    </>
  );
});

const PAGE = 100;
const verdictTone = { passed: 'done', failed: 'failed', stopped: 'stopped' } as const;

/** The results of one suite run, failures first; while it runs here, as they come. */
export function SuiteResults({ suiteRunId, live }: { suiteRunId: string; live?: LiveSuiteRun }) {
  // While the run goes on, the page lists what it has in memory: a query of the database per batch would cost the page its frames.
  const kept = useLiveQuery(
    async () =>
      live
        ? null
        : {
            run: await consoleDb().suiteRuns.get(suiteRunId),
            results: await resultsOf(suiteRunId),
          },
    [suiteRunId, live === undefined],
  );
  const [shown, setShown] = useState(PAGE);
  const [openKey, setOpenKey] = useState<string>();
  const toggle = useCallback((key: string) => setOpenKey((k) => (k === key ? undefined : key)), []);
  const rows: (LiveResult | StoredCaseResult)[] = live ? [...live.results] : (kept?.results ?? []);
  const sorted = [...rows].sort((a, b) => (a.verdict === 'failed' ? 0 : 1) - (b.verdict === 'failed' ? 0 : 1) || a.index - b.index);
  return (
    <section className="suite-results" aria-labelledby="suite-results-head">
      <h2 id="suite-results-head">Results</h2>
      {kept?.run && (
        <p className="muted">
          Run of {new Date(kept.run.startedAt).toLocaleString()} against profile {kept.run.target.profileLabel}
          {kept.run.target.api && `, every case on the ${kept.run.target.api === 'legacy' ? 'legacy' : 'current'} API`}
          {kept.run.target.agentId && `, agent ${kept.run.target.agentId}`}, {kept.run.concurrency} at a time · {kept.run.status}
        </p>
      )}
      {kept?.run?.summary && <SummaryView summary={kept.run.summary} />}
      {/* Until the kept results are read (in pieces; and when the run has just ended here, the live
          query still holds its live-phase null), none is said to be missing. */}
      {!live && !kept && <p className="muted">Reading the kept results…</p>}
      {rows.length === 0 && (live || kept) && <p className="muted">{live ? 'No case has ended yet.' : 'No result kept for this run.'}</p>}
      {rows.length > 0 && (
        <TableScroll label="Results by case">
          <table className="suite-result-table">
            <thead>
              <tr>
                <th scope="col">Case</th>
                <th scope="col">Result</th>
                <th scope="col">First event</th>
                <th scope="col">Duration</th>
                <th scope="col">Assertions</th>
              </tr>
            </thead>
            <tbody>
              {sorted.slice(0, shown).map((r) => (
                <ResultRow key={r.key} r={r} open={openKey === r.key} onToggle={toggle} />
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {sorted.length > shown && (
        <button type="button" onClick={() => setShown(shown + PAGE)}>
          Show {formatCount(Math.min(PAGE, sorted.length - shown))} more of {formatCount(sorted.length - shown)}
        </button>
      )}
    </section>
  );
}
