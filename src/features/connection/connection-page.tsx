import { lazy, Suspense, useState } from 'react';
import { useProfiles } from './connection-provider';
import { useServiceInfo } from '../../lib/console-info';
import { useFocusNext } from '../../lib/use-focus-next';
import { newProfileId, type Profile } from './profiles';
import { StartHere } from './start-here';
import { PageTitle } from '../../components/page-title';

// Shown once the reference service has answered (a round trip after the page): its code comes meanwhile.
const SandboxPanel = lazy(() => import('./sandbox-panel').then((m) => ({ default: m.SandboxPanel })));

export function ConnectionPage() {
  const { state, active, activate, add, remove, restore, tokenOf } = useProfiles();
  const info = useServiceInfo();
  // Every profile deleted on this visit, with its token, newest last: Undo brings them back one
  // by one, newest first, so a second Delete never loses the first.
  const [deleted, setDeleted] = useState<{ profile: Profile; token: string | undefined; at: number; wasActive: boolean }[]>([]);
  // The Delete button is gone with its profile: focus goes to Undo, once shown; after the last Undo, to the list's heading.
  const { focusNext, takeFocus } = useFocusNext<'undo' | 'heading'>();
  const deleteProfile = (p: Profile) => {
    focusNext('undo');
    setDeleted((list) => [...list, { profile: p, token: tokenOf(p.id), at: state.profiles.findIndex((x) => x.id === p.id), wasActive: p.id === active.id }]);
    remove(p.id);
  };
  const pending = deleted.filter((d) => !state.profiles.some((p) => p.id === d.profile.id));
  const last = pending.at(-1);
  const undo = () => {
    if (!last) return;
    restore(last.profile, last.token, last.at, last.wasActive);
    setDeleted((list) => list.filter((d) => d !== last));
    focusNext(pending.length > 1 ? 'undo' : 'heading');
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
        <h2 id="profiles-heading" ref={takeFocus('heading')} tabIndex={-1}>
          Profiles
        </h2>
        <p className="hint">A profile is a base URL, a token and the scopes you say it has. Edit the active one in the connection panel.</p>
        {last && (
          <p className="notice" role="status">
            Deleted profile “{last.profile.label}”{last.token ? ', with its token' : ''}
            {pending.length > 1 ? ` (and ${pending.length - 1} more on this visit: Undo brings back one at a time, the newest first)` : ''}.{' '}
            <button ref={takeFocus('undo')} type="button" onClick={undo}>
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

      {info.isSuccess && (
        <Suspense fallback={null}>
          <SandboxPanel />
        </Suspense>
      )}
    </section>
  );
}
