import { useId, useMemo, useState, type KeyboardEvent } from 'react';
import { Link } from 'react-router';
import type { Message } from '../../../contract/agents';
import { toolSuggestionsOf } from '../../../contract/tool-servers';
import { ResponseSummary } from '../../../components/response-meta';
import { SpecBadge } from '../../../components/spec-badge';
import { formatBytes, formatCount } from '../../../lib/format';
import { runDetails, type HistoryDetails } from '../../../db/history';
import { refusalError } from '../../../engine/history-entry';
import { isTerminal, statusText, statusTone, type RunStatus } from '../../../engine/run-machine';
import type { RunRecord } from '../../../engine/run-record';
import { faultOfRequest } from '../../../engine/run-request';
import { useRunStore } from '../../../hooks/run-store';
import { useFigures } from '../../../hooks/use-history';
import { branchCount, branchOf, contextOf, newestLeafUnder, pathTo, questionOf, retryable, textOfMessage, type Thread, type Turn } from '../../../engine/thread';
import { useSlots } from '../../../components/slots';

/** Text blocks run together as one paragraph (a stream sends a word per message); anything else is shown as its JSON. */
function MessageBlocks({ messages }: { messages: readonly Message[] }) {
  const parts: ({ kind: 'text'; text: string } | { kind: 'json'; value: unknown })[] = [];
  for (const m of messages) {
    for (const block of Array.isArray(m.content) ? m.content : [m.content]) {
      if (block && typeof block === 'object' && (block as { type?: unknown }).type === 'text' && typeof (block as { text?: unknown }).text === 'string') {
        const last = parts.at(-1);
        if (last?.kind === 'text') last.text += (block as { text: string }).text;
        else parts.push({ kind: 'text', text: (block as { text: string }).text });
      } else parts.push({ kind: 'json', value: block });
    }
  }
  return (
    <>
      {parts.map((p, i) =>
        p.kind === 'text' ? (
          <div key={i} className="turn-text">
            {p.text}
          </div>
        ) : (
          <pre key={i} className="raw" aria-label="Content that is not text">
            {JSON.stringify(p.value, null, 2)}
          </pre>
        ),
      )}
    </>
  );
}

/** What history kept of a turn the console no longer holds: request, answer, and on demand its events and raw answer. */
function StoredTurnDetails({ turn }: { turn: Turn }) {
  const [details, setDetails] = useState<HistoryDetails | null | 'loading'>(null);
  const load = () => {
    setDetails('loading');
    void runDetails(turn.id).then((d) => setDetails(d ?? {}), () => setDetails({}));
  };
  // A waited turn's answer, as it was received, can be checked against the public schema again.
  const waited = details && details !== 'loading' && turn.request.mode === 'wait' && details.result !== undefined && turn.meta ? { ...turn.meta, rawBody: JSON.stringify(details.result) } : undefined;
  return (
    <div className="turn-details">
      <p>
        <code>POST {turn.request.path}</code>
      </p>
      <pre className="raw" aria-label="Request body">
        {JSON.stringify(turn.request.body, null, 2)}
      </pre>
      <p>Answer messages as received:</p>
      <pre className="raw" aria-label="Answer messages">
        {JSON.stringify(turn.answerMessages ?? [], null, 2)}
      </pre>
      {turn.runId &&
        (turn.imported ? (
          // A record of a run someone else's token made: never read from here with this profile's.
          <p>
            Durable run <code>{turn.runId}</code> <span className="muted">(imported: a record of the run, not read from here)</span>
          </p>
        ) : (
          <p>
            Durable run <Link to={`/runs/${encodeURIComponent(turn.request.agentId)}/${encodeURIComponent(turn.runId)}`}>{turn.runId}</Link>
          </p>
        ))}
      {details === null && !turn.imported && (
        <button type="button" onClick={load}>
          {turn.eventCount > 0 ? `Show its ${formatCount(turn.eventCount)} events` : 'Show its raw answer'}
        </button>
      )}
      {details === 'loading' && <p role="status">Loading what history kept…</p>}
      {details && details !== 'loading' && (
        <>
          {details.events?.length ? (
            <pre className="raw" aria-label="Events">
              {details.events
                .slice(0, 500)
                .map((e) => `${e.seq}\t${e.at} ms\t${e.event}\t${e.data}`)
                .join('\n') + (details.events.length > 500 ? `\n… and ${formatCount(details.events.length - 500)} more (Export last turn has them all)` : '')}
            </pre>
          ) : null}
          {details.result !== undefined && (
            <pre className="raw" aria-label="Raw answer">
              {JSON.stringify(details.result, null, 2)}
            </pre>
          )}
          {waited && <SpecBadge answer={waited} />}
          {!details.events?.length && details.result === undefined && <p className="muted">History has no more of this turn.</p>}
        </>
      )}
    </div>
  );
}

/** Turns of a branch drawn at first, and more at each Show earlier turns. */
export const TURNS_PAGE = 30;
/** Most of an answer's text a turn shows in place; the rest is in its run's details and its export. */
const TURN_TEXT_CHARS = 100_000;

/** A turn's answer as readable blocks: its messages as received, else the text history kept. */
function answerOf(turn: Turn) {
  if (turn.answerMessages?.length) return <MessageBlocks messages={turn.answerMessages} />;
  if (!turn.transcript) return null;
  if (turn.transcript.length <= TURN_TEXT_CHARS) return <div className="turn-text">{turn.transcript}</div>;
  return (
    <>
      <div className="turn-text">{turn.transcript.slice(0, TURN_TEXT_CHARS)}</div>
      <p className="muted">
        Shown are the first {formatCount(TURN_TEXT_CHARS)} of {formatCount(turn.transcript.length)} characters; the whole answer is in its raw answer below and in
        Export.
      </p>
    </>
  );
}

function TurnHead({ turn, profileId }: { turn: Turn; profileId: string }) {
  // The same figures as the response head and history, live while the turn runs.
  const figures = useFigures(turn);
  // A turn sent with X-Sandbox-Fault says so, as a single run's heading does: an interruption the run asked for is not mistaken for a real one.
  const fault = faultOfRequest(turn.request);
  const elsewhere = turn.imported ? 'imported' : turn.target.profileId !== undefined && turn.target.profileId !== profileId ? `profile ${turn.target.profileLabel}` : undefined;
  return (
    <p className="turn-meta">
      <strong>{turn.request.agentName ?? turn.request.agentId}</strong> · <span className={`status status-${statusTone(turn.status)}`}>{statusText(turn.status, turn.unknownState)}</span>
      {figures.durationMs !== undefined && isTerminal(turn.status as RunStatus) && ` · ${formatCount(figures.durationMs)} ms`}
      {figures.eventCount > 0 && ` · ${formatCount(figures.eventCount)} events`}
      {figures.bytes > 0 && ` · ${formatBytes(figures.bytes)}`} · {turn.request.flavour === 'legacy' ? 'legacy API' : 'current API'}, {turn.request.mode} ·{' '}
      <time dateTime={new Date(turn.startedAt).toISOString()}>{new Date(turn.startedAt).toLocaleTimeString()}</time>
      {elsewhere && ` · ${elsewhere}`}
      {fault !== undefined && (
        <>
          {' '}
          · with fault <code>{fault}</code>
        </>
      )}
    </p>
  );
}

/** Editing an earlier question: sending it starts a new branch from that point. */
function EditQuestion({ turn, canSend, cannotSendWhy, onSend, onCancel }: { turn: Turn; canSend: boolean; cannotSendWhy?: string; onSend(text: string): void; onCancel(): void }) {
  const id = useId();
  const [text, setText] = useState(() => questionOf(turn.request));
  const send = () => {
    if (canSend && text.trim()) onSend(text);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      e.stopPropagation();
      send();
    } else if (e.key === 'Escape') {
      // Escape here closes the editor; it does not stop a run.
      e.preventDefault();
      onCancel();
    }
  };
  return (
    <div className="turn-edit" onKeyDown={onKeyDown}>
      <label htmlFor={id}>Edit the question (sends a new branch from here; the old one stays)</label>
      <textarea id={id} rows={3} value={text} onChange={(e) => setText(e.target.value)} autoFocus />
      <div className="toolbar">
        <button type="button" className="primary" disabled={!canSend || !text.trim()} onClick={send} aria-keyshortcuts="Control+Enter Meta+Enter">
          Send as a new branch
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        {!canSend && cannotSendWhy && <span className="hint">{cannotSendWhy}</span>}
      </div>
    </div>
  );
}

export interface ThreadActions {
  /** The profile new turns go to: a turn sent with another says so. */
  profileId: string;
  canSend: boolean;
  cannotSendWhy?: string;
  readOnly: boolean;
  onRetry(turn: Turn): void;
  onEdit(turn: Turn, text: string): void;
  onRunAsDurable?(run: RunRecord): void;
}

function TurnItem({ thread, turn, last, actions, onBranch }: { thread: Thread; turn: Turn; last: boolean; actions: ThreadActions; onBranch(leafId: string): void }) {
  const { RunBody, ToolAuthorization, SaveTestCase } = useSlots();
  const store = useRunStore();
  const record = store.forEntry(turn.id);
  const figures = useFigures(turn);
  const [editing, setEditing] = useState(false);
  const branch = branchOf(thread, turn);
  const context = turn.request.thread?.parentId && thread.turns.some((t) => t.id === turn.request.thread?.parentId) ? [] : contextOf(turn.request);
  const go = (i: number) => onBranch(newestLeafUnder(thread, branch.siblings[i]!).id);
  // Run again, after a refusal for unauthorized tools: the turn's own messages once more, as a retry does.
  const runAgain = actions.readOnly ? undefined : () => actions.onRetry(turn);
  const runAgainBlockedWhy = actions.canSend ? undefined : actions.cannotSendWhy;
  const refusedForTools = turn.refusal !== undefined && toolSuggestionsOf(turn.refusal.body).length > 0;
  return (
    <li className="turn" aria-label={`Turn: ${questionOf(turn.request).slice(0, 60)}`}>
      <div className="turn-user">
        <p className="turn-head">
          <strong>You</strong>
          {branch.count > 1 && (
            <span className="branch-switch" role="group" aria-label="Branches at this turn">
              <button type="button" disabled={branch.index === 0} onClick={() => go(branch.index - 1)} aria-label="Previous branch">
                ‹
              </button>
              <span>
                Branch {branch.index + 1} of {branch.count}
              </span>
              <button type="button" disabled={branch.index === branch.count - 1} onClick={() => go(branch.index + 1)} aria-label="Next branch">
                ›
              </button>
            </span>
          )}
        </p>
        {context.length > 0 && (
          <details>
            <summary>{context.length} earlier {context.length === 1 ? 'message' : 'messages'} written in the form</summary>
            {context.map((m, i) => (
              <p key={i}>
                <span className="muted">{m.role}: </span>
                {textOfMessage(m)}
              </p>
            ))}
          </details>
        )}
        {editing ? (
          <EditQuestion
            turn={turn}
            canSend={actions.canSend}
            cannotSendWhy={actions.cannotSendWhy}
            onCancel={() => setEditing(false)}
            onSend={(text) => {
              setEditing(false);
              actions.onEdit(turn, text);
            }}
          />
        ) : (
          <>
            <div className="turn-text">{questionOf(turn.request) || <span className="muted">(no question)</span>}</div>
            {!actions.readOnly && (
              <button type="button" className="link-button" onClick={() => setEditing(true)}>
                Edit
              </button>
            )}
          </>
        )}
      </div>
      <div className="turn-agent">
        <TurnHead turn={turn} profileId={actions.profileId} />
        {/* A durable run's view says its last answer itself. */}
        {turn.meta && !(last && record?.runId) && <ResponseSummary meta={record?.state.meta ?? turn.meta} bytes={figures.bytes} />}
        {last && record ? (
          <div className="response-body" key={record.id}>
            {/* A stream whose full log was let go (another run was shown since) keeps only its answer. */}
            {!record.log && !record.answer && !record.runId && answerOf(turn)}
            <RunBody run={record} onRunAsDurable={actions.onRunAsDurable} onRunAgain={runAgain} runAgainBlockedWhy={runAgainBlockedWhy} />
          </div>
        ) : (
          <>
            {answerOf(turn)}
            {turn.failure && (
              <p className="error">
                {turn.failure.title}: {turn.failure.detail}
              </p>
            )}
            {turn.problem && !turn.failure && <p className="error">{turn.problem}</p>}
            {/* A turn refused for its tools, read back from history (after the consent page brought the browser back): authorize, then run it again. */}
            {last && refusedForTools && (
              <ToolAuthorization error={refusalError(turn.refusal!)} onRunAgain={runAgain && (() => runAgain())} runAgainBlockedWhy={runAgainBlockedWhy} sentWith={turn.target} />
            )}
            <details>
              <summary>Events, timeline and raw answer</summary>
              {/* A stream whose full log was let go (it keeps a summary) has its events in history only. */}
              {record && !record.summary ? (
                <div className="response-body" key={record.id}>
                  <RunBody run={record} onRunAsDurable={actions.onRunAsDurable} />
                </div>
              ) : (
                <StoredTurnDetails turn={turn} />
              )}
            </details>
          </>
        )}
        {isTerminal(turn.status as RunStatus) && (
          <div className="toolbar">
            <SaveTestCase entry={turn} />
          </div>
        )}
        {/* A refusal for tools has its own Run again, beside the servers to authorize. */}
        {retryable(turn) && !actions.readOnly && !refusedForTools && (
          <p className="toolbar">
            <button type="button" disabled={!actions.canSend} onClick={() => actions.onRetry(turn)}>
              Retry this turn
            </button>
            <span className="hint">{actions.canSend ? 'Sends the same messages again, as a new branch.' : actions.cannotSendWhy}</span>
          </p>
        )}
      </div>
    </li>
  );
}

/**
 * A conversation as turns: each question, and the agent's answer with its status and timing;
 * the last turn shows its run whole (live transcript, approvals, cancel), earlier ones their
 * answer with the run's details a click away. Turns that follow the same turn are branches,
 * switched in place. `leafId` chooses the branch shown (the newest when undefined).
 */
export function ThreadView({ thread, leafId, onLeaf, actions }: { thread: Thread; leafId?: string; onLeaf(leafId: string | undefined): void; actions: ThreadActions }) {
  const path = pathTo(thread, leafId);
  const leaves = useMemo(() => branchCount(thread), [thread]);
  // The newest turns of the branch, and earlier ones on request: an imported conversation of
  // 1,000 turns drawn whole held the page for seconds.
  const [earlierShown, setEarlierShown] = useState(0);
  const hidden = Math.max(0, path.length - TURNS_PAGE - earlierShown);
  return (
    <div className="thread">
      <p className="muted thread-summary">
        Conversation with {thread.agentName ?? thread.agentId}: {hidden ? `the last ${formatCount(path.length - hidden)} of ${formatCount(path.length)} turns` : `${path.length} ${path.length === 1 ? 'turn' : 'turns'}`} shown
        {leaves > 1 && ` (${formatCount(thread.turns.length)} in all, ${leaves} branches)`}.
      </p>
      {hidden > 0 && (
        <button type="button" onClick={() => setEarlierShown((n) => n + TURNS_PAGE)}>
          Show {formatCount(Math.min(TURNS_PAGE, hidden))} earlier turns ({formatCount(hidden)} not shown)
        </button>
      )}
      <ol className="turns" aria-label="Turns">
        {path.slice(hidden).map((turn, i, shown) => (
          <TurnItem key={turn.id} thread={thread} turn={turn} last={i === shown.length - 1} actions={actions} onBranch={onLeaf} />
        ))}
      </ol>
    </div>
  );
}
