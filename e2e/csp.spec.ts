/**
 * Every page of the console, as `npm start` serves it, carries the security headers and
 * runs under its Content-Security-Policy without a single violation, in both ways of
 * reaching an instance from the browser (this origin and directly).
 */
import type { Page, Response } from '@playwright/test';
import { expect, test } from './fixtures';
import { UPSTREAM_ORIGIN } from './servers';

const PAGES = ['/connection', '/schemas', '/schemas/sales', '/runs', '/runs/echo-assistant', '/runs/hr-policy-form'];
const EVERYTHING = 'sandbox-everything-7e2a5c8d1b4f9063';

interface Violation {
  directive: string;
  blocked: string;
  source: string;
}

test.beforeEach(async ({ page }) => {
  // Before any of the page's own scripts: a violation during start-up counts too.
  // A string, not a function: the e2e sources are type-checked without the DOM library.
  await page.addInitScript(`
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push({ directive: e.violatedDirective, blocked: e.blockedURI, source: e.sourceFile + ':' + e.lineNumber });
    });
  `);
});

const violations = (page: Page) => page.evaluate<Violation[]>('window.__cspViolations');

function expectSecurityHeaders(response: Response | null) {
  expect(response, 'the page answered').not.toBeNull();
  const headers = response!.headers();
  const csp = headers['content-security-policy'] ?? '';
  const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
  expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
  expect(directives.get('script-src')).not.toContain("'unsafe-inline'");
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

test('the policy is enforced: an inline script is blocked and reported', async ({ page }) => {
  await visit(page, '/connection');
  await page.evaluate(`{
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true';
    document.body.append(s);
  }`);
  await expect.poll(() => violations(page)).toEqual([expect.objectContaining({ directive: expect.stringMatching(/^script-src/) })]);
  expect(await page.evaluate('window.__inlineRan')).toBeUndefined();
});

test('every page carries the headers and runs without a CSP violation, on this origin', async ({ page, connection }) => {
  await connection.open();
  await connection.setToken(EVERYTHING);
  for (const path of PAGES) {
    await visit(page, path);
    expect({ path, violations: await violations(page) }).toEqual({ path, violations: [] });
  }
  // The run form checks its input against the agent's schema in the browser (compiled by Ajv)
  // before anything is sent: required fields left empty are flagged, under the same policy.
  await page.getByRole('main').getByRole('button', { name: /^Run and (stream|wait)$/ }).click();
  await expect(page.getByRole('main').locator('[aria-invalid="true"]').first()).toBeVisible();
  expect(await violations(page)).toEqual([]);
});

test('directly to an instance, the browser may still call it: no CSP violation', async ({ page, connection }) => {
  await connection.open();
  await connection.connectVia('direct', UPSTREAM_ORIGIN);
  await connection.setToken(EVERYTHING);
  const requested: string[] = [];
  page.on('request', (r) => {
    if (r.url().startsWith(UPSTREAM_ORIGIN)) requested.push(r.url());
  });
  for (const path of ['/schemas/sales', '/runs/hr-policy-form']) {
    await visit(page, path);
    expect({ path, violations: await violations(page) }).toEqual({ path, violations: [] });
  }
  // The requests left the page (the upstream allows no CORS, so they fail there, not in the CSP).
  expect(requested.some((u) => u.includes('/rest/api/index/custom-metadata/schema/sales'))).toBe(true);
});

test('API answers carry nosniff and no page policy is needed for them', async ({ request }) => {
  const a = await request.get('/rest/api/index/custom-metadata/schema/sales', { headers: { Authorization: `Bearer ${EVERYTHING}` } });
  expect(a.status()).toBe(200);
  expect(a.headers()['x-content-type-options']).toBe('nosniff');
});
