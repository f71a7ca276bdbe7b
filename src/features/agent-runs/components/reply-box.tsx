import { useId, useState, type KeyboardEvent } from 'react';
import { CodeSnippets } from '../../../components/code-snippets';
import type { ActiveConnection } from '../../../lib/connection';
import { local } from '../../../lib/storage';
import type { RunRequest } from '../model/run-request';
import type { RunSettings } from '../model/run-settings';

const draftKey = (threadId: string) => `replyDraft.${threadId}`;

/**
 * The next turn of a conversation: a question, sent in the API and mode chosen here (the
 * agent's run options, shared with the form), with the exact request it will POST shown
 * before it is sent. The draft is kept per conversation until it is sent.
 */
export function ReplyBox({ threadId, agentName, settings, onSettings, connection, build, canSend, cannotSendWhy, onSend }: {
  threadId: string;
  agentName: string;
  settings: RunSettings;
  onSettings(patch: Partial<RunSettings>): void;
  connection: ActiveConnection;
  /** The request a reply with this text would send. */
  build(text: string): RunRequest;
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
  const request = build(text);
  const messages = Array.isArray(request.body.messages) ? request.body.messages.length : 0;
  const empty = text.trim() === '';
  const send = () => {
    if (!canSend || empty) return;
    // The request is fixed now, from the text and options of this moment.
    if (onSend(build(text))) setText('');
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Enter' || !(e.ctrlKey || e.metaKey)) return;
    e.preventDefault();
    e.stopPropagation();
    send();
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
        <select id={ids.api} value={settings.flavour} onChange={(e) => onSettings({ flavour: e.target.value as RunSettings['flavour'] })}>
          <option value="platform">current</option>
          <option value="legacy">legacy (deprecated)</option>
        </select>
        <label htmlFor={ids.mode}>Answer</label>
        <select id={ids.mode} value={settings.mode} onChange={(e) => onSettings({ mode: e.target.value as RunSettings['mode'] })}>
          <option value="stream">stream</option>
          <option value="wait">wait</option>
          <option value="durable" disabled={settings.flavour === 'legacy'}>
            durable
          </option>
        </select>
        <button type="button" className="primary" disabled={!canSend || empty} onClick={send} aria-keyshortcuts="Control+Enter Meta+Enter">
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
