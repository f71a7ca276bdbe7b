/**
 * Agent tools and tool-server authorization (docs/api.md, agent tools): `include_tools` on the
 * schema read, the three tool-server operations per token, the sandbox's consent page with
 * Allow and Deny and its return to `returnUrl`, authorizations that outlive a restart, and
 * calendar-helper's runs accepted once its servers are authorized.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, test } from 'vitest';
import { AgentCatalog } from './agents.ts';
import { assembleService, createService, type Service, type ServiceOptions } from './app.ts';
import { CONSENT_TTL_MS, ToolAuthorizations } from './tool-auth.ts';
import { Store, newTokenString } from './store.ts';
import { seedIfEmpty } from './seed.ts';
import { call, expectLegacyError, expectProblem, freshService, TOKENS, type Answer } from './test-http.ts';
import { MAX_RETURN_URL_CHARS } from './routes/tool-servers.ts';

const open: Service[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** In process nothing listens: the service is told what `listen` on 127.0.0.1:80 would tell it. */
function asIfListening(s: Service): Service {
  s.ownOrigins.listening('127.0.0.1', 80);
  return s;
}

function service(options?: ServiceOptions): Service {
  const s = asIfListening(freshService(options ?? { memory: true, rateLimitPerMinute: 0 }));
  open.push(s);
  return s;
}

/** A token of its own for each test: authorizations are per token, and the demo tokens are shared. */
function mint(s: Service, scopes = ['agents.run'], label = 'tool-auth test'): string {
  const token = newTokenString();
  s.store.addToken(token, { label, scopes });
  return token;
}

/** Requests in process go to http://localhost, one of the service's own origins (it "listens" on 127.0.0.1:80). */
const OWN = 'http://localhost';
const OWN_ORIGINS = 'http://127.0.0.1, http://localhost';
const RETURN = `${OWN}/runs/calendar-helper/thread/thread_1?keep=1#turn`;
const HI = [{ role: 'USER', content: [{ type: 'text', text: 'When am I free?' }] }];

const status = (s: Service, token: string, server: string) => call(s, 'GET', `/rest/api/v1/tool-servers/${server}/auth`, { token });
const authorize = (s: Service, token: string, server: string, body: unknown = { returnUrl: RETURN }) =>
  call(s, 'POST', `/rest/api/v1/tool-servers/${server}/auth`, { token, body });

/** The state id of an authorizationUrl, after checking the URL is the service's own consent page. */
function stateOf(a: Answer): string {
  expect(a.status, a.text).toBe(200);
  const url = new URL((a.json as { authorizationUrl: string }).authorizationUrl);
  expect(`${url.origin}${url.pathname}`).toBe(`${OWN}/sandbox/oauth/consent`);
  expect([...url.searchParams.keys()]).toEqual(['state']);
  return url.searchParams.get('state')!;
}

/** The consent page's form, as a browser posts it from the page itself. */
function decide(s: Service, state: string, decision: string, headers: Record<string, string> = { 'sec-fetch-site': 'same-origin', origin: OWN }) {
  return s.app.request('/sandbox/oauth/consent', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ state, decision }).toString(),
    redirect: 'manual',
  });
}

async function consent(s: Service, token: string, server: string, decision: 'allow' | 'deny' = 'allow'): Promise<URL> {
  const res = await decide(s, stateOf(await authorize(s, token, server)), decision);
  expect(res.status).toBe(303);
  return new URL(res.headers.get('location')!);
}

const run = (s: Service, token: string, body: Record<string, unknown> = { messages: HI, stream: false }) =>
  call(s, 'POST', '/api/agents/calendar-helper/runs', { token, body });

describe('include_tools on the schema read', () => {
  it('lists the tools of the agents that use them when asked, and leaves tools out otherwise', async () => {
    const s = service();
    for (const [agent, ids] of [
      ['calendar-helper', ['gcal.list_events', 'gcal.find_free_time', 'outlook.search_mail']],
      ['expense-filer', ['finance.read_receipts', 'finance.submit_expense_report']],
      ['trip-planner', ['travel.search_trips', 'travel.book_flight', 'travel.book_hotel']],
    ] as const) {
      const asked = await call(s, 'GET', `/api/agents/${agent}/schemas?include_tools=true`, { token: TOKENS.agents });
      expect(asked.status).toBe(200);
      const tools = (asked.json as { tools: { tool_id: string }[] }).tools;
      expect(tools.map((t) => t.tool_id)).toEqual(ids);
      for (const query of ['', '?include_tools=false']) {
        const plain = await call(s, 'GET', `/api/agents/${agent}/schemas${query}`, { token: TOKENS.agents });
        expect(plain.status).toBe(200);
        expect(plain.json).not.toHaveProperty('tools');
      }
    }
    const expense = await call(s, 'GET', '/api/agents/expense-filer/schemas?include_tools=true', { token: TOKENS.agents });
    expect((expense.json as { tools: unknown[] }).tools).toContainEqual({
      tool_id: 'finance.submit_expense_report',
      display_name: 'Submit expense report',
      type: 'ACTION',
      auth_type: 'OAUTH_ADMIN',
      write_action_type: 'EXECUTION',
      is_setup_finished: true,
      data_source: 'NEUTRAL_KNOWLEDGE',
    });
  });

  it('answers an empty list for an agent without tools, and 400 for a value that is not a boolean', async () => {
    const s = service();
    const echo = await call(s, 'GET', '/api/agents/echo-assistant/schemas?include_tools=true', { token: TOKENS.agents });
    expect((echo.json as { tools: unknown[] }).tools).toEqual([]);
    const bad = expectProblem(await call(s, 'GET', '/api/agents/echo-assistant/schemas?include_tools=yes', { token: TOKENS.agents }), 400, 'invalid_parameter');
    expect(bad.detail).toBe('include_tools must be true or false, not "yes".');
  });
});

describe('tool-server authorization status, per token', () => {
  it('is AWAITING_AUTH for a new token, with the server name and auth type', async () => {
    const s = service();
    const a = await status(s, mint(s), 'srv_gcal_01');
    expect(a.status).toBe(200);
    expect(a.json).toEqual({
      displayName: 'Google Calendar',
      description: expect.stringContaining('calendars'),
      authStatus: 'AWAITING_AUTH',
      authType: 'AUTH_USER_OAUTH',
    });
  });

  it('answers an unknown server id with 404 on all three operations, in the client API family', async () => {
    const s = service();
    const token = mint(s);
    expect(expectLegacyError(await status(s, token, 'srv_nope'), 404)).toBe('No tool server "srv_nope" on this service.');
    expectLegacyError(await authorize(s, token, 'srv_nope'), 404);
    expectLegacyError(await call(s, 'GET', '/rest/api/v1/tool-servers/srv_nope/tools?toolNames=x', { token }), 404);
  });

  it('needs a known token with agents.run, like the agent endpoints', async () => {
    const s = service();
    expectLegacyError(await call(s, 'GET', '/rest/api/v1/tool-servers/srv_gcal_01/auth'), 401);
    expectLegacyError(await status(s, 'sbx_unknown', 'srv_gcal_01'), 401);
    expectLegacyError(await status(s, TOKENS.sales, 'srv_gcal_01'), 403);
  });
});

describe('authorize: the consent link and its returnUrl', () => {
  it('answers a link to the service’s own consent page that carries a one-time state, never the token', async () => {
    const s = service();
    const token = mint(s);
    const a = await authorize(s, token, 'srv_gcal_01');
    const url = (a.json as { authorizationUrl: string }).authorizationUrl;
    expect(url).not.toContain(token);
    expect(stateOf(a)).toMatch(/^st_[\w-]{32}$/);
    // Each request a state of its own.
    expect(stateOf(await authorize(s, token, 'srv_gcal_01'))).not.toBe(stateOf(a));
  });

  it.each([
    ['another origin', { returnUrl: 'https://evil.example/runs' }, `returnUrl is on https://evil.example, which is not an allowed return URL: this service returns only to ${OWN_ORIGINS}. Start it with --allowed-return-origin <origin> to allow another console.`],
    ['the same host on another port', { returnUrl: 'http://localhost:8080/runs' }, 'returnUrl is on http://localhost:8080, which is not an allowed return URL'],
    ['a relative address', { returnUrl: '/runs' }, 'returnUrl "/runs" is not an absolute URL.'],
    ['a script address', { returnUrl: 'javascript:alert(1)' }, 'returnUrl must be an http or https address, not javascript:.'],
    ['credentials', { returnUrl: 'http://user:pw@localhost/runs' }, 'returnUrl must not carry credentials.'],
    ['no returnUrl', {}, 'returnUrl is required'],
    ['a number', { returnUrl: 5 }, 'returnUrl is required'],
    ['an address too long', { returnUrl: `${OWN}/${'a'.repeat(MAX_RETURN_URL_CHARS)}` }, `returnUrl is longer than ${MAX_RETURN_URL_CHARS} characters.`],
    ['an unknown field', { returnUrl: RETURN, scope: 'all' }, 'Unknown field(s): scope. Allowed: returnUrl.'],
  ])('refuses %s with 400 and says why', async (_, body, text) => {
    const s = service();
    expect(expectLegacyError(await authorize(s, mint(s), 'srv_gcal_01', body), 400)).toContain(text);
  });

  it('refuses a body that is not JSON', async () => {
    const s = service();
    const a = await call(s, 'POST', '/rest/api/v1/tool-servers/srv_gcal_01/auth', { token: mint(s), body: 'returnUrl=x', contentType: 'application/x-www-form-urlencoded' });
    expectLegacyError(a, 415);
  });

  it('returns to an origin given with --allowed-return-origin, and to no other', async () => {
    const s = service({ memory: true, rateLimitPerMinute: 0, allowedReturnOrigins: ['http://127.0.0.1:4831'] });
    const token = mint(s);
    expect((await authorize(s, token, 'srv_gcal_01', { returnUrl: 'http://127.0.0.1:4831/runs/calendar-helper' })).status).toBe(200);
    expect(expectLegacyError(await authorize(s, token, 'srv_gcal_01', { returnUrl: 'http://127.0.0.1:4832/runs' }), 400)).toContain(
      `this service returns only to ${OWN_ORIGINS}, http://127.0.0.1:4831.`,
    );
  });
});

describe('the consent page', () => {
  it('shows the server, the token’s label and where it returns, with Allow and Deny, under a policy of its own', async () => {
    const s = service();
    const token = mint(s, ['agents.run'], 'My laptop');
    const state = stateOf(await authorize(s, token, 'srv_gcal_01', { returnUrl: 'http://localhost/runs/calendar-helper' }));
    const res = await s.app.request(`/sandbox/oauth/consent?state=${state}`, { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toBe("default-src 'none'; style-src 'self'; form-action 'self' http://localhost; frame-ancestors 'none'; base-uri 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    // Its own form's POST carries its origin; nothing of its address goes anywhere else.
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    const html = await res.text();
    expect(html).toContain('<h1>Allow access to Google Calendar?</h1>');
    expect(html).toContain('<dd>My laptop</dd>');
    expect(html).toContain('<dd>List calendar events, Find free time</dd>');
    expect(html).toContain('<dd><code>http://localhost/runs/calendar-helper</code></dd>');
    expect(html).toContain('<button type="submit" name="decision" value="allow">Allow</button>');
    expect(html).toContain('<button type="submit" name="decision" value="deny">Deny</button>');
    expect(html).not.toContain(token);
    expect(html).not.toMatch(/<script|style=/);
    const css = await s.app.request('/sandbox/oauth/consent.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('escapes what it shows', async () => {
    const s = service();
    const token = mint(s, ['agents.run'], '<img src=x onerror=alert(1)>');
    const state = stateOf(await authorize(s, token, 'srv_gcal_01', { returnUrl: 'http://localhost/runs?q="<b>"' }));
    const html = await (await s.app.request(`/sandbox/oauth/consent?state=${state}`)).text();
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
  });

  it('says a link that was never issued no longer works, with 400', async () => {
    const s = service();
    for (const query of ['', '?state=', '?state=st_made_up']) {
      const res = await s.app.request(`/sandbox/oauth/consent${query}`);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('<h1>This consent link no longer works</h1>');
    }
  });

  it('Allow authorizes that server for that token only, and returns to returnUrl with the result in its query', async () => {
    const s = service();
    const [first, second] = [mint(s), mint(s)];
    const back = await consent(s, first, 'srv_gcal_01');
    expect(back.href).toBe(`${OWN}/runs/calendar-helper/thread/thread_1?keep=1&glean_tool_auth=success&serverId=srv_gcal_01#turn`);
    expect(((await status(s, first, 'srv_gcal_01')).json as { authStatus: string }).authStatus).toBe('AUTHORIZED');
    expect(((await status(s, first, 'srv_outlook_02')).json as { authStatus: string }).authStatus).toBe('AWAITING_AUTH');
    expect(((await status(s, second, 'srv_gcal_01')).json as { authStatus: string }).authStatus).toBe('AWAITING_AUTH');
  });

  it('Deny changes nothing and returns with error=access_denied', async () => {
    const s = service();
    const token = mint(s);
    const back = await consent(s, token, 'srv_gcal_01', 'deny');
    expect(Object.fromEntries(back.searchParams)).toEqual({ keep: '1', glean_tool_auth: 'error', serverId: 'srv_gcal_01', error: 'access_denied' });
    expect(((await status(s, token, 'srv_gcal_01')).json as { authStatus: string }).authStatus).toBe('AWAITING_AUTH');
  });

  it('takes one decision per link: the second is refused, the first stands', async () => {
    const s = service();
    const token = mint(s);
    const state = stateOf(await authorize(s, token, 'srv_gcal_01'));
    expect((await decide(s, state, 'deny')).status).toBe(303);
    const again = await decide(s, state, 'allow');
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('This consent link no longer works');
    expect(((await status(s, token, 'srv_gcal_01')).json as { authStatus: string }).authStatus).toBe('AWAITING_AUTH');
    expect((await s.app.request(`/sandbox/oauth/consent?state=${state}`)).status).toBe(400);
  });

  it.each([
    ['from another site', { 'sec-fetch-site': 'cross-site' }],
    ['from a sibling site', { 'sec-fetch-site': 'same-site' }],
    ['with another Origin', { origin: 'https://evil.example' }],
    ['from an opaque origin (a sandboxed frame, a data: page)', { origin: 'null' }],
    ['from an opaque origin of another site', { origin: 'null', 'sec-fetch-site': 'cross-site' }],
  ])('refuses a decision posted %s with 403, and the link still works', async (_, headers) => {
    const s = service();
    const token = mint(s);
    const state = stateOf(await authorize(s, token, 'srv_gcal_01'));
    expect((await decide(s, state, 'allow', headers)).status).toBe(403);
    expect(((await status(s, token, 'srv_gcal_01')).json as { authStatus: string }).authStatus).toBe('AWAITING_AUTH');
    expect((await decide(s, state, 'allow')).status).toBe(303);
  });

  it('takes a decision posted with Origin: null when the browser says it came from the page itself', async () => {
    const s = service();
    const state = stateOf(await authorize(s, mint(s), 'srv_gcal_01'));
    expect((await decide(s, state, 'allow', { origin: 'null', 'sec-fetch-site': 'same-origin' })).status).toBe(303);
  });

  it('refuses a decision that is neither allow nor deny, or not sent as a form', async () => {
    const s = service();
    const state = stateOf(await authorize(s, mint(s), 'srv_gcal_01'));
    expect((await decide(s, state, 'maybe')).status).toBe(400);
    const json = await s.app.request('/sandbox/oauth/consent', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ state, decision: 'allow' }) });
    expect(json.status).toBe(415);
  });
});

describe('a consent link’s life', () => {
  it('ends after ten minutes', () => {
    const store = new Store({ memory: true });
    let now = 1_000_000;
    const auth = new ToolAuthorizations(store.database, () => now);
    const state = auth.begin('ab'.repeat(32), 'srv_gcal_01', RETURN);
    now += CONSENT_TTL_MS - 1;
    expect(auth.pending(state)?.serverId).toBe('srv_gcal_01');
    now += 1;
    expect(auth.pending(state)).toBeUndefined();
    expect(auth.decide(state, true)).toBeUndefined();
    expect(auth.isAuthorized('ab'.repeat(32), 'srv_gcal_01')).toBe(false);
    store.close();
  });
});

describe('calendar-helper once its servers are authorized', () => {
  it('names only the servers the token has not authorized, then runs, on both APIs and durably; another token is still refused', async () => {
    const s = service();
    const [token, other] = [mint(s), mint(s)];
    const before = expectProblem(await run(s, token), 422, 'tools_unauthorized');
    expect(before.authentication_suggestions).toEqual([
      { tool_name: 'Google Calendar', server_id: 'srv_gcal_01' },
      { tool_name: 'Outlook Mail', server_id: 'srv_outlook_02' },
    ]);
    await consent(s, token, 'srv_gcal_01');
    expect(expectProblem(await run(s, token), 422, 'tools_unauthorized').authentication_suggestions).toEqual([{ tool_name: 'Outlook Mail', server_id: 'srv_outlook_02' }]);
    await consent(s, token, 'srv_outlook_02');

    const waited = await run(s, token);
    expect(waited.status).toBe(200);
    expect(JSON.stringify(waited.json)).toContain('When am I free?');
    const legacy = await call(s, 'POST', '/rest/api/v1/agents/runs/wait', { token, body: { agent_id: 'calendar-helper', messages: HI } });
    expect(legacy.status).toBe(200);
    expect((await run(s, token, { messages: HI, execution_mode: 'DURABLE' })).status).toBe(201);

    expectProblem(await run(s, other), 422, 'tools_unauthorized');
    const legacyOther = await call(s, 'POST', '/rest/api/v1/agents/runs/wait', { token: other, body: { agent_id: 'calendar-helper', messages: HI } });
    expect(legacyOther.status).toBe(422);
    expect((legacyOther.json as { authenticationSuggestions: { serverId: string }[] }).authenticationSuggestions.map((t) => t.serverId)).toEqual(['srv_gcal_01', 'srv_outlook_02']);
  });
});

describe('getToolServerTools', () => {
  const tools = (s: Service, token: string, query: string) => call(s, 'GET', `/rest/api/v1/tool-servers/srv_gcal_01/tools${query}`, { token });

  it('describes the named tools, matching names ignoring case and - against _, and lists the names it does not know', async () => {
    const s = service();
    const a = await tools(s, mint(s), '?toolNames=LIST-EVENTS,nope,find_free_time');
    expect(a.status).toBe(200);
    const body = a.json as { tools: { serverId: string; name: string; inputSchema: unknown; annotations: unknown }[]; notFound: string[] };
    expect(body.tools.map((t) => [t.serverId, t.name])).toEqual([
      ['srv_gcal_01', 'list_events'],
      ['srv_gcal_01', 'find_free_time'],
    ]);
    expect(body.tools[0]!.annotations).toMatchObject({ readOnlyHint: true });
    expect(body.tools[0]!.inputSchema).toMatchObject({ type: 'object', required: ['start', 'end'] });
    expect(body.notFound).toEqual(['nope']);
    // Repeated parameters too; no notFound when every name is known.
    expect((await tools(s, mint(s), '?toolNames=list_events&toolNames=find_free_time')).json).not.toHaveProperty('notFound');
  });

  it('needs toolNames, at most 100 of them', async () => {
    const s = service();
    const token = mint(s);
    expect(expectLegacyError(await tools(s, token, ''), 400)).toContain('toolNames is required');
    expect(expectLegacyError(await tools(s, token, '?toolNames=,,'), 400)).toContain('toolNames is required');
    const many = Array.from({ length: 101 }, (_, i) => `t${i}`).join(',');
    expect(expectLegacyError(await tools(s, token, `?toolNames=${many}`), 400)).toBe('toolNames names 101 tools; at most 100 may be asked for at once.');
  });
});

describe('authorizations are kept in SQLite', () => {
  it('survive a restart on the same data directory, and so does a consent link not yet answered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tool-auth-'));
    dirs.push(dir);
    const first = asIfListening(createService({ dataDir: dir, rateLimitPerMinute: 0 }));
    const token = mint(first);
    await consent(first, token, 'srv_gcal_01');
    const pending = stateOf(await authorize(first, token, 'srv_outlook_02'));
    first.close();

    const second = asIfListening(createService({ dataDir: dir, rateLimitPerMinute: 0 }));
    open.push(second);
    expect(((await status(second, token, 'srv_gcal_01')).json as { authStatus: string }).authStatus).toBe('AUTHORIZED');
    expect((await decide(second, pending, 'allow')).status).toBe(303);
    expect((await run(second, token)).status).toBe(200);
  });
});

test('a server an agents file names only in unauthorizedTools asks for consent; one with AUTH_NONE or AUTH_ADMIN needs none', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tool-agents-'));
  dirs.push(dir);
  const file = join(dir, 'agents.json');
  const agent = (id: string, servers: string[]) => ({
    agent_id: id,
    name: id,
    capabilities: { 'ap.io.messages': true },
    input_schema: { type: 'object', properties: {} },
    behaviour: { text: 'ok', unauthorizedTools: servers.map((serverId) => ({ serverId })) },
  });
  writeFileSync(
    file,
    JSON.stringify({
      tool_servers: [
        { server_id: 'open', display_name: 'Open', auth_type: 'AUTH_NONE', tools: [] },
        { server_id: 'admin', display_name: 'Admin', auth_type: 'AUTH_ADMIN', tools: [] },
      ],
      agents: [agent('free', ['open', 'admin']), agent('bound', ['legacy_srv'])],
    }),
  );
  const store = new Store({ memory: true });
  seedIfEmpty(store);
  const catalog = new AgentCatalog(file);
  const options = { memory: true, rateLimitPerMinute: 0 };
  const s: Service = assembleService(store, catalog, options);
  open.push(s);
  const body = { messages: HI, stream: false };
  expect((await call(s, 'POST', '/api/agents/free/runs', { token: TOKENS.agents, body })).status).toBe(200);
  expect(((await status(s, TOKENS.agents, 'admin')).json as { authStatus: string }).authStatus).toBe('AUTHORIZED');
  expectProblem(await call(s, 'POST', '/api/agents/bound/runs', { token: TOKENS.agents, body }), 422, 'tools_unauthorized');
  expect((await status(s, TOKENS.agents, 'legacy_srv')).json).toEqual({ displayName: 'legacy_srv', authStatus: 'AWAITING_AUTH', authType: 'AUTH_USER_OAUTH' });
});
