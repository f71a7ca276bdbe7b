import { useRef, useState } from 'react';
import { useProfiles } from './connection-provider';
import { useServiceInfo } from '../../lib/console-info';
import { newProfileId, type Profile } from './profiles';
import { SandboxPanel } from './sandbox-panel';
import { StartHere } from './start-here';
import { PageTitle } from '../../components/page-title';

export function ConnectionPage() {
  const { state, active, activate, add, remove, restore, tokenOf } = useProfiles();
  const info = useServiceInfo();
  // The profile last deleted, with its token, until Undo or the next delete: one click loses nothing.
  const [deleted, setDeleted] = useState<{ profile: Profile; token: string | undefined; at: number; wasActive: boolean }>();
  // The Delete button is gone with its profile: focus goes to Undo, once shown.
  const focusUndo = useRef(false);
  const undoShown = (el: HTMLButtonElement | null) => {
    if (el && focusUndo.current) {
      focusUndo.current = false;
      el.focus();
    }
  };
  const deleteProfile = (p: Profile) => {
    focusUndo.current = true;
    setDeleted({ profile: p, token: tokenOf(p.id), at: state.profiles.findIndex((x) => x.id === p.id), wasActive: p.id === active.id });
    remove(p.id);
  };
  return (
    <section aria-labelledby="connection-heading">
      <PageTitle title="Connection" />
      <h1 id="connection-heading">Connection</h1>
      <div role="status" aria-live="polite">
        {info.isPending && <p>Checking for the bundled reference service…</p>}
        {info.isError && <p className="muted">No reference service on this origin; connect to an instance instead.</p>}
        {info.isSuccess && (
          <p>
            Reference service reachable: {info.data.groups} metadata groups, {info.data.agents} scripted agents.
          </p>
        )}
      </div>

      <StartHere />

      <section className="panel" aria-labelledby="profiles-heading">
        <h2 id="profiles-heading">Profiles</h2>
        <p className="hint">A profile is a base URL, a token and the scopes you say it has. Edit the active one in the connection panel.</p>
        {deleted && !state.profiles.some((p) => p.id === deleted.profile.id) && (
          <p className="notice" role="status">
            Deleted profile “{deleted.profile.label}”{deleted.token ? ', with its token' : ''}.{' '}
            <button
              ref={undoShown}
              type="button"
              onClick={() => {
                restore(deleted.profile, deleted.token, deleted.at, deleted.wasActive);
                setDeleted(undefined);
              }}
            >
              Undo
            </button>
          </p>
        )}
        <ul className="profile-list">
          {state.profiles.map((p) => (
            <li key={p.id}>
              <span>
                <strong>{p.label}</strong> — {p.mode === 'same-origin' ? 'this origin' : p.target || 'no URL yet'}
                {p.scopes.length > 0 && <span className="muted"> · {p.scopes.join(' ')}</span>}
              </span>
              {/* One unit: on a narrow screen the actions move under the description together. */}
              <span className="profile-actions">
                {p.id === active.id ? (
                  <span className="badge">active</span>
                ) : (
                  <button type="button" onClick={() => activate(p.id)} aria-label={`Switch to ${p.label}`}>
                    Switch
                  </button>
                )}
                <button type="button" onClick={() => deleteProfile(p)} disabled={state.profiles.length === 1} aria-label={`Delete ${p.label}`}>
                  Delete
                </button>
              </span>
            </li>
          ))}
        </ul>
        <button
          type="button"
          onClick={() =>
            add({ id: newProfileId(), label: `Profile ${state.profiles.length + 1}`, mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} })
          }
        >
          New profile
        </button>
      </section>

      {info.isSuccess && <SandboxPanel />}
    </section>
  );
}
