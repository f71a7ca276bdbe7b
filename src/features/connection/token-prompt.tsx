import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { PageTitle } from '../../components/page-title';
import { AskForTokenContext } from '../../lib/token-request';
import { useProfiles } from './connection-provider';
import { DemoTokenList, findDemoToken, useChooseDemoToken, useDemoTokens } from './demo-tokens';

interface Needs {
  /** A scope the page needs: demo tokens with it are offered first. */
  scope?: string;
  /** Why this page in particular needs a token, said in the prompt. */
  why?: string;
}

/**
 * Its children once the active profile has a token; until then, a prompt for one. Tokens are
 * kept for one tab unless remembered, so a link opened in a new tab arrives without one: the
 * prompt offers to paste one (and remember it on this device) or, with the bundled service, a
 * demo token in one click. The app composes it around pages that mean nothing without a token,
 * so no other feature reads or writes the token.
 */
export function TokenGate({ children, scope, why }: Needs & { children: ReactNode }) {
  const { token } = useProfiles();
  const [given, setGiven] = useState(0);
  // The page asked for another token (the one it has was refused): the prompt comes back, the token stays until replaced.
  const [asking, setAsking] = useState(false);
  const content = useRef<HTMLDivElement>(null);
  // The prompt, and the control used in it, go away: focus goes to the page that replaced it.
  useEffect(() => {
    if (given && token) content.current?.focus();
  }, [given, token]);
  if (!token || asking) {
    return (
      <TokenPrompt
        scope={scope}
        why={why}
        refused={asking}
        onGiven={() => {
          setAsking(false);
          setGiven((n) => n + 1);
        }}
        onKeep={asking ? () => setAsking(false) : undefined}
      />
    );
  }
  return (
    <AskForTokenContext.Provider value={() => setAsking(true)}>
      {/* A new token is a new page: nothing read with the refused one is kept. */}
      <div className="token-gate" ref={content} tabIndex={given ? -1 : undefined} key={given}>
        {children}
      </div>
    </AskForTokenContext.Provider>
  );
}

function TokenPrompt({ scope, why, refused, onGiven, onKeep }: Needs & { refused: boolean; onGiven(): void; onKeep?(): void }) {
  const { active, setToken } = useProfiles();
  const all = useDemoTokens();
  const choose = useChooseDemoToken();
  const ids = { heading: useId(), token: useId(), remember: useId(), demos: useId() };
  const [text, setText] = useState('');
  const [remember, setRemember] = useState(active.remember);
  const [problem, setProblem] = useState<string | null>(null);
  const fitting = scope ? all.filter((d) => d.scopes.includes(scope)) : all;
  const demos = active.mode !== 'same-origin' ? [] : fitting.length ? fitting : all;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const clean = text.trim();
    if (!clean) {
      setProblem('Paste a token first.');
      return;
    }
    const demo = findDemoToken(all, clean);
    if (demo) choose(demo, remember);
    else setToken(clean, remember);
    onGiven();
  };

  return (
    <section className="panel token-prompt" aria-labelledby={ids.heading}>
      <PageTitle title="Token needed" />
      <h1 id={ids.heading}>{refused ? 'Another token for this page' : 'A token is needed for this page'}</h1>
      {refused ? (
        <p>
          The token of profile <strong>{active.label}</strong> was refused here; the one you give replaces it in this profile.{why ? ` ${why}` : ''}
        </p>
      ) : (
        <p>
          Profile <strong>{active.label}</strong> has no token in this tab. A token is kept for one tab unless you remember it on this device, so a link
          opened in a new tab asks again.{why ? ` ${why}` : ''}
        </p>
      )}
      <form onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor={ids.token}>Bearer token</label>
          <input
            id={ids.token}
            type="password"
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              setProblem(null);
            }}
            autoComplete="off"
            spellCheck={false}
            placeholder="Paste a token"
            aria-invalid={problem !== null}
            aria-describedby={`${ids.token}-hint`}
          />
          <p id={`${ids.token}-hint`} className={problem ? 'hint error' : 'hint'}>
            {problem ?? 'Sent only as the Authorization header to this profile’s base URL.'}
          </p>
        </div>
        <div className="field checkbox">
          <input id={ids.remember} type="checkbox" checked={remember} onChange={(e) => setRemember(e.target.checked)} />
          <label htmlFor={ids.remember}>Remember on this device</label>
          <p className="hint">
            {remember
              ? 'Kept in this browser’s local storage, so other tabs open without asking: anyone using this browser profile can read it.'
              : 'Kept for this tab only (session storage): gone when the tab closes.'}
          </p>
        </div>
        <p className="toolbar">
          <button type="submit">Use this token</button>
          {onKeep && (
            <button type="button" onClick={onKeep}>
              Keep the current token
            </button>
          )}
        </p>
      </form>
      {demos.length > 0 && (
        <section aria-labelledby={ids.demos}>
          <h2 id={ids.demos}>Or use a demo token</h2>
          <p className="hint">Public tokens of the bundled reference service; they mean nothing anywhere else.</p>
          <DemoTokenList
            demos={demos}
            onChoose={(demo) => {
              choose(demo, remember);
              onGiven();
            }}
          />
        </section>
      )}
      <p>
        <Link to="/connection">Profiles and sandbox tokens</Link>
      </p>
    </section>
  );
}
