/**
 * The servers a run refused for unauthorized tools names, against the reference service the
 * browser project serves: each server's status for this token, Authorize asking for a consent
 * link back to this very page, Check again after the consent, Run again once they are all
 * authorized. The consent itself is posted as the consent page's form would post it.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { StrictMode, useState } from 'react';
import { afterEach, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/api-client';
import { ConnectionContext, fingerprintOf, type ActiveConnection } from '../../../lib/connection';
import { mintAgentsToken } from '../../../test-support/reference-service';
import { slowNetwork } from '../../../test-support/slow-network';
import { ToolAuthorization } from './tool-authorization';

afterEach(() => cleanup());

function connectionWith(token: string): ActiveConnection {
  return {
    baseUrl: '',
    token,
    profileId: 'test',
    profileLabel: 'Test',
    mode: 'same-origin',
    target: '',
    scopes: [],
    fingerprint: fingerprintOf(token),
    displayBaseUrl: window.location.origin,
    outcomes: {},
    recordOutcome: () => undefined,
    screenShare: false,
  };
}

/** A 422 as the platform API answers it, naming these servers. */
function refusal(servers: { tool_name?: string; server_id: string }[]): ApiError {
  const body = { type: 'https://developers.glean.com/errors/tools-unauthorized', title: 'Tools Unauthorized', status: 422, detail: 'Agent calendar-helper uses tools you have not authorized.', code: 'tools_unauthorized', request_id: 'req_1', authentication_suggestions: servers };
  return new ApiError('http', 422, body.title, body.detail, body, undefined, body.code, body.request_id);
}

function renderPanel(token: string, error: ApiError, props: { onRunAgain?: () => void; openConsent?: (href: string) => void } = {}) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <StrictMode>
      <QueryClientProvider client={client}>
        <ConnectionContext.Provider value={connectionWith(token)}>
          <ToolAuthorization error={error} {...props} />
        </ConnectionContext.Provider>
      </QueryClientProvider>
    </StrictMode>,
  );
}

/** What the consent page's Allow or Deny posts, from this same origin. */
async function decide(authorizationUrl: string, decision: 'allow' | 'deny') {
  const state = new URL(authorizationUrl).searchParams.get('state')!;
  const res = await fetch('/sandbox/oauth/consent', { method: 'POST', body: new URLSearchParams({ state, decision }), redirect: 'manual' });
  expect(res.type).toBe('opaqueredirect');
}

it('reads each server’s status for this token; Authorize asks for a link back to this page; after the consent, Check again and Run again', async () => {
  const user = userEvent.setup();
  const token = await mintAgentsToken();
  const openConsent = vi.fn<(href: string) => void>();
  const onRunAgain = vi.fn();
  renderPanel(token, refusal([{ tool_name: 'Google Calendar', server_id: 'srv_gcal_01' }]), { openConsent, onRunAgain });

  const row = await screen.findByRole('listitem', { name: 'Google Calendar' });
  expect(await within(row).findByText('Awaiting your authorization')).toBeTruthy();
  expect(row.textContent).toContain('OAuth: each user consents');
  expect(screen.getByText('0 of 1 authorized: run again now and the instance refuses it again.')).toBeTruthy();

  await user.click(within(row).getByRole('button', { name: 'Authorize Google Calendar' }));
  await vi.waitFor(() => expect(openConsent).toHaveBeenCalledTimes(1));
  const consentUrl = openConsent.mock.calls[0]![0];
  expect(consentUrl.startsWith(`${window.location.origin}/sandbox/oauth/consent?state=st_`)).toBe(true);
  expect(consentUrl).not.toContain(token);
  // The consent page knows where to come back to: this page's address.
  const page = await (await fetch(consentUrl)).text();
  expect(page).toContain(`<dd><code>${window.location.href.replace(/&/g, '&amp;')}</code></dd>`);

  await decide(consentUrl, 'allow');
  await user.click(screen.getByRole('button', { name: 'Check again' }));
  expect(await within(row).findByText('Authorized')).toBeTruthy();
  expect(within(row).queryByRole('button', { name: /^Authorize/ })).toBeNull();
  expect(screen.getByText('Every tool server is authorized: Run again sends the same request once more.')).toBeTruthy();
  const runAgain = screen.getByRole('button', { name: 'Run again' });
  expect(runAgain.className).toBe('primary');
  await user.click(runAgain);
  expect(onRunAgain).toHaveBeenCalledTimes(1);
});

it('a server the instance does not know is said to be unknown (404), with nothing to authorize; the others keep their Authorize', async () => {
  const token = await mintAgentsToken();
  renderPanel(token, refusal([{ tool_name: 'Google Calendar', server_id: 'srv_gcal_01' }, { tool_name: 'Retired', server_id: 'srv_retired_9' }]));
  const unknown = await screen.findByRole('listitem', { name: 'Retired' });
  expect(await within(unknown).findByText('Unknown to this instance (404)')).toBeTruthy();
  expect(unknown.textContent).toContain('No tool server "srv_retired_9" on this service.');
  expect(within(unknown).queryByRole('button', { name: /^Authorize/ })).toBeNull();
  const known = screen.getByRole('listitem', { name: 'Google Calendar' });
  expect(await within(known).findByRole('button', { name: 'Authorize Google Calendar' })).toBeTruthy();
  expect(screen.getByText('0 of 2 authorized.')).toBeTruthy();
});

it('a status answer carries the spec lens’s verdict against the official client’s model', async () => {
  const user = userEvent.setup();
  renderPanel(await mintAgentsToken(), refusal([{ server_id: 'srv_outlook_02' }]));
  const row = await screen.findByRole('listitem', { name: 'Outlook Mail' });
  await within(row).findByText('Awaiting your authorization');
  await user.click(within(row).getByText('Status answer'));
  expect(await within(row).findByText('matches the official client’s model', {}, { timeout: 20_000 })).toBeTruthy();
});

it('a denied consent leaves the server awaiting authorization, and one token’s consent is not another’s', async () => {
  const user = userEvent.setup();
  const [token, other] = [await mintAgentsToken(), await mintAgentsToken()];
  const openConsent = vi.fn<(href: string) => void>();
  renderPanel(token, refusal([{ server_id: 'srv_gcal_01' }]), { openConsent });
  await user.click(await screen.findByRole('button', { name: 'Authorize Google Calendar' }));
  await vi.waitFor(() => expect(openConsent).toHaveBeenCalledTimes(1));
  await decide(openConsent.mock.calls[0]![0], 'deny');
  await user.click(screen.getByRole('button', { name: 'Check again' }));
  await vi.waitFor(() => expect(screen.getByRole('button', { name: 'Check again' }).textContent).toBe('Check again'));
  expect(within(screen.getByRole('listitem', { name: 'Google Calendar' })).getByText('Awaiting your authorization')).toBeTruthy();
  cleanup();

  // Allowed for the first token, still awaiting for the second.
  await fetch('/rest/api/v1/tool-servers/srv_gcal_01/auth', { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ returnUrl: window.location.href }) })
    .then((r) => r.json() as Promise<{ authorizationUrl: string }>)
    .then(({ authorizationUrl }) => decide(authorizationUrl, 'allow'));
  renderPanel(other, refusal([{ server_id: 'srv_gcal_01' }]));
  expect(await within(await screen.findByRole('listitem', { name: 'Google Calendar' })).findByText('Awaiting your authorization')).toBeTruthy();
});

it('an Authorize still asking for its link when the user switches profile neither sends the tab to that consent page nor shows its outcome on the new profile’s servers', async () => {
  const user = userEvent.setup();
  const [token, other] = [await mintAgentsToken(), await mintAgentsToken()];
  const openConsent = vi.fn<(href: string) => void>();
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const net = slowNetwork({ match: (url, method) => method === 'POST' && url.includes('/tool-servers/'), answer: async () => void (await held) });
  try {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    let switchTo!: (c: ActiveConnection) => void;
    function Switchable() {
      const [connection, setConnection] = useState(() => connectionWith(token));
      switchTo = setConnection;
      return (
        <ConnectionContext.Provider value={connection}>
          <ToolAuthorization error={refusal([{ server_id: 'srv_gcal_01' }])} openConsent={openConsent} />
        </ConnectionContext.Provider>
      );
    }
    render(
      <StrictMode>
        <QueryClientProvider client={client}>
          <Switchable />
        </QueryClientProvider>
      </StrictMode>,
    );
    await user.click(await screen.findByRole('button', { name: 'Authorize Google Calendar' }));
    expect(await screen.findByRole('button', { name: 'Authorize Google Calendar' })).toHaveProperty('textContent', 'Asking for the consent link…');

    act(() => switchTo({ ...connectionWith(other), profileId: 'other', profileLabel: 'Other' }));
    const row = await screen.findByRole('listitem', { name: 'Google Calendar' });
    expect(await within(row).findByText('Awaiting your authorization')).toBeTruthy();
    // The other profile's server is not the one being asked about.
    const button = within(row).getByRole<HTMLButtonElement>('button', { name: 'Authorize Google Calendar' });
    expect(button.textContent).toBe('Authorize');
    expect(button.disabled).toBe(false);

    release();
    await vi.waitFor(() => expect(client.getMutationCache().getAll().map((m) => m.state.status)).toEqual(['error']));
    // Back on the profile that asked: its Authorize says what became of it; the tab never left.
    act(() => switchTo(connectionWith(token)));
    const back = await screen.findByRole('listitem', { name: 'Google Calendar' });
    expect((await within(back).findByRole('alert')).textContent).toContain('The consent link came after you switched profile, so this tab stayed here. Authorize again to open it for Test.');
    expect(openConsent).not.toHaveBeenCalled();
    expect(screen.queryByText('Opening the consent page…')).toBeNull();
    expect(within(back).getByRole<HTMLButtonElement>('button', { name: 'Authorize Google Calendar' }).disabled).toBe(false);
  } finally {
    net.restore();
  }
});
