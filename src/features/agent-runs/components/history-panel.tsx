import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { formatBytes, formatCount } from '../../../lib/format';
import { clearHistory, exportRun, historyQueryOptions, type HistoryEntry } from '../model/history';
import { STATUS_TEXT } from './response-panel';

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function statusText(status: string): string {
  return (STATUS_TEXT as Record<string, string>)[status] ?? status;
}

/** Every run kept in this browser: view, export (never with a token), run again. Each row says what its request said. */
export function HistoryPanel({ onRerun, canRun }: { onRerun(entry: HistoryEntry): void; canRun: boolean }) {
  const queryClient = useQueryClient();
  const history = useQuery(historyQueryOptions);
  const [open, setOpen] = useState<string | null>(null);
  const runs = history.data ?? [];
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
        {runs.map((r) => (
          <li key={r.id}>
            <div className="history-row">
              <span>
                <Link to={`/runs/${encodeURIComponent(r.request.agentId)}`}>{r.request.agentName ?? r.request.agentId}</Link> ·{' '}
                {r.request.flavour === 'legacy' ? 'legacy' : 'current'} {r.request.mode} · <span className={`status status-${r.status}`}>{statusText(r.status)}</span> ·{' '}
                {formatCount(r.durationMs)} ms
                {r.eventCount ? ` · ${formatCount(r.eventCount)} events` : ''}
                {r.bytes ? ` · ${formatBytes(r.bytes)}` : ''}
                {r.runId && (
                  <>
                    {' · run '}
                    <Link to={`/runs/${encodeURIComponent(r.request.agentId)}/${encodeURIComponent(r.runId)}`}>{r.runId}</Link>
                  </>
                )} · <time dateTime={new Date(r.startedAt).toISOString()}>{new Date(r.startedAt).toLocaleString()}</time>
              </span>
              <button type="button" aria-expanded={open === r.id} onClick={() => setOpen(open === r.id ? null : r.id)}>
                {open === r.id ? 'Hide' : 'View'}
              </button>
              <button type="button" onClick={() => void exportRun(r).then((text) => download(`${r.id}.json`, text))}>
                Export JSON
              </button>
              <button type="button" disabled={!canRun} onClick={() => onRerun(r)} title={canRun ? 'Sends a new POST with the same body' : 'A run is in flight'}>
                Run again
              </button>
            </div>
            {open === r.id && (
              <div className="history-detail">
                <p>
                  <code>POST {r.request.path}</code> {r.target.profileLabel && <span className="muted">· profile {r.target.profileLabel}</span>}
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
        ))}
      </ul>
    </section>
  );
}
