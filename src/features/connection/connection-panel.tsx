import { useId } from 'react';
import { Link } from 'react-router';
import { useProfiles } from './connection-provider';
import { ProfileSettings } from './profile-settings';

/** The connection panel, always at hand beside every page. */
export function ConnectionPanel() {
  const { state, active, activate } = useProfiles();
  const selectId = useId();
  const refused = Object.entries(active.outcomes).filter(([, o]) => o === 'refused').map(([g]) => g);
  const worked = Object.entries(active.outcomes).filter(([, o]) => o === 'ok').map(([g]) => g);
  return (
    <aside className="connection-panel" aria-label="Connection">
      <h2>Connection</h2>
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
    </aside>
  );
}
