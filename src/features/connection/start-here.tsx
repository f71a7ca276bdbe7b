import { useServiceInfo } from '../../lib/console-info';
import { AGENTS_SCOPE, GLOBAL_SCOPE } from '../../contract/scopes';
import { useProfiles } from './connection-provider';

/**
 * How to get going, for a profile without a token: with the bundled service, its demo tokens
 * one click away; with an instance, which scopes each part of the console needs.
 */
export function StartHere() {
  const { active, token, setToken, update } = useProfiles();
  const info = useServiceInfo();
  if (token) return null;
  const bundled = active.mode === 'same-origin' && info.isSuccess;
  const demos = bundled ? (info.data.demoTokens ?? []) : [];
  return (
    <section className="panel start-here" aria-labelledby="start-here-heading">
      <h2 id="start-here-heading">Start here</h2>
      <p>
        Every request carries a bearer token, and what a token may do depends on its scopes: <strong>Schemas</strong> needs{' '}
        <code>custommetadata:&lt;group&gt;</code> for one group or <code>{GLOBAL_SCOPE}</code> for all; <strong>Agent runs</strong> needs{' '}
        <code>{AGENTS_SCOPE}</code>. A token whose scope does not cover a group is refused with 401.
      </p>
      {bundled && demos.length > 0 ? (
        <>
          <p>This console runs with a reference service and its public demo tokens. Pick one to use it on this profile:</p>
          <ul className="demo-tokens">
            {demos.map((d) => (
              <li key={d.token}>
                <button
                  type="button"
                  onClick={() => {
                    setToken(d.token);
                    update(active.id, { scopes: d.scopes });
                  }}
                >
                  Use “{d.label}”
                </button>{' '}
                <span className="muted">{d.scopes.map((s) => <code key={s}>{s} </code>)}</span>
              </li>
            ))}
          </ul>
          <p className="hint">Demo tokens mean nothing outside the reference service. Below, you can also mint one with the scopes you choose.</p>
        </>
      ) : (
        <p>
          Paste a token for your instance in the connection panel, choose how to reach the instance (through this console’s server, or directly
          when the instance allows this origin), and state the token’s scopes so the console can warn before a request it cannot make.
        </p>
      )}
    </section>
  );
}
