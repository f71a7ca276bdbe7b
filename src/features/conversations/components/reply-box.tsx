import { useId, useState, type KeyboardEvent } from 'react';
import { CodeSnippets } from '../../../components/code-snippets';
import type { ActiveConnection } from '../../../lib/connection';
import { local } from '../../../lib/storage';
import type { Flavour, Mode, RunRequest } from '../../../engine/run-request';
import type { TurnSend } from '../../../engine/thread';

const draftKey = (threadId: string) => `replyDraft.${threadId}`;

/**
 * The next turn of a conversation: a question, sent in the API and mode of the turn it
 * follows unless changed here, with the exact request it will POST shown before it is sent.
 * The draft is kept per conversation until it is sent.
 */
export function ReplyBox({ threadId, agentName, initial, connection, build, canSend, cannotSendWhy, onSend }: {
  threadId: string;
  agentName: string;
  /** How the turn it follows was sent. */
  initial: TurnSend;
  connection: ActiveConnection;
  /** The request a reply with this text, sent this way, would send. */
  build(text: string, send: TurnSend): RunRequest;
  canSend: boolean;
  cannotSendWhy?: string;
  /** Sends; answers whether the run started (the draft is kept when it did not). */
  onSend(request: RunRequest): boolean;
}) {
  const ids = { text: useId(), api: useId(), mode: useId(), why: useId() };
  const [text, setTextState] = useState(() => local.get<string>(draftKey(threadId), ''));
  const setText = (t: string) => {
    setTextState(t);
    if (t) local.set(draftKey(threadId), t);
    else local.remove(draftKey(threadId));
  };
  const [send, setSend] = useState<TurnSend>(initial);
  const request = build(text, send);
  const messages = Array.isArray(request.body.messages) ? request.body.messages.length : 0;
  const empty = text.trim() === '';
  const submit = () => {
    if (!canSend || empty) return;
    // The request is fixed now, from the text and options of this moment.
    if (onSend(build(text, send))) setText('');
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Enter' || !(e.ctrlKey || e.metaKey)) return;
    e.preventDefault();
    e.stopPropagation();
    submit();
  };
  return (
    <section className="reply-box" aria-label="Reply">
      <label htmlFor={ids.text}>Reply to {agentName}</label>
      <textarea
        id={ids.text}
        rows={3}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        aria-describedby={ids.why}
        placeholder="Ask a follow-up; the answer so far goes with it"
      />
      <div className="toolbar reply-options">
        <label htmlFor={ids.api}>API</label>
        <select
          id={ids.api}
          value={send.flavour}
          // The legacy API has no durable runs; its nearest is a wait.
          onChange={(e) => setSend((s) => ({ ...s, flavour: e.target.value as Flavour, ...(e.target.value === 'legacy' && s.mode === 'durable' && { mode: 'wait' as const }) }))}
        >
          <option value="platform">current</option>
          <option value="legacy">legacy (deprecated)</option>
        </select>
        <label htmlFor={ids.mode}>Answer</label>
        <select id={ids.mode} value={send.mode} onChange={(e) => setSend((s) => ({ ...s, mode: e.target.value as Mode }))}>
          <option value="stream">stream</option>
          <option value="wait">wait</option>
          <option value="durable" disabled={send.flavour === 'legacy'}>
            durable
          </option>
        </select>
        <button type="button" className="primary" disabled={!canSend || empty} onClick={submit} aria-keyshortcuts="Control+Enter Meta+Enter">
          Send reply
        </button>
      </div>
      <p id={ids.why} className="hint">
        {!canSend ? cannotSendWhy : empty ? `Write a question to send; it goes to profile ${connection.profileLabel}.` : `Ctrl+Enter (⌘+Enter) sends, to profile ${connection.profileLabel}.`}
      </p>
      <details className="reply-preview">
        <summary>
          Request it sends: <code>POST {request.path}</code>, {messages} {messages === 1 ? 'message' : 'messages'}
        </summary>
        <pre className="raw" aria-label="Reply request body">
          {JSON.stringify(request.body, null, 2)}
        </pre>
        <CodeSnippets call={{ op: 'run', agentId: request.agentId, flavour: request.flavour, mode: request.mode, path: request.path, body: request.body }} connection={connection} />
      </details>
    </section>
  );
}
