/**
 * Issue 25: a run refused because its agent's tools are not authorized, taken to its end in
 * the browser: 422 → Authorize → the instance's consent page → back to the same run, its input
 * intact → Run again, accepted (one POST). Deny, another token, the refusals of the tool-server
 * API (an unknown server, a returnUrl elsewhere), and the whole flow through a console server
 * started with `--upstream`, whose consent page is the upstream's own.
 *
 * Each test mints tokens of its own: authorizations are per token and the servers' databases
 * live as long as the test run, so the demo tokens stay unauthorized for the other specs.
 */
import type { APIRequestContext } from '@playwright/test';
import http from 'node:http';
import { expect, test } from './fixtures';
import { settle, watchCsp } from './csp-watch';
import { freePort, startConsoleServer, startReferenceService, type ConsoleServer } from '../scripts/console-server';
import type { ConsentPage } from './pages/consent';
import type { RunsPage } from './pages/runs';

const QUESTION = 'When am I free this week?';

async function mint(request: APIRequestContext, origin = ''): Promise<string> {
  const minted = await request.post(`${origin}/sandbox/tokens`, { data: { scopes: ['agents.run'], label: 'e2e tool auth' } });
  expect(minted.status()).toBe(201);
  return ((await minted.json()) as { token: string }).token;
}

/** Authorize one server from the refusal, answer its consent page, and come back to the same address. */
async function consentTo(runs: RunsPage, consent: ConsentPage, server: string, decision: 'Allow' | 'Deny', instance: string) {
  const runAddress = runs.page.url();
  await runs.authorize(server).click();
  await consent.expectFor(instance, server);
  await (decision === 'Allow' ? consent.allow : consent.deny).click();
  // Back at the very address the run was on; the result read from the query, then taken out of it.
  await expect(runs.consentReturn()).toContainText(decision === 'Allow' ? 'was allowed' : 'was not allowed (access_denied)');
  await expect(runs.page).toHaveURL(runAddress);
}

/** A refused Calendar Helper run from the form, with QUESTION as its message. */
async function refusedRun(runs: RunsPage) {
  await runs.chooseAgent('Calendar Helper');
  await runs.writeMessage(QUESTION);
  await runs.run.click();
  await expect(runs.status).toHaveText('Refused');
  await expect(runs.toolServer('Google Calendar')).toContainText('Awaiting your authorization');
  await expect(runs.toolServer('Outlook Mail')).toContainText('Awaiting your authorization');
  // The conversation's own address: where the consent page sends the browser back to.
  await expect(runs.page).toHaveURL(/\/runs\/calendar-helper\/thread\/thread_\w+$/);
}

test('422 → Authorize → consent → back to the same run, input intact → Run again is accepted; Deny changes nothing; another token is still refused', async ({
  page,
  runs,
  consent,
  connection,
  shell,
  request,
  baseURL,
}) => {
  const violations = await watchCsp(page);
  const [token, other] = [await mint(request), await mint(request)];
  await runs.open();
  await connection.setToken(token);
  await refusedRun(runs);
  await shell.expectNoAxeViolations();

  // Allow one: the consent page is the service's own, says for which token (by its label), and never carries the token.
  await runs.authorize('Google Calendar').click();
  await consent.expectFor(baseURL!, 'Google Calendar');
  expect(page.url()).not.toContain(token);
  await expect(consent.fact('For the token')).toHaveText('e2e tool auth');
  await expect(consent.fact('Then back to')).toHaveText(/\/runs\/calendar-helper\/thread\/thread_\w+$/);
  await consent.allow.click();
  await expect(runs.consentReturn()).toContainText('access to tool server srv_gcal_01 was allowed');
  await expect(page).toHaveURL(/\/runs\/calendar-helper\/thread\/thread_\w+$/);
  await expect(runs.toolServer('Google Calendar')).toContainText('Authorized');
  await expect(runs.toolServer('Outlook Mail')).toContainText('Awaiting your authorization');
  // The input as it was: the form and the refused turn.
  await expect(runs.message()).toHaveValue(QUESTION);
  await expect(runs.output).toContainText(QUESTION);

  // Deny the other: nothing changes, and it can be asked again.
  await consentTo(runs, consent, 'Outlook Mail', 'Deny', baseURL!);
  await expect(runs.toolServer('Outlook Mail')).toContainText('Awaiting your authorization');
  await consentTo(runs, consent, 'Outlook Mail', 'Allow', baseURL!);
  await expect(runs.toolServer('Outlook Mail')).toContainText('Authorized');
  await expect(runs.toolServers()).toContainText('Every tool server is authorized: Run again sends the same request once more.');
  await shell.expectNoAxeViolations();

  // Run again: the same request, one POST, accepted this time.
  const arrivedBefore = (await runs.servicePosts()).length;
  const posts = runs.recordRunPosts();
  await runs.runAgain().click();
  await expect(runs.status).toHaveText('Done');
  await expect(runs.transcript).toContainText(`Checked Google Calendar and Outlook Mail for "${QUESTION}"`);
  expect(posts.map((p) => [new URL(p.url()).pathname, p.postDataJSON() as unknown])).toEqual([
    ['/api/agents/calendar-helper/runs', { messages: [{ role: 'USER', content: [{ type: 'text', text: QUESTION }] }], stream: true }],
  ]);
  expect((await runs.servicePosts()).slice(arrivedBefore).map((p) => [p.path, p.status])).toEqual([['/api/agents/calendar-helper/runs', 200]]);

  // Another token has authorized nothing: its run is refused, both servers awaiting.
  await connection.setToken(other);
  await page.getByRole('link', { name: 'New conversation' }).click();
  await runs.writeMessage(QUESTION);
  await runs.run.click();
  await expect(runs.status).toHaveText('Refused');
  await expect(runs.toolServer('Google Calendar')).toContainText('Awaiting your authorization');
  await expect(runs.toolServer('Outlook Mail')).toContainText('Awaiting your authorization');
  await settle(page);
  expect(violations).toEqual([]);
});

test('the tool-server API refuses an unknown server id (404) and a returnUrl on another origin (400); a stale consent link says so; another site cannot post the decision (403)', async ({ request, page, baseURL }) => {
  const auth = { Authorization: `Bearer ${await mint(request)}` };
  const unknown = await request.get('/rest/api/v1/tool-servers/srv_nope/auth', { headers: auth });
  expect(unknown.status()).toBe(404);
  expect(await unknown.json()).toBe('No tool server "srv_nope" on this service.');
  const elsewhere = await request.post('/rest/api/v1/tool-servers/srv_gcal_01/auth', { headers: auth, data: { returnUrl: 'https://evil.example/runs/calendar-helper' } });
  expect(elsewhere.status()).toBe(400);
  expect(await elsewhere.json()).toBe(
    `returnUrl is on https://evil.example, which is not an allowed return URL: this service returns only to ${baseURL}, http://localhost:${new URL(baseURL!).port}. Start it with --allowed-return-origin <origin> to allow another console.`,
  );
  // A consent link works once: the second visit, after a decision, says it no longer works.
  const asked = await request.post('/rest/api/v1/tool-servers/srv_gcal_01/auth', { headers: auth, data: { returnUrl: `${baseURL}/runs/calendar-helper` } });
  const { authorizationUrl } = (await asked.json()) as { authorizationUrl: string };
  await page.goto(authorizationUrl);
  await page.getByRole('button', { name: 'Deny' }).click();
  await expect(page).toHaveURL(`${baseURL}/runs/calendar-helper`);
  await page.goto(authorizationUrl);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('This consent link no longer works');

  // A page of another site that posts Allow by itself, even with a live state (the worst case: the
  // state somehow known), is refused: the browser says the post is cross-site. The user's own click still works.
  const live = await request.post('/rest/api/v1/tool-servers/srv_gcal_01/auth', { headers: auth, data: { returnUrl: `${baseURL}/runs/calendar-helper` } });
  const link = new URL(((await live.json()) as { authorizationUrl: string }).authorizationUrl);
  await page.route('http://attacker.test/', (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><form method="post" action="${link.origin}${link.pathname}"><input type="hidden" name="state" value="${link.searchParams.get('state')}"><input type="hidden" name="decision" value="allow"></form><script>document.forms[0].submit()</script>`,
    }),
  );
  const forged = page.waitForResponse((r) => r.request().method() === 'POST' && r.url() === `${link.origin}${link.pathname}`);
  await page.goto('http://attacker.test/');
  expect((await forged).status()).toBe(403);
  await expect(page.getByText('A decision can be sent only from the consent page itself.')).toBeVisible();
  const still = await request.get('/rest/api/v1/tool-servers/srv_gcal_01/auth', { headers: auth });
  expect(((await still.json()) as { authStatus: string }).authStatus).toBe('AWAITING_AUTH');
  await page.goto(link.href);
  await page.getByRole('button', { name: 'Allow' }).click();
  await expect(page).toHaveURL(`${baseURL}/runs/calendar-helper`);
});

/**
 * The attacker's own server on another port of this machine: it shows a page at /phish and
 * passes everything else on to the console's server as it came, its Host included (a loopback
 * name on another port, which the service answers). Through it the service's pages are
 * reached with a foreign Host and port.
 */
async function foreignFront(target: string): Promise<{ origin: string; phished: string[]; close(): Promise<void> }> {
  const port = await freePort();
  const phished: string[] = [];
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/phish')) {
      phished.push(req.url);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Phished</title><h1>Phished</h1>');
      return;
    }
    const forwarded = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  return { origin: `http://127.0.0.1:${port}`, phished, close: () => new Promise((ok) => server.close(() => ok())) };
}

test('a consent page reached with a foreign Host and port cannot send Allow or Deny to another origin (issue 37)', async ({ page, consent, request, baseURL }) => {
  const front = await foreignFront(baseURL!);
  try {
    const auth = { Authorization: `Bearer ${await mint(request)}` };
    // Through the foreign front, the service once took that front's origin for its own: a returnUrl to the attacker's page.
    const phishing = await request.post(`${front.origin}/rest/api/v1/tool-servers/srv_gcal_01/auth`, { headers: auth, data: { returnUrl: `${front.origin}/phish` } });
    expect(phishing.status()).toBe(400);
    expect(await phishing.json()).toContain(`returnUrl is on ${front.origin}, which is not an allowed return URL`);

    // A link made for the console, opened through the foreign front: the page offers only the console to go back to.
    const asked = await request.post(`${front.origin}/rest/api/v1/tool-servers/srv_gcal_01/auth`, { headers: auth, data: { returnUrl: `${baseURL}/runs/calendar-helper` } });
    expect(asked.status()).toBe(200);
    const link = new URL(((await asked.json()) as { authorizationUrl: string }).authorizationUrl);
    // The service names its own consent page, not the origin the request came through.
    expect(link.origin).toBe(baseURL);
    for (const decision of ['Allow', 'Deny'] as const) {
      await page.goto(`${front.origin}${link.pathname}${link.search}`);
      await consent.expectFor(front.origin, 'Google Calendar');
      await expect(consent.fact('Then back to')).toHaveText(`${baseURL}/runs/calendar-helper`);
      // Posted from a page on the foreign origin: refused, and the browser goes nowhere else.
      const posted = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/sandbox/oauth/consent');
      await (decision === 'Allow' ? consent.allow : consent.deny).click();
      expect((await posted).status()).toBe(403);
      await expect(page.getByText(`A decision cannot be sent from ${front.origin}.`)).toBeVisible();
      expect(new URL(page.url()).origin).toBe(front.origin);
    }
    expect(front.phished).toEqual([]);
    const still = await request.get('/rest/api/v1/tool-servers/srv_gcal_01/auth', { headers: auth });
    expect(((await still.json()) as { authStatus: string }).authStatus).toBe('AWAITING_AUTH');

    // On the service's own page the same link works, and goes back to the console.
    await page.goto(link.href);
    await consent.allow.click();
    await expect(page).toHaveURL(`${baseURL}/runs/calendar-helper`);
    expect(front.phished).toEqual([]);
  } finally {
    await front.close();
  }
});

test.describe('through a console server started with --upstream', () => {
  let upstream: ConsoleServer | undefined;
  let console_: ConsoleServer | undefined;

  test.beforeAll(async () => {
    // The console's origin is known before it starts, so the upstream can be told to return to it.
    const port = await freePort();
    upstream = await startReferenceService(['--allowed-return-origin', `http://127.0.0.1:${port}`]);
    console_ = await startConsoleServer(['--upstream', upstream.origin], undefined, port);
  });
  test.afterAll(() => {
    console_?.stop();
    upstream?.stop();
  });

  test('the page asks the upstream through the proxy, the browser consents on the upstream’s own page and comes back to the console', async ({ page, runs, consent, connection, request }) => {
    const token = await mint(request, upstream!.origin);
    await page.goto(`${console_!.origin}/connection`);
    await connection.createProfile({ name: 'Upstream', mode: 'proxy', token });
    await page.goto(`${console_!.origin}/runs`);
    await refusedRun(runs);
    for (const server of ['Google Calendar', 'Outlook Mail']) {
      await consentTo(runs, consent, server, 'Allow', upstream!.origin);
      await expect(page).toHaveURL(new RegExp(`^${console_!.origin.replace(/\./g, '\\.')}/runs/calendar-helper/thread/`));
      await expect(runs.toolServer(server)).toContainText('Authorized');
    }
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push(new URL(r.url()).pathname);
    });
    await runs.runAgain().click();
    await expect(runs.status).toHaveText('Done');
    expect(posts).toEqual([`/upstream/${new URL(upstream!.origin).host}/api/agents/calendar-helper/runs`]);
    // The run reached the upstream, and only it.
    const logged = (await (await request.get(`${upstream!.origin}/sandbox/runs`)).json()) as { posts: { path: string; status: number }[] };
    expect(logged.posts.map((p) => [p.path, p.status])).toEqual([
      ['/api/agents/calendar-helper/runs', 422],
      ['/api/agents/calendar-helper/runs', 200],
    ]);
  });
});
