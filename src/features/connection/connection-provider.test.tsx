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
