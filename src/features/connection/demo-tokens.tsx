import { useServiceInfo, type DemoToken } from '../../lib/console-info';
import { useProfiles } from './connection-provider';

/** The bundled service's public demo tokens; none when the console runs without it. */
export function useDemoTokens(): DemoToken[] {
  return useServiceInfo().data?.demoTokens ?? [];
}

/** The demo token this string is, if it is one: its scopes are then known, not guessed. */
export function findDemoToken(demos: readonly DemoToken[], token: string | undefined): DemoToken | undefined {
  const clean = token?.trim();
  return clean ? demos.find((d) => d.token === clean) : undefined;
}

/** Puts a demo token on the active profile with the scopes it has. */
export function useChooseDemoToken(): (demo: DemoToken, remember?: boolean) => void {
  const { active, setToken, update } = useProfiles();
  return (demo, remember) => {
    setToken(demo.token, remember);
    update(active.id, { scopes: [...demo.scopes] });
  };
}

/** The demo tokens, one click each; `verb` says what the click does with one ("Use"). */
export function DemoTokenList({ demos, onChoose, verb = 'Use' }: { demos: readonly DemoToken[]; onChoose(demo: DemoToken): void; verb?: string }) {
  return (
    <ul className="demo-tokens">
      {demos.map((d) => (
        <li key={d.token}>
          <button type="button" onClick={() => onChoose(d)}>
            {verb} “{d.label}”
          </button>{' '}
          <span className="muted">
            {d.scopes.map((s) => (
              <code key={s}>{s} </code>
            ))}
          </span>
        </li>
      ))}
    </ul>
  );
}
