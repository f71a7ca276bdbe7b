import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { SANDBOX_FAULT_HEADER } from '../../../contract/sandbox-fault';
import { download, exportFileName } from '../../../lib/download';
import { formatBytes, formatCount } from '../../../lib/format';
import { clearHistory, dismissEviction, exportRun, HISTORY_BYTES_LIMIT, HISTORY_LIMIT, importRuns, itemsText, mayChange, setPinned, undoClear, type HistoryEntry } from '../../../db/history';
import { statusText, statusTone } from '../../../engine/run-machine';
import { faultOfRequest } from '../../../engine/run-request';
import type { RunConnection } from '../../../engine/run-record';
import { lastAt, matches, sizeOf, threadPath, threadsOf, titleOf, type Thread } from '../../../engine/thread';
import { entriesOfFile, parseThreadFile, sizeProblem, threadExport } from '../../../engine/thread-file';
import { goesOn, useEviction, useFigures, useHistory, useItems, useLastClear } from '../../../hooks/use-history';
import { escapeCancels } from '../../../lib/use-page-escape';
import { useSlots } from '../../../components/slots';

const runPath = (e: HistoryEntry) => `/runs/${encodeURIComponent(e.request.agentId)}/${encodeURIComponent(e.runId!)}`;

/** The decisions taken on a durable run, as its outcome depends on them: "you rejected “Submit expense report”". */
function decisionsOf(e: HistoryEntry): string {
  const all = (e.transitions ?? []).flatMap((t) => t.decisions ?? []);
  return all.map((d) => `you ${d.decision === 'APPROVE' ? 'approved' : 'rejected'} “${d.name}”`).join(', ');
}

/** Whether a run outside any thread has `query` in its agent, body or answer. */
function runMatches(e: HistoryEntry, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  return [e.request.agentName ?? '', e.request.agentId, JSON.stringify(e.request.body), e.transcript].some((s) => s.toLowerCase().includes(q));
}

type Item = { kind: 'thread'; thread: Thread; at: number } | { kind: 'run'; entry: HistoryEntry; at: number };

/** A run, or a conversation told by its title and its newest turn. */
function HistoryRow({ r, thread, connection, unreadable, open, setOpen, onLoad, compareFrom, setCompareFrom, pinned }: {
  r: HistoryEntry;
  /** Whether its item (the conversation, or the run) is pinned: retention never lets it go. */
  pinned: boolean;
  /** The run chosen first for a comparison, if one is. */
  compareFrom: string | null;
  setCompareFrom(id: string | null): void;
  thread?: Thread;
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
              {titleOf(thread)}
            </Link>{' '}
            <span className="muted">
              · conversation, {sizeOf(thread)}
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
            onClick={() => void setPinned(itemId, !pinned)}
            title={pinned ? 'Pinned: history never lets it go. Click to unpin.' : 'Keep it in history whatever the limits'}
          >
            {pinned ? 'Pinned' : 'Pin'}
          </button>
          <button type="button" aria-expanded={open === r.id} onClick={() => setOpen(open === r.id ? null : r.id)}>
            {open === r.id ? 'Hide' : 'View'}
          </button>
          {thread && (
            <button type="button" onClick={() => { const f = threadExport(thread); download(f.name, f.text); }}>
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

/**
 * Every conversation and run kept in this browser, newest first and searchable: a
 * conversation by its first question, with its agent, profile, turns and last outcome; a run
 * with its real outcome (a durable run's as last read), view, export (never with a token), and
 * Run again, which loads the run's request into the form without sending anything. A
 * conversation file is imported here.
 */
export function HistoryPanel({ connection, onLoad, onImported }: {
  connection: RunConnection;
  onLoad(entry: HistoryEntry): void;
  /** A conversation was imported from a file: where to show it. */
  onImported(thread: Thread): void;
}) {
  const history = useHistory();
  const { entries, unreadable } = history;
  const itemsById = useItems();
  const eviction = useEviction();
  const cleared = useLastClear();
  const [open, setOpen] = useState<string | null>(null);
  const [chosen, setCompareFrom] = useState<string | null>(null);
  // A chosen run that left history (cleared, or past the limit) is no longer chosen.
  const compareFrom = chosen !== null && entries.some((e) => e.id === chosen) ? chosen : null;
  const [query, setQuery] = useState('');
  const [importError, setImportError] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);
  const [confirmClear, setConfirmClear] = useState(false);
  const [clearNote, setClearNote] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  // The control that asked (Clear history…, Undo) leaves the page when answered: focus goes to the
  // next thing to do instead of falling to the page's body, where a keyboard user starts over.
  const clearButton = useRef<HTMLButtonElement>(null);
  const undoButton = useRef<HTMLButtonElement>(null);
  const focusNext = useRef<'clear' | 'undo' | null>(null);
  const section = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!focusNext.current) return;
    const active = document.activeElement;
    // Moved on elsewhere meanwhile: leave focus where the user put it.
    if (active && active !== document.body && !section.current?.contains(active)) {
      focusNext.current = null;
      return;
    }
    const target = focusNext.current === 'clear' ? clearButton.current : undoButton.current;
    if (target && !target.disabled) {
      target.focus();
      focusNext.current = null;
    }
  });
  const threads = threadsOf(entries);
  const items: Item[] = [
    ...threads.filter((t) => matches(t, query)).map((thread) => ({ kind: 'thread' as const, thread, at: lastAt(thread) })),
    ...entries.filter((e) => !e.request.thread && runMatches(e, query)).map((entry) => ({ kind: 'run' as const, entry, at: entry.startedAt })),
  ].sort((a, b) => b.at - a.at);
  // What Clear history leaves: runs that may still change (an imported record, or an older version's entry, never does).
  // Such a run stays with its whole conversation, so neither is counted among what leaves.
  const stays = entries.filter(mayChange);
  const goingOn = stays.length;
  const staying = new Set(stays.map((e) => e.request.thread?.id ?? e.id));
  const conversations = threads.filter((t) => !staying.has(t.id)).length;
  const lone = entries.filter((e) => !e.request.thread && !staying.has(e.id)).length;

  const importFile = async (file: File) => {
    setImportError(null);
    setImporting(true);
    try {
      const tooLarge = sizeProblem(file.size);
      if (tooLarge) return setImportError(`${file.name}: ${tooLarge}`);
      const parsed = await parseThreadFile(await file.text());
      if (!parsed.ok) return setImportError(`${file.name}: ${parsed.error}`);
      const importedAt = Date.now();
      const turns = entriesOfFile(parsed.file, importedAt, file.name);
      await importRuns(turns, importedAt);
      onImported(threadsOf(turns)[0]!);
    } finally {
      setImporting(false);
    }
  };
  const clear = async () => {
    setConfirmClear(false);
    const result = await clearHistory();
    focusNext.current = 'undo';
    setClearNote(result.kept ? `${formatCount(result.kept)} ${result.kept === 1 ? 'run' : 'runs'} still going on stayed in history.` : null);
  };

  return (
    <section ref={section} className="history" aria-labelledby="history-heading">
      <div className="toolbar">
        <h2 id="history-heading">History</h2>
        <span className="muted">Kept in this browser (IndexedDB); tokens are never stored.</span>
        <button type="button" onClick={() => fileInput.current?.click()} disabled={importing}>
          {importing ? 'Importing…' : 'Import conversation…'}
        </button>
        <input
          ref={fileInput}
          type="file"
          accept=".json,application/json"
          className="visually-hidden"
          tabIndex={-1}
          aria-label="Conversation file to import"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) void importFile(file).catch((err: unknown) => setImportError(`${file.name}: ${err instanceof Error ? err.message : String(err)}`));
          }}
        />
        <button ref={clearButton} type="button" disabled={!entries.length || confirmClear} onClick={() => setConfirmClear(true)}>
          Clear history…
        </button>
      </div>
      {confirmClear && (
        <div
          className="warning"
          role="alertdialog"
          aria-labelledby="clear-heading"
          aria-describedby="clear-what"
          onKeyDown={(e) =>
            escapeCancels(e, () => {
              setConfirmClear(false);
              focusNext.current = 'clear';
            })
          }
        >
          <p id="clear-heading">
            <strong>Clear history?</strong>
          </p>
          <p id="clear-what">
            {conversations + lone === 0 ? 'Nothing leaves' : `${itemsText(conversations, lone)} ${conversations + lone === 1 ? 'leaves' : 'leave'}`} this browser’s history
            {goingOn ? `; ${formatCount(goingOn)} ${goingOn === 1 ? 'run' : 'runs'} still going on ${goingOn === 1 ? 'stays, with its conversation' : 'stay, with their conversations'}` : ''}. You can undo it.
          </p>
          <div className="toolbar">
            <button type="button" className="danger" onClick={() => void clear()} autoFocus>
              Clear history
            </button>
            <button
              type="button"
              onClick={() => {
                setConfirmClear(false);
                focusNext.current = 'clear';
              }}
            >
              Cancel
            </button>
          </div>
        </div>
      )}
      {cleared && (
        <p className="notice" role="status">
          History cleared: {itemsText(cleared.conversations, cleared.runs)} taken out{clearNote ? `; ${clearNote}` : '.'}{' '}
          <button
            ref={undoButton}
            type="button"
            onClick={() =>
              void undoClear(cleared.id).then(() => {
                setClearNote(null);
                focusNext.current = 'clear';
              })
            }
          >
            Undo
          </button>
        </p>
      )}
      {eviction && (
        <div className="notice" role="status">
          <p>
            History let go of {eviction.items.length === 1 ? 'an older item' : `${formatCount(eviction.items.length)} older items`} to stay within{' '}
            {eviction.items.some((i) => i.reason === 'size') ? formatBytes(eviction.limits?.bytes ?? HISTORY_BYTES_LIMIT) : `${eviction.limits?.items ?? HISTORY_LIMIT} items`} (pinned items and conversations on
            screen are never let go):{' '}
            {eviction.items
              .slice(0, 5)
              .map((i) => `${i.kind === 'thread' ? 'conversation' : 'run'} “${i.title}”`)
              .join(', ')}
            {eviction.items.length > 5 && `, and ${formatCount(eviction.items.length - 5)} more`}.
          </p>
          <button type="button" onClick={() => void dismissEviction()}>
            Dismiss
          </button>
        </div>
      )}
      {importError && (
        <p className="error" role="alert">
          Not imported: {importError}
        </p>
      )}
      {entries.length > 0 && (
        <div className="field history-search">
          <label htmlFor="history-search">Search history</label>
          <input id="history-search" type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="question, answer or agent" />
        </div>
      )}
      {history.isError && <p className="error">History is unavailable in this browser: {String(history.error)}</p>}
      {entries.length === 0 && history.isSuccess && <p className="muted">No runs yet.</p>}
      {entries.length > 0 && items.length === 0 && <p className="muted">Nothing in history matches “{query}”.</p>}
      {compareFrom && (
        <p className="notice" role="status">
          One run chosen to compare: choose “Compare with the chosen run” on another, or cancel on the chosen one.
        </p>
      )}
      <ul className="history-list">
        {items.map((item) =>
          item.kind === 'thread' ? (
            <HistoryRow key={item.thread.id} r={item.thread.turns.at(-1)!} thread={item.thread} pinned={Boolean(itemsById.get(item.thread.id)?.pinned)} connection={connection} unreadable={unreadable} open={open} setOpen={setOpen} onLoad={onLoad} compareFrom={compareFrom} setCompareFrom={setCompareFrom} />
          ) : (
            <HistoryRow key={item.entry.id} r={item.entry} pinned={Boolean(itemsById.get(item.entry.id)?.pinned)} connection={connection} unreadable={unreadable} open={open} setOpen={setOpen} onLoad={onLoad} compareFrom={compareFrom} setCompareFrom={setCompareFrom} />
          ),
        )}
      </ul>
    </section>
  );
}
