import { useEffect, useRef, useState } from 'react';
import { formatBytes, formatCount } from '../../../lib/format';
import { clearHistory, HISTORY_BYTES_LIMIT, HISTORY_LIMIT, importRuns, itemsText, PIN_LIMIT, undoClear, type HistoryEntry } from '../../../db/history';
import type { RunConnection } from '../../../engine/run-record';
import { threadsOf, type Thread } from '../../../engine/thread';
import { entriesOfFile, parseThreadFile, sizeProblem } from '../../../engine/thread-file';
import { useEviction, useLastClear } from '../../../hooks/use-history';
import { useHistoryList } from '../../../hooks/use-history-list';
import { escapeCancels } from '../../../lib/use-page-escape';
import { EvictionNotice } from './eviction-notice';
import { HistoryRow } from './history-row';

/** History lists this many items at first, and this many more at each "Show older items". */
const LINES_SHOWN = 50;

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
  const [query, setQuery] = useState('');
  // The newest items first, a page at a time: a long history draws what is seen first at once.
  const [shown, setShown] = useState(LINES_SHOWN);
  const history = useHistoryList(query);
  const { lines, unreadable } = history;
  const eviction = useEviction();
  const cleared = useLastClear();
  const [open, setOpen] = useState<string | null>(null);
  const [chosen, setCompareFrom] = useState<string | null>(null);
  // A chosen run that left history (cleared, or past the limit) is no longer chosen.
  const compareFrom = chosen !== null && lines.some((l) => l.last.id === chosen) ? chosen : null;
  const [importError, setImportError] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);
  const [confirmClear, setConfirmClear] = useState(false);
  const [clearNote, setClearNote] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const pinsFull = history.pinned >= PIN_LIMIT;
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
  // What Clear history leaves: runs that may still change (an imported record, or an older version's entry, never does).
  // Such a run stays with its whole conversation, so neither is counted among what leaves.
  const goingOn = history.goingOn.length;
  const { conversations, runs: lone, pinned: pinnedLeaving } = history.clearable;

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
        <span className="muted">
          Kept in this browser (IndexedDB); tokens are never stored. History keeps the newest {HISTORY_LIMIT} items within {formatBytes(HISTORY_BYTES_LIMIT)}; pinned items are
          kept whatever the limits and do not count against them (at most {PIN_LIMIT} pins).
        </span>
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
        <button
          ref={clearButton}
          type="button"
          disabled={conversations + lone === 0 || confirmClear}
          title={conversations + lone === 0 && history.items > 0 ? 'Nothing to clear: every run in history is still going on' : undefined}
          onClick={() => setConfirmClear(true)}
        >
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
            {itemsText(conversations, lone)} {conversations + lone === 1 ? 'leaves' : 'leave'} this browser’s history
            {/* A pin reads as "keep": say that Clear takes it too. */}
            {pinnedLeaving > 0 &&
              `, ${pinnedLeaving === 1 ? (conversations + lone === 1 ? 'pinned as it is' : 'the pinned one too') : `the ${formatCount(pinnedLeaving)} pinned ones too`} (a pin keeps an item past history’s limits, not past Clear)`}
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
      {eviction && <EvictionNotice eviction={eviction} />}
      {importError && (
        <p className="error" role="alert">
          Not imported: {importError}
        </p>
      )}
      {history.items > 0 && (
        <div className="field history-search">
          <label htmlFor="history-search">Search history</label>
          <input id="history-search" type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="question, answer or agent" />
        </div>
      )}
      {history.isError && <p className="error">History is unavailable in this browser: {String(history.error)}</p>}
      {history.items === 0 && history.isSuccess && <p className="muted">No runs yet.</p>}
      {history.items > 0 && history.isSuccess && lines.length === 0 && <p className="muted">Nothing in history matches “{query}”.</p>}
      {compareFrom && (
        <p className="notice" role="status">
          One run chosen to compare: choose “Compare with the chosen run” on another, or cancel on the chosen one.
        </p>
      )}
      <ul className="history-list">
        {lines.slice(0, shown).map((line) => (
          <HistoryRow
            key={line.id}
            r={line.last}
            thread={line.kind === 'thread' ? { id: line.id, agentId: line.last.request.agentId, title: line.title, turns: line.runs, branches: line.branches } : undefined}
            pinned={line.pinned}
            pinsFull={pinsFull}
            connection={connection}
            unreadable={unreadable}
            open={open}
            setOpen={setOpen}
            onLoad={onLoad}
            compareFrom={compareFrom}
            setCompareFrom={setCompareFrom}
          />
        ))}
      </ul>
      {lines.length > shown && (
        <button type="button" onClick={() => setShown((n) => n + LINES_SHOWN)}>
          Show {formatCount(Math.min(LINES_SHOWN, lines.length - shown))} older {Math.min(LINES_SHOWN, lines.length - shown) === 1 ? 'item' : 'items'} ({formatCount(lines.length - shown)} not shown)
        </button>
      )}
    </section>
  );
}
