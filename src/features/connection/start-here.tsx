import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { AGENTS_SCOPE, GLOBAL_SCOPE } from '../../contract/scopes';
import type { DemoToken } from '../../lib/console-info';
import { useProfiles } from './connection-provider';
import { DemoTokenList, useChooseDemoToken, useDemoTokens } from './demo-tokens';

/**
 * How to get going, for a profile without a token: with the bundled service, its demo tokens
 * one click away; with an instance, which scopes each part of the console needs.
 */
export function StartHere() {
  const { active, token } = useProfiles();
  const all = useDemoTokens();
  const choose = useChooseDemoToken();
  const [chosen, setChosen] = useState<{ profileId: string; demo: DemoToken } | null>(null);
  const confirmation = useRef<HTMLElement>(null);
  // The clicked button goes away with the list: focus goes to what took its place.
  useEffect(() => {
    if (chosen) confirmation.current?.focus();
  }, [chosen]);

  if (token && chosen?.profileId === active.id && chosen.demo.token === token) {
    const { demo } = chosen;
    return (
      <section className="panel start-here" aria-labelledby="start-here-done" tabIndex={-1} ref={confirmation}>
        <h2 id="start-here-done">Using “{demo.label}”</h2>
        <p>
          Profile <strong>{active.label}</strong> now sends this demo token, with scopes <code>{demo.scopes.join(' ')}</code> (
          {active.remember ? 'remembered on this device' : 'kept for this tab only'}). Go on to <Link to="/schemas">Schemas</Link> or{' '}
          <Link to="/runs">Agent runs</Link>.
        </p>
      </section>
    );
  }
  const demos = active.mode === 'same-origin' ? all : [];
  if (token) {
    // With a token, the demo tokens stay one disclosure away: trying another scope (a 401 on a group, say) needs no copying.
    if (!demos.length) return null;
    return (
      <details className="panel start-here">
        <summary>Demo tokens of the reference service</summary>
        <p className="hint">Pick one to use it on profile {active.label} instead of its token now.</p>
        <DemoTokenList
          demos={demos}
          onChoose={(demo) => {
            choose(demo);
            setChosen({ profileId: active.id, demo });
          }}
        />
      </details>
    );
  }
  return (
    <section className="panel start-here" aria-labelledby="start-here-heading">
      <h2 id="start-here-heading">Start here</h2>
      <p>
        Every request carries a bearer token, and what a token may do depends on its scopes: <strong>Schemas</strong> needs{' '}
        <code>custommetadata:&lt;group&gt;</code> for one group or <code>{GLOBAL_SCOPE}</code> for all; <strong>Agent runs</strong> needs{' '}
        <code>{AGENTS_SCOPE}</code>. A token whose scope does not cover a group is refused with 401.
      </p>
      {demos.length > 0 ? (
        <>
          <p>This console runs with a reference service and its public demo tokens. Pick one to use it on this profile:</p>
          <DemoTokenList
            demos={demos}
            onChoose={(demo) => {
              choose(demo);
              setChosen({ profileId: active.id, demo });
            }}
          />
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
