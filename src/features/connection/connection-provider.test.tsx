import { act, cleanup, render } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { useConnection, useConnections, type ActiveConnection, type Connections } from '../../lib/connection';
import { DEMO, freshBrowser } from '../../test-support/reference-service';
import { ConnectionProvider, useProfiles, type ProfilesApi } from './connection-provider';

afterEach(() => cleanup());

const PROFILES = {
  profiles: [
    { id: 'a', label: 'Profile A', mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} },
    { id: 'b', label: 'Profile B', mode: 'same-origin', target: '', scopes: [], remember: false, outcomes: {} },
  ],
  activeId: 'a',
  screenShare: false,
};

function renderProvider() {
  const seen: { connection?: ActiveConnection; connections?: Connections; profiles?: ProfilesApi } = {};
  function Probe() {
    seen.connection = useConnection();
    seen.connections = useConnections();
    seen.profiles = useProfiles();
    return null;
  }
  render(
    <ConnectionProvider>
      <Probe />
    </ConnectionProvider>,
  );
  const outcomesOf = (id: string) => seen.profiles!.state.profiles.find((p) => p.id === id)!.outcomes;
  return { seen, outcomesOf };
}

it('an answer that arrives after the user switched profile is recorded on the profile that sent the request', () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen, outcomesOf } = renderProvider();
  const sender = seen.connection!;
  expect(sender.profileId).toBe('a');
  act(() => seen.profiles!.activate('b'));
  expect(seen.connection!.profileId).toBe('b');
  // A's request for group "sales" answers now.
  act(() => sender.recordOutcome('Sales', 'ok'));
  expect(outcomesOf('a')).toEqual({ sales: 'ok' });
  expect(outcomesOf('b')).toEqual({});
});

it('a request sent with another profile’s connection (Run on both) records its outcome on that profile', () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen, outcomesOf } = renderProvider();
  act(() => seen.connections!.connectionOf('b')!.recordOutcome('hr', 'refused'));
  expect(outcomesOf('b')).toEqual({ hr: 'refused' });
  expect(outcomesOf('a')).toEqual({});
});

it('an answer to a request sent with the profile’s old token is not recorded once its token changed', () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen, outcomesOf } = renderProvider();
  // A's schema GET goes out with no token; the user pastes one before it answers.
  const sender = seen.connection!;
  act(() => seen.profiles!.setToken('a-pasted-token'));
  act(() => sender.recordOutcome('Sales', 'refused'));
  // The 401 was the missing token's: the pasted one has not been refused anything.
  expect(outcomesOf('a')).toEqual({});
  act(() => seen.connection!.recordOutcome('Sales', 'ok'));
  expect(outcomesOf('a')).toEqual({ sales: 'ok' });
});

// The recorder is keyed by profile and token only: the profile settings clear the outcomes when
// the server (mode, target) changes, but the old server's recorder stays live, so its late
// answer is recorded as the new server's (the panel then says the new server refused a group).
it('an answer from the profile’s old server is not recorded once its server changed', () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen, outcomesOf } = renderProvider();
  const sender = seen.connection!;
  act(() => seen.profiles!.update('a', { mode: 'direct', target: 'https://acme-be.example', outcomes: {} }));
  act(() => sender.recordOutcome('Sales', 'refused'));
  expect(outcomesOf('a')).toEqual({});
});

// --- Tabs. Profiles are saved in localStorage, which the browser's tabs share; each tab has its
// own sessionStorage. "Another tab" here writes localStorage as that tab would and sends this
// one the StorageEvent the browser sends (e2e/connection.spec.ts does it with two real tabs).

const saved = () => JSON.parse(localStorage.getItem('mac.profiles')!) as { profiles: Record<string, unknown>[] };

/** Another tab saves the profiles with `change` made to them. */
function anotherTabSaves(change: (profiles: Record<string, unknown>[]) => Record<string, unknown>[]) {
  const before = localStorage.getItem('mac.profiles');
  const record = { ...saved(), profiles: change(saved().profiles) };
  const newValue = JSON.stringify(record);
  localStorage.setItem('mac.profiles', newValue);
  act(() => window.dispatchEvent(new StorageEvent('storage', { key: 'mac.profiles', oldValue: before, newValue, storageArea: localStorage })));
}

it('the scopes a token is said to have are kept with the token, in this tab: the profiles all tabs share carry none', () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen } = renderProvider();
  act(() => seen.profiles!.update('a', { scopes: ['agents.run'] }));
  act(() => seen.connection!.recordOutcome('hr', 'refused'));
  expect(saved().profiles[0]).toEqual({ id: 'a', label: 'Profile A', mode: 'same-origin', target: '', remember: false });
  expect(JSON.parse(sessionStorage.getItem('mac.stated.a')!)).toEqual({ scopes: ['agents.run'], outcomes: { hr: 'refused' } });
  // Another tab, with a token of its own for A, renames A: this tab's scopes and outcomes stay.
  anotherTabSaves((ps) => ps.map((p) => (p.id === 'a' ? { ...p, label: 'Renamed there' } : p)));
  expect(seen.connection!.profileLabel).toBe('Renamed there');
  expect(seen.connection!.scopes).toEqual(['agents.run']);
  expect(seen.connection!.outcomes).toEqual({ hr: 'refused' });
  // Reloaded, this tab still has its own.
  cleanup();
  const reloaded = renderProvider();
  expect(reloaded.seen.connection!.scopes).toEqual(['agents.run']);
  expect(reloaded.seen.connection!.profileLabel).toBe('Renamed there');
});

it('a profile another tab made is kept when this tab saves next, and shown here at once', () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen } = renderProvider();
  anotherTabSaves((ps) => [...ps, { id: 'c', label: 'Made in another tab', mode: 'same-origin', target: '', remember: false }]);
  expect(seen.profiles!.state.profiles.map((p) => p.label)).toEqual(['Profile A', 'Profile B', 'Made in another tab']);
  act(() => seen.profiles!.update('a', { label: 'Renamed here' }));
  expect(saved().profiles.map((p) => p.label)).toEqual(['Renamed here', 'Profile B', 'Made in another tab']);
});

it('each tab keeps its own choice of profile; a new tab opens with the one chosen last', () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen } = renderProvider();
  act(() => seen.profiles!.activate('b'));
  // Another tab chooses A, and saves.
  localStorage.setItem('mac.activeProfile', JSON.stringify('a'));
  anotherTabSaves((ps) => ps);
  expect(seen.connection!.profileId).toBe('b');
  cleanup();
  expect(renderProvider().seen.connection!.profileId).toBe('b');
  // A new tab: no sessionStorage of its own yet.
  cleanup();
  sessionStorage.clear();
  expect(renderProvider().seen.connection!.profileId).toBe('a');
});

it('what is said of a token remembered on this device is kept with it, for every tab; a tab does not write back another tab’s', () => {
  freshBrowser(DEMO.agents, { ...PROFILES, profiles: PROFILES.profiles.map((p) => (p.id === 'a' ? { ...p, remember: true } : p)) });
  const { seen } = renderProvider();
  act(() => seen.profiles!.update('a', { scopes: ['custommetadata:sales'] }));
  expect(JSON.parse(localStorage.getItem('mac.stated.a')!)).toEqual({ scopes: ['custommetadata:sales'], outcomes: {} });
  expect(sessionStorage.getItem('mac.stated.a')).toBeNull();
  // Another tab states other scopes for the remembered token; this tab then edits profile B only.
  localStorage.setItem('mac.stated.a', JSON.stringify({ scopes: ['custommetadata:global_scope'], outcomes: {} }));
  act(() => seen.profiles!.update('b', { label: 'B renamed' }));
  expect(JSON.parse(localStorage.getItem('mac.stated.a')!)).toEqual({ scopes: ['custommetadata:global_scope'], outcomes: {} });
  // A new tab reads them from the device.
  cleanup();
  sessionStorage.clear();
  expect(renderProvider().seen.connection!.scopes).toEqual(['custommetadata:global_scope']);
});

it('profiles saved before tokens had their own record keep their stated scopes and outcomes', () => {
  freshBrowser(DEMO.agents, { ...PROFILES, profiles: PROFILES.profiles.map((p) => (p.id === 'a' ? { ...p, scopes: ['agents.run'], outcomes: { sales: 'ok' } } : p)) });
  const { seen } = renderProvider();
  expect(seen.connection!.scopes).toEqual(['agents.run']);
  expect(seen.connection!.outcomes).toEqual({ sales: 'ok' });
  expect(saved().profiles[0]!.scopes).toBeUndefined();
  expect(JSON.parse(sessionStorage.getItem('mac.stated.a')!)).toEqual({ scopes: ['agents.run'], outcomes: { sales: 'ok' } });
});

it('a deleted profile takes what was said of its token with it; Undo brings it back', () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen } = renderProvider();
  act(() => seen.profiles!.update('b', { scopes: ['agents.run'] }));
  const b = seen.profiles!.state.profiles[1]!;
  act(() => seen.profiles!.remove('b'));
  expect(sessionStorage.getItem('mac.stated.b')).toBeNull();
  act(() => seen.profiles!.restore(b, undefined, 1, false));
  expect(JSON.parse(sessionStorage.getItem('mac.stated.b')!)).toEqual({ scopes: ['agents.run'], outcomes: {} });
});
