import { useId, useState, type KeyboardEvent } from 'react';
import { questionOf, type Turn } from '../../../engine/thread';

/** Editing an earlier question: sending it starts a new branch from that point. */
export function EditQuestion({ turn, canSend, cannotSendWhy, onSend, onCancel }: { turn: Turn; canSend: boolean; cannotSendWhy?: string; onSend(text: string): void; onCancel(): void }) {
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
