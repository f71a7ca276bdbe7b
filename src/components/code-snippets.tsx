import { useId, useState } from 'react';
import { LANGUAGES, MASKED_TOKEN, snippet, tokenPlaceholder, type ApiCall, type Language } from '../lib/snippets';
import { local } from '../lib/storage';
import { Tabs } from './tabs';

const LANGUAGE_KEY = 'codeLanguage';

function storedLanguage(): Language {
  const stored = local.get<string>(LANGUAGE_KEY, 'curl');
  return LANGUAGES.some((l) => l.id === stored) ? (stored as Language) : 'curl';
}

/** Where the console sends this connection's requests, absolute: '' is this page's own origin. */
function serverUrlOf(baseUrl: string): string {
  return new URL(baseUrl || '/', window.location.href).href.replace(/\/$/, '');
}

/**
 * A request as code: curl, JavaScript fetch, or TypeScript with the official client. The
 * token is read from the environment (TOKEN, in every language) unless "Include token" is
 * ticked; even then the code on screen shows it masked and only the clipboard gets the real
 * one. The chosen language is remembered.
 */
export function CodeSnippets({ call, connection }: { call: ApiCall; connection: { baseUrl: string; token?: string; screenShare: boolean } }) {
  const id = useId();
  const [language, setLanguage] = useState<Language>(storedLanguage);
  const [includeToken, setIncludeToken] = useState(false);
  const [copied, setCopied] = useState<'ok' | 'failed' | null>(null);
  const { token } = connection;
  const serverUrl = serverUrlOf(connection.baseUrl);
  const label = LANGUAGES.find((l) => l.id === language)!.label;

  const choose = (next: string) => {
    setLanguage(next as Language);
    setCopied(null);
    local.set(LANGUAGE_KEY, next);
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(snippet(language, call, { serverUrl, token, includeToken }));
      setCopied('ok');
    } catch {
      setCopied('failed');
    }
  };

  return (
    <div className="code-snippets">
      <Tabs
        label="Code language"
        selected={language}
        onSelect={choose}
        tabs={LANGUAGES.map((l) => ({
          id: l.id,
          label: l.label,
          content: (
            <pre aria-label={l.id === 'curl' ? 'curl command' : `${l.label} code`}>
              {snippet(l.id, call, { serverUrl, token: token && includeToken ? MASKED_TOKEN : token, includeToken })}
            </pre>
          ),
        }))}
      />
      <div className="code-actions">
        <button type="button" onClick={() => void copy()}>
          Copy {label}
        </button>
        <span className="code-include-token">
          <input
            id={id}
            type="checkbox"
            checked={includeToken}
            disabled={!token}
            onChange={(e) => {
              setIncludeToken(e.target.checked);
              setCopied(null);
            }}
          />
          <label htmlFor={id}>Include token</label>
        </span>
        <span role="status" aria-live="polite">
          {copied === 'ok' && (includeToken ? 'Copied, with the token.' : `Copied; the token is redacted as ${tokenPlaceholder(language)}.`)}
          {copied === 'failed' && 'The browser refused clipboard access; select the code and copy it.'}
          {connection.screenShare && includeToken ? ' (masked on screen)' : ''}
        </span>
      </div>
    </div>
  );
}
