import { useState } from 'react';

/**
 * Copies `text` to the clipboard and says, to everyone and to screen readers, whether it worked.
 * A function is called only on click: a live stream's transcript is not joined on every frame.
 */
export function CopyButton({ text, label }: { text: string | (() => string); label: string }) {
  const [result, setResult] = useState<'ok' | 'failed' | null>(null);
  return (
    <span className="copy-button">
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard.writeText(typeof text === 'function' ? text() : text).then(
            () => setResult('ok'),
            () => setResult('failed'),
          )
        }
      >
        {label}
      </button>
      <span role="status" className="hint">
        {result === 'ok' && 'Copied.'}
        {result === 'failed' && 'The browser refused clipboard access; select the text and copy it.'}
      </span>
    </span>
  );
}
