import { useId, useState } from 'react';

interface Props {
  token: string | undefined;
  screenShare: boolean;
  onChange(token: string | undefined): void;
}

/** The masked "Bearer token" field with show/hide and clear; never shown in screen-share mode. */
export function TokenField({ token, screenShare, onChange }: Props) {
  const id = useId();
  const [shown, setShown] = useState(false);
  const visible = shown && !screenShare;
  return (
    <div className="field">
      <label htmlFor={id}>Bearer token</label>
      <div className="token-row">
        <input
          id={id}
          type={visible ? 'text' : 'password'}
          value={token ?? ''}
          onChange={(e) => onChange(e.target.value)}
          autoComplete="off"
          spellCheck={false}
          placeholder="Paste a token"
          aria-describedby={`${id}-hint`}
        />
        <button type="button" onClick={() => setShown((s) => !s)} aria-pressed={visible} disabled={screenShare}>
          {visible ? 'Hide' : 'Show'}
        </button>
        <button type="button" onClick={() => onChange(undefined)} disabled={!token}>
          Clear
        </button>
      </div>
      <p id={`${id}-hint`} className="hint">
        Sent only as the Authorization header to this profile's base URL.
      </p>
    </div>
  );
}
