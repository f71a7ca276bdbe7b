import { useId, useState } from 'react';
import { Link } from 'react-router';
import { useServiceInfo } from '../../lib/console-info';
import { useConnection } from '../../lib/connection';

type Source = 'bundled' | 'opened';

interface KnownGroup {
  name: string;
  sources: Set<Source>;
  outcome?: 'ok' | 'refused';
}

const OUTCOME_TEXT = { ok: 'answered', refused: 'refused (401)' } as const;

/**
 * The groups this console knows for the active profile: those the bundled service holds
 * (when the profile talks to it) and those opened with this profile, each with how the
 * service last answered. Each is a link to the group's schema.
 */
export function KnownGroups() {
  const connection = useConnection();
  const info = useServiceInfo();
  const [filter, setFilter] = useState('');
  const filterId = useId();
  const known = new Map<string, KnownGroup>();
  const add = (name: string, source: Source) => {
    const key = name.toLowerCase();
    const entry = known.get(key) ?? { name, sources: new Set<Source>() };
    entry.sources.add(source);
    known.set(key, entry);
  };
  if (connection.mode === 'same-origin') for (const g of info.data?.groupNames ?? []) add(g, 'bundled');
  for (const g of Object.keys(connection.outcomes)) add(g, 'opened');
  for (const [g, outcome] of Object.entries(connection.outcomes)) known.get(g.toLowerCase())!.outcome = outcome;
  const needle = filter.trim().toLowerCase();
  const all = [...known.values()].sort((a, b) => a.name.localeCompare(b.name));
  const shown = all.filter((g) => g.name.toLowerCase().includes(needle));

  return (
    <section className="known-groups" aria-labelledby={`${filterId}-heading`}>
      <h2 id={`${filterId}-heading`}>Known groups</h2>
      {all.length === 0 ? (
        <p className="muted">
          No groups known yet for this profile. Type a group name above; groups you open are listed here with how the service answered.
        </p>
      ) : (
        <>
          <div className="field">
            <label htmlFor={filterId}>Filter groups</label>
            <input id={filterId} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} autoComplete="off" />
          </div>
          <ul className="known-list" aria-label="Known groups">
            {shown.map((g) => (
              <li key={g.name}>
                <Link to={`/schemas/${encodeURIComponent(g.name)}`}>{g.name}</Link>
                <span className="muted">
                  {g.sources.has('bundled') ? ' · on the bundled service' : ''}
                  {g.outcome ? ` · last ${OUTCOME_TEXT[g.outcome]}` : g.sources.has('opened') ? ' · opened here' : ''}
                </span>
              </li>
            ))}
          </ul>
          {shown.length === 0 && <p className="muted">No known group matches “{filter}”.</p>}
        </>
      )}
    </section>
  );
}
