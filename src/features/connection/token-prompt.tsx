import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { PageTitle } from '../../components/page-title';
import { maskToken } from '../../lib/connection';
import { AskForTokenContext } from '../../lib/token-request';
import { useProfiles } from './connection-provider';
import { DemoTokenList, findDemoToken, useChooseDemoToken, useDemoTokens } from './demo-tokens';
import { newProfileId, targetText } from './profiles';

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
        onKeep={() => setAsking(false)}
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

function TokenPrompt({ refused, onKeep, ...props }: Needs & { refused: boolean; onGiven(): void; onKeep(): void }) {
  return refused ? <AnotherTokenPrompt {...props} onKeep={onKeep} /> : <FirstTokenPrompt {...props} />;
}

/** The profile has no token in this tab: paste one (and remember it), or pick a demo token. */
function FirstTokenPrompt({ scope, why, onGiven }: Needs & { onGiven(): void }) {
  const { active, setToken } = useProfiles();
  const all = useDemoTokens();
  const choose = useChooseDemoToken();
  const ids = { heading: useId(), demos: useId() };
  const form = useTokenForm(active.remember);
  const fitting = scope ? all.filter((d) => d.scopes.includes(scope)) : all;
  const demos = active.mode !== 'same-origin' ? [] : fitting.length ? fitting : all;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const clean = form.take();
    if (!clean) return;
    const demo = findDemoToken(all, clean);
    if (demo) choose(demo, form.fields.remember);
    else setToken(clean, form.fields.remember);
    onGiven();
  };

  return (
    <section className="panel token-prompt" aria-labelledby={ids.heading}>
      <PageTitle title="Token needed" />
      <h1 id={ids.heading}>A token is needed for this page</h1>
      <p>
        Profile <strong>{active.label}</strong> has no token in this tab. A token is kept for one tab unless you remember it on this device, so a link opened
        in a new tab asks again.{why ? ` ${why}` : ''}
      </p>
      <form onSubmit={submit} noValidate>
        <TokenInput label="Bearer token" {...form.fields} />
        <p className="toolbar">
          <button type="submit">Use this token</button>
        </p>
      </form>
      {demos.length > 0 && (
        <section aria-labelledby={ids.demos}>
          <h2 id={ids.demos}>Or use a demo token</h2>
          <p className="hint">Public tokens of the bundled reference service; they mean nothing anywhere else.</p>
          <DemoTokenList
            demos={demos}
            onChoose={(demo) => {
              choose(demo, form.fields.remember);
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

/** A token field with its problem, and where the token is kept: the parts of each way to give one. */
function TokenInput({ label, text, problem, onText, remember, onRemember }: {
  label: string;
  text: string;
  problem: string | null;
  onText(text: string): void;
  remember: boolean;
  onRemember(remember: boolean): void;
}) {
  const ids = { token: useId(), remember: useId() };
  return (
    <>
      <div className="field">
        <label htmlFor={ids.token}>{label}</label>
        <input
          id={ids.token}
          type="password"
          value={text}
          onChange={(e) => onText(e.target.value)}
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
        <input id={ids.remember} type="checkbox" checked={remember} onChange={(e) => onRemember(e.target.checked)} />
        <label htmlFor={ids.remember}>Remember on this device</label>
        <p className="hint">
          {remember
            ? 'Kept in this browser’s local storage, so other tabs open without asking: anyone using this browser profile can read it.'
            : 'Kept for this tab only (session storage): gone when the tab closes.'}
        </p>
      </div>
    </>
  );
}

/** What one of the prompt's forms holds: the token typed, where to keep it, and what was wrong with it. */
function useTokenForm(initialRemember: boolean) {
  const [text, setText] = useState('');
  const [remember, setRemember] = useState(initialRemember);
  const [problem, setProblem] = useState<string | null>(null);
  return {
    fields: {
      text,
      problem,
      remember,
      onRemember: setRemember,
      onText(t: string) {
        setText(t);
        setProblem(null);
      },
    },
    /** The token, or undefined (and the field says why). */
    take(): string | undefined {
      const clean = text.trim();
      if (!clean) setProblem('Paste a token first.');
      return clean || undefined;
    },
  };
}

/**
 * The profile's token was refused here (a run is read only with the token that started it).
 * Another profile, or a new profile with another token, leaves this profile's token as it
 * is; replacing it is offered last, saying what it replaces, since the old token is then gone.
 */
function AnotherTokenPrompt({ scope, why, onGiven, onKeep }: Needs & { onGiven(): void; onKeep(): void }) {
  const { state, active, token, tokenOf, activate, add, setToken, update } = useProfiles();
  const all = useDemoTokens();
  const ids = { heading: useId(), switch: useId(), fresh: useId(), replace: useId(), name: useId() };
  const fitting = scope ? all.filter((d) => d.scopes.includes(scope)) : all;
  const demos = active.mode !== 'same-origin' ? [] : fitting.length ? fitting : all;
  const others = state.profiles.filter((p) => p.id !== active.id);
  const masked = maskToken(token, state.screenShare, all);
  const [name, setName] = useState(`${active.label}, another token`);
  const fresh = useTokenForm(active.remember);
  const replace = useTokenForm(active.remember);

  // A new profile connects where this one does; a demo token brings the scopes it has.
  const addProfile = (label: string, newToken: string, remember: boolean) => {
    const demo = findDemoToken(all, newToken);
    add({ id: newProfileId(), label: label.trim() || `${active.label}, another token`, mode: active.mode, target: active.target, scopes: demo ? [...demo.scopes] : [], remember, outcomes: {} }, newToken);
    onGiven();
  };
  const submitFresh = (e: FormEvent) => {
    e.preventDefault();
    const newToken = fresh.take();
    if (newToken) addProfile(name, newToken, fresh.fields.remember);
  };
  const submitReplace = (e: FormEvent) => {
    e.preventDefault();
    const newToken = replace.take();
    if (!newToken) return;
    const demo = findDemoToken(all, newToken);
    setToken(newToken, replace.fields.remember);
    if (demo) update(active.id, { scopes: [...demo.scopes] });
    onGiven();
  };

  return (
    <section className="panel token-prompt" aria-labelledby={ids.heading}>
      <PageTitle title="Token needed" />
      <h1 id={ids.heading}>Another token for this page</h1>
      <p>
        The token of profile <strong>{active.label}</strong>, <code>{masked}</code>, was refused here.{why ? ` ${why}` : ''} Read the page with another
        profile, or with a new profile for another token: {active.label} keeps its token either way.
      </p>
      <section aria-labelledby={ids.switch}>
        <h2 id={ids.switch}>Switch to another profile</h2>
        {others.length > 0 ? (
          <ul className="profile-choices">
            {others.map((p) => (
              <li key={p.id}>
                <button
                  type="button"
                  onClick={() => {
                    activate(p.id);
                    onGiven();
                  }}
                >
                  Switch to {p.label}
                </button>{' '}
                <span className="muted">
                  {targetText(p)} · token <code>{maskToken(tokenOf(p.id), state.screenShare, all)}</code>
                </span>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No other profile yet: make one below.</p>
        )}
      </section>
      <section aria-labelledby={ids.fresh}>
        <h2 id={ids.fresh}>Make a new profile with another token</h2>
        <form onSubmit={submitFresh} noValidate>
          <div className="field">
            <label htmlFor={ids.name}>Profile name</label>
            <input id={ids.name} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />
            <p className="hint">Connects where {active.label} does ({targetText(active)}).</p>
          </div>
          <TokenInput label="Token for the new profile" {...fresh.fields} />
          <p className="toolbar">
            <button type="submit">Make the profile and use it</button>
          </p>
        </form>
        {demos.length > 0 && (
          <>
            <p className="hint">Or a demo token of the bundled reference service, as a profile of its own:</p>
            <DemoTokenList demos={demos} verb="New profile with" onChoose={(demo) => addProfile(demo.label, demo.token, fresh.fields.remember)} />
          </>
        )}
      </section>
      <section aria-labelledby={ids.replace}>
        <h2 id={ids.replace}>Replace this profile’s token</h2>
        <p>
          Replaces the token profile {active.label} has now, <code>{masked}</code>, with the one you give. Unless you have a copy of it elsewhere, that
          token is then gone from this console.
        </p>
        <form onSubmit={submitReplace} noValidate>
          <TokenInput label={`New token for ${active.label}`} {...replace.fields} />
          <p className="toolbar">
            <button type="submit">Replace the token of {active.label}</button>
          </p>
        </form>
      </section>
      <p className="toolbar">
        <button type="button" onClick={onKeep}>
          Keep the current token
        </button>
        <Link to="/connection">Profiles and sandbox tokens</Link>
      </p>
    </section>
  );
}
