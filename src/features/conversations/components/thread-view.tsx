import { useMemo, useState } from 'react';
import { toolSuggestionsOf } from '../../../contract/tool-servers';
import { ResponseSummary } from '../../../components/response-meta';
import { formatBytes, formatCount } from '../../../lib/format';
import { refusalError } from '../../../engine/history-entry';
import { isTerminal, statusText, statusTone, type RunStatus } from '../../../engine/run-machine';
import type { RunRecord } from '../../../engine/run-record';
import { faultOfRequest } from '../../../engine/run-request';
import { useRunStore } from '../../../hooks/run-store';
import { useFigures } from '../../../hooks/use-history';
import { branchCount, branchOf, contextOf, newestLeafUnder, pathTo, retryable, questionOf, textOfMessage, type Thread, type Turn } from '../../../engine/thread';
import { useSlots } from '../../../components/slots';
import { EditQuestion } from './edit-question';
import { StoredTurnDetails } from './stored-turn-details';
import { answerOf } from './turn-answer';

/** Turns of a branch drawn at first, and more at each Show earlier turns. */
export const TURNS_PAGE = 30;

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
