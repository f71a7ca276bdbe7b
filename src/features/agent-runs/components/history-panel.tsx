import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { formatBytes, formatCount } from '../../../lib/format';
import { clearHistory, exportRun, historyQueryOptions, type HistoryEntry } from '../model/history';
import { isFollowed, statusText, statusTone, type RunStatus } from '../model/run-machine';
import { historyEntryOf } from '../model/run-record';
import type { RunConnection } from '../model/run-store';
import { useRunStore, useRuns } from '../model/run-store-context';

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const runPath = (e: HistoryEntry) => `/runs/${encodeURIComponent(e.request.agentId)}/${encodeURIComponent(e.runId!)}`;
const goesOn = (e: HistoryEntry) => e.runId !== undefined && isFollowed(e.status as RunStatus);

/** The decisions taken on a durable run, as its outcome depends on them: "you rejected “Submit expense report”". */
function decisionsOf(e: HistoryEntry): string {
  const all = (e.transitions ?? []).flatMap((t) => t.decisions ?? []);
  return all.map((d) => `you ${d.decision === 'APPROVE' ? 'approved' : 'rejected'} “${d.name}”`).join(', ');
}

/**
 * Durable runs still going on, as history last saw them, are read again and followed while
 * history shows them, with the profile they ran on (only the current one's token is at hand:
 * the others say so).
 */
function useFollowActive(entries: HistoryEntry[], connection: RunConnection): void {
  const store = useRunStore();
  const active = entries.filter((e) => goesOn(e) && e.target.profileId === connection.profileId);
  const ids = active.map((e) => e.id).join(' ');
  useEffect(() => {
    const unwatch = active.map((e) => store.watch((store.get(e.id) ?? store.open(connection, e.request.agentId, e.runId!, e)).id));
    return () => unwatch.forEach((u) => u());
    // Once per set of active runs shown, with the connection of the moment.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ids, store]);
}

/**
 * Every run kept in this browser: its real outcome (a durable run's as last read), the
 * profile it ran on, view, export (never with a token), and Run again, which loads the run's
 * request into the form without sending anything.
 */
export function HistoryPanel({ connection, onLoad }: { connection: RunConnection; onLoad(entry: HistoryEntry): void }) {
  const queryClient = useQueryClient();
  const store = useRunStore();
  useRuns(); // a held run's changes show at once, before history is written again
  const history = useQuery(historyQueryOptions);
  const [open, setOpen] = useState<string | null>(null);
  // A run the console holds is shown as it is now (once it has been read); history has what it last saved of it.
  const unreadable = new Map<string, string>();
  const runs = (history.data ?? []).map((e) => {
    const held = store.get(e.id);
    if (!held) return e;
    if (held.origin === 'sent' && !held.runId) return historyEntryOf(held);
    if (held.state.durable) return historyEntryOf(held);
    if (held.state.refusal) unreadable.set(e.id, held.state.refusal.message);
    return e;
  });
  useFollowActive(runs, connection);
  return (
    <section className="history" aria-labelledby="history-heading">
      <div className="toolbar">
        <h2 id="history-heading">History</h2>
        <span className="muted">Kept in this browser (IndexedDB); tokens are never stored.</span>
        <button
          type="button"
          disabled={!runs.length}
          onClick={() => void clearHistory().then(() => queryClient.invalidateQueries({ queryKey: historyQueryOptions.queryKey }))}
        >
          Clear history
        </button>
      </div>
      {history.isError && <p className="error">History is unavailable in this browser: {String(history.error)}</p>}
      {runs.length === 0 && history.isSuccess && <p className="muted">No runs yet.</p>}
      <ul className="history-list">
        {runs.map((r) => {
          const otherProfile = r.target.profileId !== undefined && r.target.profileId !== connection.profileId;
          return (
            <li key={r.id}>
              <div className="history-row">
                <p className="history-summary">
                  <Link to={`/runs/${encodeURIComponent(r.request.agentId)}`}>{r.request.agentName ?? r.request.agentId}</Link> ·{' '}
                  {r.request.flavour === 'legacy' ? 'legacy' : 'current'} {r.request.mode} ·{' '}
                  <span className={`status status-${statusTone(r.status)}`}>{statusText(r.status, r.unknownState)}</span>
                  {decisionsOf(r) && ` · ${decisionsOf(r)}`}
                  {!goesOn(r) && ` · ${formatCount(r.durationMs)} ms`}
                  {r.eventCount ? ` · ${formatCount(r.eventCount)} events` : ''}
                  {r.bytes ? ` · ${formatBytes(r.bytes)}` : ''} · profile {r.target.profileLabel || '(unnamed)'} ·{' '}
                  <time dateTime={new Date(r.startedAt).toISOString()}>{new Date(r.startedAt).toLocaleString()}</time>
                </p>
                {r.runId && (
                  <p className="history-run">
                    Run <Link to={runPath(r)}>{r.runId}</Link>
                    {r.lastReadAt !== undefined && (
                      <span className="muted">
                        {' '}
                        · last read <time dateTime={new Date(r.lastReadAt).toISOString()}>{new Date(r.lastReadAt).toLocaleTimeString()}</time>
                      </span>
                    )}
                    {goesOn(r) && otherProfile && <span className="muted"> · ran on profile {r.target.profileLabel}: choose it to read the run again</span>}
                    {unreadable.has(r.id) && <span className="warn"> · could not be read again ({unreadable.get(r.id)})</span>}
                  </p>
                )}
                <div className="toolbar">
                  <button type="button" aria-expanded={open === r.id} onClick={() => setOpen(open === r.id ? null : r.id)}>
                    {open === r.id ? 'Hide' : 'View'}
                  </button>
                  <button type="button" onClick={() => void exportRun(r).then((text) => download(`${r.id}.json`, text))}>
                    Export JSON
                  </button>
                  <button type="button" onClick={() => onLoad(r)} title="Loads this run's agent, API, mode and input into the form; nothing is sent until you run it">
                    Run again…
                  </button>
                </div>
              </div>
              {open === r.id && (
                <div className="history-detail">
                  <p>
                    <code>POST {r.request.path}</code> <span className="muted">· profile {r.target.profileLabel}</span>
                  </p>
                  <pre className="raw" aria-label="Request body">
                    {JSON.stringify(r.request.body, null, 2)}
                  </pre>
                  {r.failure && (
                    <p className="error">
                      {r.failure.title}: {r.failure.detail}
                    </p>
                  )}
                  {r.problem && <p className="error">{r.problem}</p>}
                  <p>Transcript:</p>
                  <pre className="raw">{r.transcript || '(empty)'}</pre>
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
