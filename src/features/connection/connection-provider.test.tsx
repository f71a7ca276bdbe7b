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

// --- Tabs. The browser's tabs share localStorage (a record per profile, and their order);
// each has its own sessionStorage. "Another tab" here writes localStorage as that tab would and
// sends this one the StorageEvent the browser sends (e2e/connection.spec.ts does it with two
// real tabs).

const record = (id: string) => JSON.parse(localStorage.getItem(`mac.profile.${id}`)!) as Record<string, unknown>;
const order = () => JSON.parse(localStorage.getItem('mac.profileOrder')!) as string[];

/** Another tab writes `key` (a key of localStorage, `value` undefined to remove it); this tab hears of it. */
function anotherTabWrites(key: string, value: unknown) {
  const oldValue = localStorage.getItem(key);
  const newValue = value === undefined ? null : JSON.stringify(value);
  if (newValue === null) localStorage.removeItem(key);
  else localStorage.setItem(key, newValue);
  act(() => window.dispatchEvent(new StorageEvent('storage', { key, oldValue, newValue, storageArea: localStorage })));
}

/** The keys of localStorage written while `during` runs, by this tab or (through anotherTabWrites) the other. */
async function localWritesDuring(during: () => unknown): Promise<string[]> {
  const writes: string[] = [];
  const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (this: Storage, key: string, value: string) {
    if (this === localStorage) writes.push(key);
    return setItem.call(this, key, value);
  };
  try {
    await during();
  } finally {
    Storage.prototype.setItem = setItem;
  }
  return writes;
}

it('the scopes a token is said to have are kept with the token, in this tab: what all tabs share says where profiles connect, no more', () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen } = renderProvider();
  act(() => seen.profiles!.update('a', { scopes: ['agents.run'] }));
  act(() => seen.connection!.recordOutcome('hr', 'refused'));
  expect(record('a')).toEqual({ id: 'a', label: 'Profile A', mode: 'same-origin', target: '' });
  expect(JSON.parse(sessionStorage.getItem('mac.stated.a')!)).toEqual({ scopes: ['agents.run'], outcomes: { hr: 'refused' } });
  // Another tab, with a token of its own for A, renames A: this tab's scopes and outcomes stay.
  anotherTabWrites('mac.profile.a', { id: 'a', label: 'Renamed there', mode: 'same-origin', target: '' });
  expect(seen.connection!.profileLabel).toBe('Renamed there');
  expect(seen.connection!.scopes).toEqual(['agents.run']);
  expect(seen.connection!.outcomes).toEqual({ hr: 'refused' });
  cleanup();
  const reloaded = renderProvider();
  expect(reloaded.seen.connection!.scopes).toEqual(['agents.run']);
  expect(reloaded.seen.connection!.profileLabel).toBe('Renamed there');
});

it('a profile another tab made shows here at once, and an edit made here before its news arrives does not drop it', () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen } = renderProvider();
  // The other tab has written its new profile; this tab edits A before hearing of it.
  localStorage.setItem('mac.profile.c', JSON.stringify({ id: 'c', label: 'Made in another tab', mode: 'same-origin', target: '' }));
  localStorage.setItem('mac.profileOrder', JSON.stringify(['a', 'b', 'c']));
  act(() => seen.profiles!.update('a', { label: 'Renamed here' }));
  expect(order()).toEqual(['a', 'b', 'c']);
  expect(record('c').label).toBe('Made in another tab');
  expect(record('a').label).toBe('Renamed here');
  anotherTabWrites('mac.profile.c', { id: 'c', label: 'Made in another tab', mode: 'same-origin', target: '' });
  expect(seen.profiles!.state.profiles.map((p) => p.label)).toEqual(['Renamed here', 'Profile B', 'Made in another tab']);
});

it('what another tab wrote is taken in without being written back: an older copy read late cannot undo a newer one', async () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen } = renderProvider();
  const writes = await localWritesDuring(() => {
    anotherTabWrites('mac.profile.a', { id: 'a', label: 'Ty', mode: 'same-origin', target: '' });
    anotherTabWrites('mac.profile.a', { id: 'a', label: 'Typ', mode: 'same-origin', target: '' });
    anotherTabWrites('mac.profileOrder', ['b', 'a']);
  });
  // Only the other tab's own three writes: this one wrote nothing back.
  expect(writes).toEqual(['mac.profile.a', 'mac.profile.a', 'mac.profileOrder']);
  expect(seen.profiles!.state.profiles.map((p) => p.label)).toEqual(['Profile B', 'Typ']);
});

it('each tab keeps its own choice of profile and screen-share mode; a new tab opens with the ones chosen last', () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen } = renderProvider();
  act(() => seen.profiles!.activate('b'));
  act(() => seen.profiles!.setScreenShare(true));
  // Another tab chooses A, without screen-share.
  anotherTabWrites('mac.activeProfile', 'a');
  anotherTabWrites('mac.screenShare', false);
  expect(seen.connection!.profileId).toBe('b');
  expect(seen.connection!.screenShare).toBe(true);
  cleanup();
  const reloaded = renderProvider().seen.connection!;
  expect([reloaded.profileId, reloaded.screenShare]).toEqual(['b', true]);
  cleanup();
  sessionStorage.clear();
  const fresh = renderProvider().seen.connection!;
  expect([fresh.profileId, fresh.screenShare]).toEqual(['a', false]);
});

it('Remember ticked in another tab does not touch this tab’s own token or what it said of it', () => {
  freshBrowser(DEMO.agents, PROFILES);
  sessionStorage.setItem('mac.token.a', JSON.stringify(DEMO.agents));
  const { seen } = renderProvider();
  act(() => seen.profiles!.update('a', { scopes: ['agents.run'] }));
  // Another tab, with its own token for A, remembers it on this device.
  anotherTabWrites('mac.token.a', 'sandbox-global-3f9c2a7d41e8b605');
  anotherTabWrites('mac.stated.a', { scopes: ['custommetadata:global_scope'], outcomes: {} });
  expect(seen.connection!.token).toBe(DEMO.agents);
  expect(seen.profiles!.active.remember).toBe(false);
  act(() => seen.connection!.recordOutcome('sales', 'ok'));
  expect(JSON.parse(localStorage.getItem('mac.stated.a')!)).toEqual({ scopes: ['custommetadata:global_scope'], outcomes: {} });
  cleanup();
  const reloaded = renderProvider().seen.connection!;
  expect([reloaded.token, reloaded.scopes]).toEqual([DEMO.agents, ['agents.run']]);
  // A new tab opens with what the device remembers.
  cleanup();
  sessionStorage.clear();
  const fresh = renderProvider().seen;
  expect([fresh.connection!.token, fresh.connection!.scopes, fresh.profiles!.active.remember]).toEqual(['sandbox-global-3f9c2a7d41e8b605', ['custommetadata:global_scope'], true]);
});

it('a tab using the token remembered on this device keeps it for itself when another tab forgets it or remembers another', () => {
  freshBrowser(DEMO.agents, PROFILES);
  sessionStorage.clear();
  localStorage.setItem('mac.token.a', JSON.stringify(DEMO.agents));
  localStorage.setItem('mac.stated.a', JSON.stringify({ scopes: ['agents.run'], outcomes: {} }));
  const { seen } = renderProvider();
  expect([seen.connection!.token, seen.profiles!.active.remember]).toEqual([DEMO.agents, true]);
  // Another tab unticks Remember: the device forgets the token.
  anotherTabWrites('mac.token.a', undefined);
  anotherTabWrites('mac.stated.a', undefined);
  expect([seen.connection!.token, seen.connection!.scopes, seen.profiles!.active.remember]).toEqual([DEMO.agents, ['agents.run'], false]);
  expect(JSON.parse(sessionStorage.getItem('mac.token.a')!)).toBe(DEMO.agents);
  cleanup();
  expect(renderProvider().seen.connection!.token).toBe(DEMO.agents);
});

it('a profile moved to another server in another tab: its field shows where, old answers go, and this tab is told', () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen } = renderProvider();
  act(() => seen.connection!.recordOutcome('hr', 'refused'));
  anotherTabWrites('mac.profile.a', { id: 'a', label: 'Profile A', mode: 'direct', target: 'https://one.example' });
  expect(seen.connection!.baseUrl).toBe('https://one.example');
  expect(seen.connection!.outcomes).toEqual({});
  expect(seen.profiles!.notice?.text).toBe('“Profile A” now connects to https://one.example: changed in another tab.');
});

it('this tab’s profile deleted in another tab: it is told, and has its token and scopes again after that tab’s Undo', () => {
  freshBrowser(DEMO.agents, PROFILES);
  sessionStorage.setItem('mac.token.a', JSON.stringify(DEMO.agents));
  const { seen } = renderProvider();
  act(() => seen.profiles!.update('a', { scopes: ['agents.run'] }));
  anotherTabWrites('mac.profile.a', undefined);
  anotherTabWrites('mac.profileOrder', ['b']);
  expect(seen.connection!.profileId).toBe('b');
  expect(seen.profiles!.notice?.text).toBe('“Profile A” was deleted in another tab; this tab now uses “Profile B”.');
  // The other tab's Undo.
  anotherTabWrites('mac.profile.a', { id: 'a', label: 'Profile A', mode: 'same-origin', target: '' });
  anotherTabWrites('mac.profileOrder', ['a', 'b']);
  act(() => seen.profiles!.activate('a'));
  expect([seen.connection!.token, seen.connection!.scopes]).toEqual([DEMO.agents, ['agents.run']]);
});

it('profiles saved by the previous version: every tab keeps their scopes, and the profile chosen last', () => {
  freshBrowser(DEMO.agents, { ...PROFILES, activeId: 'b', profiles: PROFILES.profiles.map((p) => ({ ...p, scopes: [`custommetadata:${p.id}`], outcomes: { sales: 'ok' } })) });
  const first = renderProvider().seen;
  expect([first.connection!.profileId, first.connection!.scopes]).toEqual(['b', ['custommetadata:b']]);
  expect(order()).toEqual(['a', 'b']);
  cleanup();
  // A second tab, with a token of its own.
  sessionStorage.clear();
  sessionStorage.setItem('mac.token.a', JSON.stringify(DEMO.agents));
  const second = renderProvider().seen;
  expect(second.connection!.profileId).toBe('b');
  act(() => second.profiles!.activate('a'));
  expect(second.connection!.scopes).toEqual(['custommetadata:a']);
});

it('a deleted profile takes what was said of its token with it; Undo brings it back', () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen } = renderProvider();
  act(() => seen.profiles!.update('b', { scopes: ['agents.run'] }));
  const b = seen.profiles!.state.profiles[1]!;
  act(() => seen.profiles!.remove('b'));
  expect(sessionStorage.getItem('mac.stated.b')).toBeNull();
  expect(localStorage.getItem('mac.profile.b')).toBeNull();
  expect(order()).toEqual(['a']);
  act(() => seen.profiles!.restore(b, undefined, 1, false));
  expect(JSON.parse(sessionStorage.getItem('mac.stated.b')!)).toEqual({ scopes: ['agents.run'], outcomes: {} });
  expect(order()).toEqual(['a', 'b']);
});

/** The event of a write another tab made before this tab's own newer one: storage holds this tab's. */
function lateEvent(key: string, newValue: unknown) {
  act(() => window.dispatchEvent(new StorageEvent('storage', { key, oldValue: null, newValue: newValue === null ? null : JSON.stringify(newValue), storageArea: localStorage })));
}
/** Past the moment a tab reads storage again after another tab's write. */
const settled = () => act(() => new Promise((resolve) => setTimeout(resolve, 400)));

it('two tabs rename one profile at once: this tab ends showing what storage holds, though the other’s event came last', async () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen } = renderProvider();
  act(() => seen.profiles!.update('a', { label: 'Renamed here' }));
  lateEvent('mac.profile.a', { id: 'a', label: 'Renamed there', mode: 'same-origin', target: '' });
  await settled();
  expect(record('a').label).toBe('Renamed here');
  expect(seen.connection!.profileLabel).toBe('Renamed here');
});

it('a profile deleted in another tab while this tab renamed it is kept here as storage keeps it: nothing is lost', async () => {
  freshBrowser(DEMO.agents, PROFILES);
  const { seen } = renderProvider();
  act(() => seen.profiles!.update('b', { label: 'B renamed here' }));
  lateEvent('mac.profile.b', null);
  await settled();
  expect(record('b').label).toBe('B renamed here');
  expect(seen.profiles!.state.profiles.map((p) => p.label)).toEqual(['Profile A', 'B renamed here']);
});

it('another tab’s Undo puts its profile back first: this tab follows that order and writes none of its own', async () => {
  freshBrowser(DEMO.agents, { ...PROFILES, profiles: [...PROFILES.profiles, { ...PROFILES.profiles[1]!, id: 'c', label: 'Profile C' }] });
  const { seen } = renderProvider();
  anotherTabWrites('mac.profile.a', undefined);
  anotherTabWrites('mac.profileOrder', ['b', 'c']);
  const writes = await localWritesDuring(async () => {
    // Undo there: the record, then the order.
    anotherTabWrites('mac.profile.a', { id: 'a', label: 'Profile A', mode: 'same-origin', target: '' });
    anotherTabWrites('mac.profileOrder', ['a', 'b', 'c']);
    await settled();
  });
  expect(writes).toEqual(['mac.profile.a', 'mac.profileOrder']);
  expect(seen.profiles!.state.profiles.map((p) => p.label)).toEqual(['Profile A', 'Profile B', 'Profile C']);
});

it('a remembered token’s scopes typed in another tab are taken in here without being written back', async () => {
  freshBrowser(DEMO.agents, PROFILES);
  sessionStorage.clear();
  localStorage.setItem('mac.token.a', JSON.stringify(DEMO.agents));
  localStorage.setItem('mac.stated.a', JSON.stringify({ scopes: [], outcomes: {} }));
  const { seen } = renderProvider();
  const writes = await localWritesDuring(async () => {
    for (const typed of ['agents.r', 'agents.ru', 'agents.run']) anotherTabWrites('mac.stated.a', { scopes: [typed], outcomes: {} });
    await settled();
  });
  expect(writes).toEqual(['mac.stated.a', 'mac.stated.a', 'mac.stated.a']);
  expect(seen.connection!.scopes).toEqual(['agents.run']);
});

it('a tab with no token of its own takes up a token another tab remembers on this device, now and after a reload', () => {
  freshBrowser(DEMO.agents, PROFILES);
  sessionStorage.clear();
  const { seen } = renderProvider();
  expect(seen.connection!.token).toBeUndefined();
  expect(sessionStorage.getItem('mac.stated.a')).toBeNull();
  anotherTabWrites('mac.token.a', DEMO.agents);
  anotherTabWrites('mac.stated.a', { scopes: ['agents.run'], outcomes: {} });
  cleanup();
  const reloaded = renderProvider().seen;
  expect([reloaded.connection!.token, reloaded.connection!.scopes, reloaded.profiles!.active.remember]).toEqual([DEMO.agents, ['agents.run'], true]);
});
