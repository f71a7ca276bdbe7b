import { useId, useState } from 'react';
import { maskToken } from '../../lib/connection';
import { useProfiles } from './connection-provider';
import { useUpstreams } from '../../lib/console-info';
import { findDemoToken, useDemoTokens } from './demo-tokens';
import { parseScopes, type Profile } from './profiles';
import { TokenCheck } from './token-check';
import { TokenField } from './token-field';

function validDirectUrl(text: string): string | null {
  if (!text) return 'Enter the instance URL, e.g. https://acme-be.glean.com';
  if (!URL.canParse(text)) return 'Not a URL; include the scheme, e.g. https://acme-be.glean.com';
  const u = new URL(text);
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'Use an http or https URL.';
  return null;
}

/** Settings of the active profile: where to connect, the token, its stated scopes. */
export function ProfileSettings() {
  const { active, token, update, setToken, state, setScreenShare } = useProfiles();
  const upstreams = useUpstreams();
  const demos = useDemoTokens();
  const ids = { label: useId(), mode: useId(), target: useId(), scopes: useId(), remember: useId(), share: useId() };
  // Scopes and URL are edited as text and applied when valid, so typing is never undone.
  const [scopesText, setScopesText] = useState(active.scopes.join(' '));
  const [targetText, setTargetText] = useState(active.target);
  // The target the field last showed or set: one set elsewhere (another tab) replaces the text.
  const [shownTarget, setShownTarget] = useState(active.target);
  const [shownFor, setShownFor] = useState(active.id);
  if (shownFor !== active.id || shownTarget !== active.target) {
    if (shownFor !== active.id) setScopesText(active.scopes.join(' '));
    setShownFor(active.id);
    setShownTarget(active.target);
    setTargetText(active.target);
  }
  // Scopes set elsewhere (a demo token's) replace the text; the user's own typing is left as typed.
  if (shownFor === active.id && parseScopes(scopesText).join(' ') !== active.scopes.join(' ')) setScopesText(active.scopes.join(' '));
  const urlProblem = active.mode === 'direct' ? validDirectUrl(targetText) : null;

  const onToken = (value: string | undefined) => {
    setToken(value);
    // A demo token's scopes are public: a pasted one fills them in, as choosing it does.
    const demo = findDemoToken(demos, value);
    if (demo) update(active.id, { scopes: [...demo.scopes] });
  };

  const setMode = (mode: Profile['mode']) => {
    const target = mode === 'proxy' ? (upstreams.data?.[0] ?? '') : mode === 'direct' ? targetText : '';
    if (mode !== 'direct') setTargetText(target);
    setShownTarget(target);
    update(active.id, { mode, target, outcomes: {} });
  };

  return (
    <div className="profile-settings">
      <div className="field">
        <label htmlFor={ids.label}>Profile name</label>
        <input id={ids.label} value={active.label} onChange={(e) => update(active.id, { label: e.target.value || 'Unnamed' })} />
      </div>
      <div className="field">
        <label htmlFor={ids.mode}>Connect to</label>
        <select id={ids.mode} value={active.mode} onChange={(e) => setMode(e.target.value as Profile['mode'])}>
          <option value="same-origin">Bundled reference service</option>
          <option value="proxy" disabled={!upstreams.data?.length}>
            Instance, via this console’s server{upstreams.data?.length ? '' : ' (start with --upstream)'}
          </option>
          <option value="direct">Instance, directly (needs CORS)</option>
        </select>
      </div>
      {active.mode === 'proxy' && (
        <div className="field">
          <label htmlFor={ids.target}>Upstream</label>
          <select id={ids.target} value={active.target} onChange={(e) => update(active.id, { target: e.target.value, outcomes: {} })}>
            {(upstreams.data ?? []).map((u) => (
              <option key={u} value={u}>
                {u}
              </option>
            ))}
          </select>
        </div>
      )}
      {active.mode === 'direct' && (
        <div className="field">
          <label htmlFor={ids.target}>Instance URL</label>
          <input
            id={ids.target}
            value={targetText}
            placeholder="https://acme-be.glean.com"
            aria-invalid={urlProblem !== null}
            aria-describedby={`${ids.target}-hint`}
            onChange={(e) => {
              setTargetText(e.target.value);
              // An invalid URL clears the target, so nothing is sent to the last valid one by mistake.
              const target = validDirectUrl(e.target.value) ? '' : new URL(e.target.value).origin;
              setShownTarget(target);
              if (target !== active.target) update(active.id, { target, outcomes: {} });
            }}
          />
          <p id={`${ids.target}-hint`} className={urlProblem ? 'hint error' : 'hint'}>
            {urlProblem ?? 'The instance must allow this page’s origin with CORS.'}
          </p>
        </div>
      )}
      <TokenField token={token} screenShare={state.screenShare} onChange={onToken} />
      {token && <p className="hint">Token: <code>{maskToken(token, state.screenShare, demos)}</code></p>}
      <TokenCheck />
      <div className="field checkbox">
        <input id={ids.remember} type="checkbox" checked={active.remember} onChange={(e) => update(active.id, { remember: e.target.checked })} />
        <label htmlFor={ids.remember}>Remember on this device</label>
        <p className="hint">
          {active.remember
            ? 'Kept in this browser’s local storage until you clear it: anyone using this browser profile can read it.'
            : 'Kept for this tab only (session storage): gone when the tab closes.'}
        </p>
      </div>
      <div className="field">
        <label htmlFor={ids.scopes}>Scopes this token has</label>
        <input
          id={ids.scopes}
          value={scopesText}
          // An example, styled as a hint (styles.css): scopes typed here look like values, this does not.
          placeholder="e.g. custommetadata:sales agents.run"
          aria-describedby={`${ids.scopes}-hint`}
          onChange={(e) => {
            setScopesText(e.target.value);
            update(active.id, { scopes: parseScopes(e.target.value) });
          }}
        />
        <p id={`${ids.scopes}-hint`} className="hint">
          As your administrator minted it, separated by spaces or commas; used to warn before a request the token cannot make.
        </p>
      </div>
      <div className="field checkbox">
        <input id={ids.share} type="checkbox" checked={state.screenShare} onChange={(e) => setScreenShare(e.target.checked)} />
        <label htmlFor={ids.share}>Screen-share mode (mask every token)</label>
      </div>
    </div>
  );
}
