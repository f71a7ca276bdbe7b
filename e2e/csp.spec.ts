/**
 * Every page of the console, as `npm start` serves it, carries the security headers, and
 * every page and flow runs under its Content-Security-Policy (no `'unsafe-` keyword at all)
 * without a single violation: connection, schemas (view, edit, document values, the spec lens
 * expanded), runs of every kind (stream, wait, durable with an approval, the legacy API), the
 * durable run page and history, on this origin and directly to an instance.
 *
 * Each test collects violations as they happen, across navigations (csp-watch.ts): the page's
 * securitypolicyviolation events, and the console errors and page errors the browser logs for
 * a blocked script, eval or style. Any one fails the test. csp-dev.spec.ts does the same for
 * `npm run dev`.
 */
import type { Locator, Page, Response } from '@playwright/test';
import { settle, watchCsp } from './csp-watch';
import { expect, test } from './fixtures';
import { DurableRunPage } from './pages/durable';
import { AGENT_TOKENS } from './pages/runs';
import { TOKENS } from './pages/connection';
import { UPSTREAM_ORIGIN } from './servers';

const PAGES = ['/connection', '/schemas', '/schemas/sales', '/runs', '/runs/echo-assistant', '/runs/hr-policy-form'];
const EVERYTHING = 'sandbox-everything-7e2a5c8d1b4f9063';

let violations: string[] = [];

test.beforeEach(async ({ page }) => {
  violations = await watchCsp(page);
});

test.afterEach(async ({ page }) => {
  await settle(page);
  expect(violations, 'CSP violations').toEqual([]);
});

/** Fails at once, naming the step, if anything so far broke the policy. */
function expectNoViolationSoFar(step: string) {
  expect({ step, violations }).toEqual({ step, violations: [] });
}

function expectSecurityHeaders(response: Response | null) {
  expect(response, 'the page answered').not.toBeNull();
  const headers = response!.headers();
  const csp = headers['content-security-policy'] ?? '';
  // Neither 'unsafe-eval' nor 'unsafe-inline' nor any other unsafe keyword, in any directive.
  expect(csp).not.toMatch(/'unsafe-/);
  const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
  expect(directives.get('script-src')).toEqual(["'self'"]);
  expect(directives.get('style-src')).toEqual(["'self'"]);
  expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
  expect(directives.get('default-src')).toEqual(["'self'"]);
  expect(directives.get('object-src')).toEqual(["'none'"]);
  // Direct-to-instance mode: the browser calls whatever instance URL the user gives.
  expect(directives.get('connect-src')).toEqual(expect.arrayContaining(["'self'", 'https:', 'http:']));
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['x-frame-options']).toBe('DENY');
}

async function visit(page: Page, path: string) {
  const response = await page.goto(path);
  expectSecurityHeaders(response);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.waitForLoadState('networkidle');
  return response;
}

/**
 * Opens a spec lens badge in `scope` once the lens has checked the answer (its validators are
 * a chunk of their own, loaded on first use), and shows what it checked against.
 */
async function expandLens(scope: Locator, verdict: RegExp = /^(matches the public schema|\d+ differences?|No public schema for)/) {
  const badge = scope.getByRole('button', { name: verdict }).first();
  await expect(badge).toBeVisible();
  await badge.click();
  await expect(badge).toHaveAttribute('aria-expanded', 'true');
  const details = scope.page().locator(`[id="${await badge.getAttribute('aria-controls')}"]`);
  await expect(details).toBeVisible();
  await expect(details).toContainText(/Checked against|no schema|does not (mention|document)|documents no operation|lists no|publishes no/i);
  await expect(scope.getByText(/Could not load the public schema/)).toHaveCount(0);
}

test('the policy is enforced: an inline script is blocked and reported', async ({ page }) => {
  await visit(page, '/connection');
  await page.evaluate(`{
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true';
    document.body.append(s);
  }`);
  await expect.poll(() => violations.length).toBeGreaterThan(0);
  expect(violations[0]).toMatch(/script-src/);
  expect(await page.evaluate('window.__inlineRan')).toBeUndefined();
  // So is code compiled from a string, which nothing in the console does. In a task of its own:
  // code the test runs through DevTools may compile strings, the page's own code may not.
  violations.length = 0;
  await page.evaluate(`setTimeout(() => {
    try { new Function('return 1')(); window.__evalResult = 'compiled'; } catch (e) { window.__evalResult = e.name; }
  }, 0)`);
  await expect.poll(() => page.evaluate('window.__evalResult')).toBe('EvalError');
  await expect.poll(() => violations.some((v) => /script-src.*blocked eval/.test(v))).toBe(true);
  violations.length = 0;
});

test('every page carries the headers and runs without a CSP violation, on this origin', async ({ page, connection }) => {
  test.setTimeout(60_000);
  await connection.open();
  await connection.setToken(EVERYTHING);
  for (const path of PAGES) {
    await visit(page, path);
    expectNoViolationSoFar(path);
  }
});

test('connection: a token checked, a sandbox token minted into a new profile, profiles switched, a direct instance', async ({ connection, page }) => {
  test.setTimeout(60_000);
  await visit(page, '/connection');
  await connection.setToken(AGENT_TOKENS.agents);
  await expect(connection.panel.getByRole('status', { name: 'Token check' })).toHaveText('Token accepted. It can run agents.');
  await connection.mintSandboxToken({ global: true, agents: true, label: 'CSP check' });
  await connection.switchTo('CSP check');
  await connection.createProfile({ name: 'Direct', mode: 'direct', target: UPSTREAM_ORIGIN, token: EVERYTHING });
  await expect(connection.profileRow('Direct')).toBeVisible();
  expectNoViolationSoFar('connection');
});

test('schemas: keys, raw JSON and response, the spec lens on an answer and on an error, a schema created in the editor, document values', async ({ connection, schemas, page }) => {
  test.setTimeout(90_000);
  await visit(page, '/schemas');
  await connection.setToken(TOKENS.global);
  await expect(schemas.main.getByRole('link', { name: 'sales' })).toBeVisible();

  await schemas.openGroup('sales');
  await expect(schemas.keysTable('sales')).toBeVisible();
  await expandLens(schemas.main, /^matches the public schema$/);
  await expect(schemas.main.getByText(/Checked against GET \/rest\/api\/index\/custom-metadata\/schema\/\{groupName\}/)).toBeVisible();
  await schemas.tab('Raw JSON').click();
  await expect(schemas.tabPanel().locator('pre')).toContainText('"metadataKeys"');
  await schemas.tab('Response').click();
  await expect(schemas.meta('Status')).toHaveText('200');
  expectNoViolationSoFar('schema view and lens');

  // An answer that differs from the documentation: each difference listed.
  await page.route('**/rest/api/index/custom-metadata/schema/e2ecspodd', (route) => route.fulfill({ json: { metadataKeys: [{ name: 'region', propertyType: 'COUNTRY' }], revision: 7 } }));
  await schemas.openGroup('e2ecspodd');
  await expandLens(schemas.main, /^1 difference · 1 undocumented field$/);
  await expect(schemas.main.getByRole('list', { name: 'Differences from the public schema' }).getByRole('listitem')).toHaveCount(2);

  // An error answer, checked against the documented error body.
  await connection.setToken(TOKENS.hr);
  await schemas.openGroup('sales');
  // The demo token states its scopes, so the console warns first; sent anyway, the service refuses.
  await schemas.sendAnyway.click();
  const refused = schemas.error(/^401 Unauthorized/);
  await expandLens(refused, /^error body as documented$/);
  await connection.setToken(TOKENS.global);
  expectNoViolationSoFar('lens on a difference and on an error');

  await schemas.openGroup('e2ecsp');
  await schemas.createSchemaFor('e2ecsp').click();
  await schemas.keyName(1).fill('stage');
  await schemas.keyType(1).selectOption('PICKLIST');
  await schemas.addKeyRow('owners', 'TEXTLIST');
  await schemas.reviewChanges.click();
  await expect(schemas.review('e2ecsp').getByRole('listitem')).toHaveText(['+ stage: PICKLIST', '+ owners: TEXTLIST']);
  await schemas.saveSchema.click();
  await expect(schemas.notice()).toHaveText('Schema of e2ecsp created.');
  await schemas.editSchema.click();
  await schemas.keySkipIndexing(2).check();
  await schemas.reviewChanges.click();
  await schemas.saveSchema.click();
  await expect(schemas.notice()).toContainText('Schema of e2ecsp');
  expectNoViolationSoFar('schema editor');

  const form = schemas.documentValues('e2ecsp');
  await form.getByLabel('Document id').fill('DOC-CSP-1');
  await schemas.documentField('e2ecsp', 'stage').fill('draft');
  await form.getByRole('button', { name: 'Set values' }).click();
  await expect(form.getByRole('status')).toHaveText('Values set on DOC-CSP-1.');
  await expandLens(form, /^matches the public schema$/);
  await form.getByRole('button', { name: 'Remove all values' }).click();
  await expect(form.getByRole('status')).toHaveText('All e2ecsp values removed from DOC-CSP-1.');
  expectNoViolationSoFar('document values');
});

test('runs: stream with an event checked by the lens, wait with its answer checked, the form checked before sending, the legacy API, a failure and a refusal, history', async ({ connection, runs, page }) => {
  test.setTimeout(120_000);
  await visit(page, '/runs');
  await connection.setToken(AGENT_TOKENS.agents);

  // Stream.
  await runs.chooseAgent('Echo Assistant');
  await runs.writeMessage('Under the policy');
  await runs.startRun();
  await expect(runs.status).toHaveText('Done');
  await runs.timelineRows.first().click();
  await expandLens(runs.output.getByLabel(/^Event \d+$/), /^No public schema for event message$/);
  expectNoViolationSoFar('stream');

  // Wait, its answer checked by the lens.
  await runs.answerBy('wait');
  await runs.startRun();
  await expect(runs.status).toHaveText('Done');
  await expandLens(runs.output, /^matches the public schema$/);
  await runs.resultTab('Raw JSON').click();
  await expect(runs.resultPanel().locator('pre')).toContainText('"GLEAN_AI"');
  expectNoViolationSoFar('wait');

  // The form agent: the input is checked against the agent's schema in the page, then sent.
  await runs.chooseAgent('HR Policy Agent');
  await runs.answerBy('stream');
  await runs.run.click();
  await expect(runs.field('Topic')).toHaveAttribute('aria-invalid', 'true');
  await expect(runs.field('Topic')).toHaveAccessibleDescription(/^Required\./);
  await runs.field('Topic').fill('parental leave');
  await runs.field('Region').selectOption('emea');
  await runs.field('Maximum points').fill('11');
  await runs.run.click();
  await expect(runs.field('Maximum points')).toHaveAttribute('aria-invalid', 'true');
  await expect(runs.field('Maximum points')).toHaveAccessibleDescription(/^must be <= 10\./);
  await runs.field('Maximum points').fill('3');
  await runs.startRun();
  await expect(runs.status).toHaveText('Done');
  expectNoViolationSoFar('form agent');

  // A failing stream, with its documentation link; then the legacy API.
  await runs.chooseAgent('Flaky Reporter');
  await runs.writeMessage('The quarterly report');
  await runs.startRun();
  await expect(runs.status).toHaveText('Failed');
  await expect(runs.failure.getByRole('link', { name: 'Documentation for this error' })).toBeVisible();
  await runs.useApi('Legacy');
  await expect(runs.deprecation).toBeVisible();
  await runs.startRun();
  await expect(runs.status).toHaveText('Failed');
  await runs.useApi('Current');
  expectNoViolationSoFar('failure and legacy API');

  // A refusal (422), its problem details checked by the lens.
  await runs.chooseAgent('Calendar Helper');
  await runs.writeMessage('Book a meeting');
  await runs.startRun();
  const refused = runs.refusal(/^422 /);
  await expect(refused).toBeVisible();
  await expandLens(refused, /^error body as documented$/);
  expectNoViolationSoFar('refusal');

  // History: view, export, run again.
  const entry = runs.historyItem(1);
  await entry.getByRole('button', { name: 'View' }).click();
  await expect(entry.getByLabel('Request body')).toBeVisible();
  const download = page.waitForEvent('download');
  await entry.getByRole('button', { name: 'Export last turn' }).click();
  await download;
  await runs.historyItems.filter({ hasText: 'Echo Assistant' }).first().getByRole('button', { name: 'Run again…' }).click();
  await expect(runs.agentHeading).toContainText('Echo Assistant');
  await runs.startRun();
  await expect(runs.status).toHaveText('Done');
  expectNoViolationSoFar('history');
});

test('a durable run with a tool approval, on its own page and after a reload', async ({ connection, runs, page }) => {
  test.setTimeout(90_000);
  await visit(page, '/runs');
  await connection.setToken(AGENT_TOKENS.agents);
  await runs.chooseAgent('Expense Filer');
  await runs.answerBy('durable');
  await runs.writeMessage('File my expenses');
  await runs.startRun();
  // The run shows where it was started, its approval inline; then on its own page.
  const inline = new DurableRunPage(page, runs.output);
  await inline.expectState('Waiting for your approval');
  // A durable run's answers are checked against the official client's models (the public cut has none).
  await expandLens(inline.main, /^matches the official client’s model$/);
  await inline.decideNow('Submit expense report', 'Approve');
  await inline.expectState('Succeeded');
  // Its states on a time axis, the time it waited for the approval said apart.
  await expect(runs.output.getByTestId('state-chart').last()).toHaveAttribute('aria-label', /Waiting for your approval [\d,]+ ms.*; [\d,]+ ms waiting for approval\.$/);
  const run = await inline.openOwnPage();
  await run.expectState('Succeeded');
  await expandLens(run.main, /^matches the official client’s model$/);
  await expect(run.transcript).toContainText('The finance system accepted EXP-1042');
  expectNoViolationSoFar('durable run');

  const id = await run.runId();
  const response = await page.reload();
  expectSecurityHeaders(response);
  await run.expectState('Succeeded');
  await visit(page, '/runs/expense-filer');
  await runs.history.getByRole('link', { name: id }).click();
  await run.expectState('Succeeded');
  expectNoViolationSoFar('durable run page reloaded and reached from history');
});

test('insight: a run drawn over time, and a comparison of legacy and current from one click, hovered and exported', async ({ connection, runs, page }) => {
  test.setTimeout(60_000);
  await visit(page, '/runs');
  await connection.setToken(AGENT_TOKENS.agents);
  await runs.chooseAgent('Echo Assistant');
  await runs.useApi('Legacy');
  await runs.writeMessage('Compare under the policy');
  await runs.deprecation.getByRole('button', { name: 'Compare with the replacement (runs both)' }).click();
  await expect(page.getByRole('status', { name: 'Verdict' })).toContainText('The answers match');
  const chart = page.getByTestId('stream-chart').first();
  const box = (await chart.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export comparison (JSON)' }).click();
  await download;
  expectNoViolationSoFar('comparison');
});

test('suites: a suite file is read in a worker the policy lets run, and imported', async ({ page }) => {
  await visit(page, '/suites');
  const suite = { format: 'metadata-agents-console/suite', version: 1, suite: { name: 'Read in a worker' }, cases: [{ id: 'c1', name: 'Echo', agent: { id: 'echo-assistant' }, api: 'platform', mode: 'stream', messages: [], assertions: [{ kind: 'answer-matches', pattern: '^You asked' }] }] };
  const worker = page.waitForEvent('worker');
  await page.getByLabel('Suite file to import').setInputFiles({ name: 'suite.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(suite)) });
  // The file is checked off the page's thread (a file of 20,000 long patterns held the page 43 s in it).
  expect((await worker).url()).toMatch(/suite-file\.worker/);
  await expect(page.getByLabel('Suite name')).toHaveValue('Read in a worker');
  expectNoViolationSoFar('suite import');
});

test('directly to an instance, the browser may still call it: no CSP violation', async ({ page, connection }) => {
  test.setTimeout(60_000);
  await connection.open();
  await connection.connectVia('direct', UPSTREAM_ORIGIN);
  await connection.setToken(EVERYTHING);
  const requested: string[] = [];
  page.on('request', (r) => {
    if (r.url().startsWith(UPSTREAM_ORIGIN)) requested.push(r.url());
  });
  for (const path of ['/schemas/sales', '/runs/hr-policy-form']) {
    await visit(page, path);
    expectNoViolationSoFar(path);
  }
  // The requests left the page (the upstream allows no CORS, so they fail there, not in the CSP).
  expect(requested.some((u) => u.includes('/rest/api/index/custom-metadata/schema/sales'))).toBe(true);
});

test('API answers carry nosniff and no page policy is needed for them', async ({ request }) => {
  const a = await request.get('/rest/api/index/custom-metadata/schema/sales', { headers: { Authorization: `Bearer ${EVERYTHING}` } });
  expect(a.status()).toBe(200);
  expect(a.headers()['x-content-type-options']).toBe('nosniff');
});
