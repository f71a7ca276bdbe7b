import { useId, useState } from 'react';
import { curlCommand, type CurlInput } from '../lib/curl';

/**
 * "Copy as curl". The token is redacted unless the user ticks "include token"; even then
 * the command on screen shows it masked, and only the clipboard gets the real one.
 */
export function CopyCurl({ request, screenShare }: { request: Omit<CurlInput, 'includeToken'>; screenShare: boolean }) {
  const id = useId();
  const [includeToken, setIncludeToken] = useState(false);
  const [copied, setCopied] = useState<'ok' | 'failed' | null>(null);
  const shown = curlCommand({ ...request, token: request.token && includeToken ? '••••••••' : request.token, includeToken });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(curlCommand({ ...request, includeToken }));
      setCopied('ok');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <div className="copy-curl">
      <pre aria-label="curl command">{shown}</pre>
      <div className="input-row">
        <button type="button" onClick={() => void copy()}>
          Copy as curl
        </button>
        <span className="field checkbox">
          <input id={id} type="checkbox" checked={includeToken} disabled={!request.token} onChange={(e) => setIncludeToken(e.target.checked)} />
          <label htmlFor={id}>Include token</label>
        </span>
        <span role="status" aria-live="polite">
          {copied === 'ok' && (includeToken ? 'Copied, with the token.' : 'Copied; the token is redacted as $TOKEN.')}
          {copied === 'failed' && 'The browser refused clipboard access; select the command and copy it.'}
          {screenShare && includeToken ? ' (masked on screen)' : ''}
        </span>
      </div>
    </div>
  );
}
