import { useState } from 'react';
import { Link } from 'react-router';
import type { ActiveConnection } from '../../../lib/connection';
import { isTerminal, type RunStatus } from '../../../engine/run-machine';
import type { RunRecord } from '../../../engine/run-record';
import type { RunRequest } from '../../../engine/run-request';
import { useRuns } from '../../../hooks/run-store';
import { MAX_ANSWER_BYTES } from '../../../engine/stream-log';
import { answered, editRequest, MAX_ANSWER_MESSAGES, pathTo, replyRequest, retryRequest, sendOf, threadsOf, type Thread } from '../../../engine/thread';
import { useKeepOnScreen, useThreadEntries } from '../../../hooks/use-history';
import { download } from '../../../lib/download';
import { threadExport } from '../../../engine/thread-file';
import { ReplyBox } from './reply-box';
import { ThreadView } from './thread-view';

/** Why nothing can be sent now, whatever the turn (it would only be refused, or another run is in flight), if so. */
function sendBlockedWhy(connection: ActiveConnection, active: RunRecord | undefined): string | undefined {
  if (connection.problem) return `Profile ${connection.profileLabel} cannot send now: ${connection.problem}`;
  if (!connection.token) return `Profile ${connection.profileLabel} has no token: give one with agents.run in the connection panel to send.`;
  if (active) return `A run of ${active.request.agentName ?? active.request.agentId} is in flight; stop it, or wait for its end, to send the next turn.`;
  return undefined;
}

/** Why the next turn cannot be sent after `last`, if it cannot. */
function replyBlockedWhy(last: Thread['turns'][number], sendBlocked: string | undefined): string | undefined {
  if (sendBlocked) return sendBlocked;
  if (!isTerminal(last.status as RunStatus)) return 'The last turn has not ended yet; its answer goes with the next turn.';
  if (!answered(last)) return 'The last turn did not answer: retry it, or edit its question, to go on.';
  if (last.answerTruncated)
    return `The last answer was too large to keep whole (more than ${MAX_ANSWER_MESSAGES.toLocaleString()} messages, or more than ${MAX_ANSWER_BYTES / 1_000_000} MB): it cannot be sent back, so this conversation cannot go on.`;
  return undefined;
}

/**
 * The conversation `threadId` in the response pane: its turns (ThreadView), and the reply box
 * that sends the next one, the way the last turn went unless changed there. A thread read from a file is read-only until continued on the
 * current profile. The parent keys this by the thread, so the branch shown and a draft do not
 * carry over to another.
 */
export function Conversation({ threadId, leafId, onLeaf, connection, start, onRunAsDurable }: {
  threadId: string;
  /** The leaf turn of the branch shown (the newest turn when undefined); the page holds it, since the run's head tells that turn's run. */
  leafId: string | undefined;
  onLeaf(leafId: string | undefined): void;
  connection: ActiveConnection;
  /** Sends a run; answers whether it started. */
  start(request: RunRequest): boolean;
  onRunAsDurable?(run: RunRecord): void;
}) {
  const { active } = useRuns();
  const held = useThreadEntries(threadId);
  const thread = threadsOf(held.entries)[0];
  // A conversation on screen is never let go by history's retention.
  useKeepOnScreen(threadId);
  const [continuing, setContinuing] = useState(false);
  if (!thread) {
    if (!held.isSuccess) return <p role="status">Reading the conversation from history…</p>;
    return (
      <div className="warning" role="alert">
        <p>
          No conversation “{threadId}” in this browser’s history. Conversations are kept in the browser they ran in; one from elsewhere can be imported from its
          exported file (History → Import conversation…).
        </p>
      </div>
    );
  }
  const path = pathTo(thread, leafId);
  const last = path.at(-1)!;
  const imported = thread.turns.every((t) => t.imported);
  const readOnly = imported && !continuing;
  const sendBlocked = sendBlockedWhy(connection, active);
  const blocked = replyBlockedWhy(last, sendBlocked);
  const sent = (request: RunRequest) => {
    const ok = start(request);
    // The new turn is the newest: the branch it is on is shown.
    if (ok) onLeaf(undefined);
    return ok;
  };
  const agentName = thread.agentName ?? thread.agentId;
  return (
    <div className="conversation">
      <div className="toolbar">
        <h3>Conversation</h3>
        <button type="button" onClick={() => { const f = threadExport(thread); download(f.name, f.text); }}>
          Export conversation
        </button>
        <Link to={`/runs/${encodeURIComponent(thread.agentId)}`}>New conversation</Link>
      </div>
      <ThreadView
        thread={thread}
        leafId={leafId}
        onLeaf={onLeaf}
        actions={{
          profileId: connection.profileId,
          canSend: sendBlocked === undefined,
          cannotSendWhy: sendBlocked,
          readOnly,
          // A turn asked again goes the way it went the first time.
          onRetry: (turn) => sent(retryRequest(turn, sendOf(turn.request))),
          onEdit: (turn, text) => sent(editRequest(turn, text, sendOf(turn.request))),
          onRunAsDurable,
        }}
      />
      {readOnly ? (
        <div className="warning">
          <p>
            Imported from {thread.turns[0]?.imported?.fileName ?? 'a file'}: read-only. Continuing it sends the next turn, with the whole conversation, to
            profile <strong>{connection.profileLabel}</strong>.
          </p>
          <button type="button" onClick={() => setContinuing(true)}>
            Continue on profile {connection.profileLabel}
          </button>
          {sendBlocked && <p className="hint">{sendBlocked}</p>}
        </div>
      ) : !isTerminal(last.status as RunStatus) ? (
        <p className="hint">You can reply once this turn has ended: its answer goes with the next turn.</p>
      ) : (
        <ReplyBox
          key={last.id}
          threadId={thread.id}
          agentName={agentName}
          initial={sendOf(last.request)}
          connection={connection}
          build={(text, send) => replyRequest(thread, last, text, send)}
          canSend={blocked === undefined}
          cannotSendWhy={blocked}
          onSend={sent}
        />
      )}
    </div>
  );
}
