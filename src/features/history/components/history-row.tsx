import { Link } from 'react-router';
import { SANDBOX_FAULT_HEADER } from '../../../contract/sandbox-fault';
import { download, exportFileName } from '../../../lib/download';
import { formatBytes, formatCount } from '../../../lib/format';
import { exportRun, PIN_LIMIT, setPinned, type HistoryEntry } from '../../../db/history';
import { statusText, statusTone } from '../../../engine/run-machine';
import { faultOfRequest } from '../../../engine/run-request';
import type { RunConnection } from '../../../engine/run-record';
import { sizeText, threadPath, threadsOf } from '../../../engine/thread';
import { threadExport } from '../../../engine/thread-file';
import { goesOn, useFigures } from '../../../hooks/use-history';
import { conversationEntries } from '../../../hooks/use-history-list';
import { useSlots } from '../../../components/slots';

const runPath = (e: HistoryEntry) => `/runs/${encodeURIComponent(e.request.agentId)}/${encodeURIComponent(e.runId!)}`;

/** The decisions taken on a durable run, as its outcome depends on them: "you rejected “Submit expense report”". */
function decisionsOf(e: HistoryEntry): string {
  const all = (e.transitions ?? []).flatMap((t) => t.decisions ?? []);
  return all.map((d) => `you ${d.decision === 'APPROVE' ? 'approved' : 'rejected'} “${d.name}”`).join(', ');
}

/** A run, or a conversation told by its title and its newest turn. */
export interface ThreadLine {
  id: string;
  agentId: string;
  /** Its first question. */
  title: string;
  turns: number;
  branches: number;
}

/** A conversation's file, with every turn (read when asked: the list holds only the newest). */
async function exportConversation(thread: ThreadLine): Promise<void> {
  const whole = threadsOf(await conversationEntries(thread.id))[0];
  if (!whole) return;
  const f = threadExport(whole);
  download(f.name, f.text);
}

export function HistoryRow({ r, thread, connection, unreadable, open, setOpen, onLoad, compareFrom, setCompareFrom, pinned, pinsFull }: {
  r: HistoryEntry;
  /** Whether its item (the conversation, or the run) is pinned: retention never lets it go. */
  pinned: boolean;
  /** PIN_LIMIT items are pinned: no other can be. */
  pinsFull: boolean;
  /** The run chosen first for a comparison, if one is. */
  compareFrom: string | null;
  setCompareFrom(id: string | null): void;
  /** The conversation the run is the newest turn of, as History's list tells it. */
  thread?: ThreadLine;
  connection: RunConnection;
  unreadable: Map<string, string>;
  open: string | null;
  setOpen(id: string | null): void;
  onLoad(entry: HistoryEntry): void;
}) {
  const { SaveTestCase } = useSlots();
  const otherProfile = r.target.profileId !== undefined && r.target.profileId !== connection.profileId;
  const figures = useFigures(r);
  const itemId = thread?.id ?? r.id;
  return (
    <li>
      <div className="history-row">
        {thread && (
          <p className="history-thread">
            <Link to={threadPath(thread)} className="thread-title">
              {thread.title}
            </Link>{' '}
            <span className="muted">
              · conversation, {sizeText(thread.turns, thread.branches)}
              {r.imported && ` · imported${r.imported.fileName ? ` from ${r.imported.fileName}` : ''}`} · last turn:
            </span>
          </p>
        )}
        <p className="history-summary">
          <Link to={`/runs/${encodeURIComponent(r.request.agentId)}`}>{r.request.agentName ?? r.request.agentId}</Link> ·{' '}
          {r.request.flavour === 'legacy' ? 'legacy' : 'current'} {r.request.mode} ·{' '}
          <span className={`status status-${statusTone(r.status)}`}>{statusText(r.status, r.unknownState)}</span>
          {decisionsOf(r) && ` · ${decisionsOf(r)}`}
          {figures.durationMs !== undefined && ` · ${formatCount(figures.durationMs)} ms`}
          {figures.eventCount ? ` · ${formatCount(figures.eventCount)} events` : ''}
          {figures.bytes ? ` · ${formatBytes(figures.bytes)}` : ''} · profile {r.target.profileLabel || '(unnamed)'} ·{' '}
          <time dateTime={new Date(r.startedAt).toISOString()}>{new Date(r.startedAt).toLocaleString()}</time>
        </p>
        {r.runId && (
          <p className="history-run">
            Run {r.imported ? <code>{r.runId}</code> : <Link to={runPath(r)}>{r.runId}</Link>}
            {r.imported ? (
              <span className="muted"> · imported: a record of the run, not read from here</span>
            ) : (
              figures.lastReadAt !== undefined && (
                <span className="muted">
                  {' '}
                  · last read <time dateTime={new Date(figures.lastReadAt).toISOString()}>{new Date(figures.lastReadAt).toLocaleTimeString()}</time>
                </span>
              )
            )}
            {goesOn(r) && otherProfile && <span className="muted"> · ran on profile {r.target.profileLabel}: choose it to read the run again</span>}
            {unreadable.has(r.id) && <span className="warn"> · could not be read again ({unreadable.get(r.id)})</span>}
          </p>
        )}
        <div className="toolbar">
          {thread && (
            <Link className="button" to={threadPath(thread)}>
              Open conversation
            </Link>
          )}
          <button
            type="button"
            aria-pressed={pinned}
            disabled={!pinned && pinsFull}
            onClick={() => void setPinned(itemId, !pinned)}
            title={
              pinned
                ? 'Pinned: history never lets it go, and it does not count against history’s limits. Click to unpin.'
                : pinsFull
                  ? `${PIN_LIMIT} items are pinned, the most history keeps: unpin one first`
                  : 'Keep it in history whatever the limits (pinned items do not count against them)'
            }
          >
            {pinned ? 'Pinned' : 'Pin'}
          </button>
          <button type="button" aria-expanded={open === r.id} onClick={() => setOpen(open === r.id ? null : r.id)}>
            {open === r.id ? 'Hide' : 'View'}
          </button>
          {thread && (
            <button type="button" onClick={() => void exportConversation(thread)}>
              Export conversation
            </button>
          )}
          <button type="button" onClick={() => void exportRun(r).then((text) => download(exportFileName('run', r.request.agentId, r.startedAt, r.id), text))}>
            {thread ? 'Export last turn' : 'Export JSON'}
          </button>
          <button type="button" onClick={() => onLoad(r)} title="Loads this run's agent, API, mode and input into the form; nothing is sent until you run it">
            Run again…
          </button>
          <SaveTestCase entry={r} />
          {compareFrom === null ? (
            <button type="button" onClick={() => setCompareFrom(r.id)} title="Choose this run, then another, to see both side by side">
              Compare…
            </button>
          ) : compareFrom === r.id ? (
            <button type="button" aria-pressed="true" onClick={() => setCompareFrom(null)}>
              Chosen to compare (cancel)
            </button>
          ) : (
            <Link className="button" to={`/compare/${encodeURIComponent(compareFrom)}/${encodeURIComponent(r.id)}`}>
              Compare with the chosen run
            </Link>
          )}
        </div>
      </div>
      {open === r.id && (
        <div className="history-detail">
          <p>
            <code>POST {r.request.path}</code> <span className="muted">· profile {r.target.profileLabel}</span>
            {faultOfRequest(r.request) !== undefined && (
              <>
                <br />
                <code>
                  {SANDBOX_FAULT_HEADER}: {faultOfRequest(r.request)}
                </code>
              </>
            )}
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
}

