import { useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useLocation } from 'react-router';
import { maskToken } from '../../lib/connection';
import { NARROW, useMediaQuery } from '../../lib/use-media-query';
import { useProfiles } from './connection-provider';
import { useDemoTokens } from './demo-tokens';
import { ProfileSettings } from './profile-settings';
import { targetText } from './profiles';

/**
 * The connection panel, always at hand beside every page. On a narrow screen it is a one-line
 * summary (profile, target, masked token, scopes) that opens into the full panel.
 */
export function ConnectionPanel() {
  const { state, active, activate, token, notice, dismissNotice } = useProfiles();
  const narrow = useMediaQuery(NARROW);
  const demos = useDemoTokens();
  const selectId = useId();
  // On a narrow screen the opened panel covers the page: a navigation (from the menu, or a
  // link inside the panel) closes it, so the page navigated to is what shows.
  const { key: at } = useLocation();
  const [open, setOpen] = useState(false);
  const [openedAt, setOpenedAt] = useState(at);
  if (openedAt !== at) {
    setOpenedAt(at);
    setOpen(false);
  }
  const details = useRef<HTMLDetailsElement>(null);
  // Focus on a control the closing hid (the link that navigated) goes back to the summary, not to the page's top.
  useLayoutEffect(() => {
    const summary = details.current?.querySelector('summary');
    if (!open && summary && details.current?.contains(document.activeElement) && document.activeElement !== summary) summary.focus();
  }, [open]);
  // A change from another tab (this tab's profile deleted, or moved to another server) is said
  // here; the field being typed in belonged to what changed, so focus goes to what says so.
  const aside = useRef<HTMLElement>(null);
  const said = useRef<HTMLParagraphElement>(null);
  useLayoutEffect(() => {
    if (notice && aside.current?.contains(document.activeElement) && document.activeElement !== said.current) said.current?.focus();
  }, [notice]);
  const changedElsewhere = (
    <div role="status" aria-label="Changed in another tab" className="profile-notice-region">
      {notice && (
        <p className="warning" tabIndex={-1} ref={said}>
          {notice.text}{' '}
          <button type="button" onClick={dismissNotice}>
            Dismiss
          </button>
        </p>
      )}
    </div>
  );
  const refused = Object.entries(active.outcomes).filter(([, o]) => o === 'refused').map(([g]) => g);
  const worked = Object.entries(active.outcomes).filter(([, o]) => o === 'ok').map(([g]) => g);
  const body: ReactNode = (
    <>
      <div className="field">
        <label htmlFor={selectId}>Profile</label>
        <select id={selectId} value={active.id} onChange={(e) => activate(e.target.value)}>
          {state.profiles.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
        </select>
      </div>
      <ProfileSettings />
      {(worked.length > 0 || refused.length > 0) && (
        <div className="outcomes" role="group" aria-label="Groups seen with this profile">
          {worked.length > 0 && <p>Answered: {worked.join(', ')}</p>}
          {refused.length > 0 && <p className="warn">Refused (401): {refused.join(', ')}</p>}
        </div>
      )}
      <p>
        <Link to="/connection">Manage profiles and sandbox tokens</Link>
      </p>
    </>
  );
  if (!narrow) {
    return (
      <aside className="connection-panel" aria-label="Connection" ref={aside}>
        <h2>Connection</h2>
        {changedElsewhere}
        {body}
      </aside>
    );
  }
  return (
    <aside className="connection-panel connection-summary" aria-label="Connection" ref={aside}>
      {changedElsewhere}
      <details ref={details} open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>
          <span className="summary-title">Connection</span> <strong>{active.label}</strong> · {targetText(active)} · token{' '}
          <code>{maskToken(token, state.screenShare, demos)}</code>
          {/* Scopes are a token's: with none pasted, the ones stated for the last would mislead. */}
          {token && <> · {active.scopes.length ? active.scopes.join(' ') : 'scopes not stated'}</>}
        </summary>
        <div className="summary-body">{body}</div>
      </details>
    </aside>
  );
}
