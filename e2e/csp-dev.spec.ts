/**
 * `npm run dev` serves the console under the same strict policy as `npm start` (plus a nonce
 * for the scripts Vite injects, and ws: for hot reload): the pages, the spec lens (its
 * validators compiled by the dev server's plugin) and the run form's checks run without a
 * single violation. The dev server is started here, on a free port, on a throw-away database.
 */
import { resolve } from 'node:path';
import type { ViteDevServer } from 'vite';
import { OPTIONS_ENV } from '../src/service/options';
import { settle, watchCsp } from './csp-watch';
import { expect, test } from './fixtures';
import { AGENT_TOKENS } from './pages/runs';
import { TOKENS } from './pages/connection';

const ROOT = resolve(import.meta.dirname, '..');
let server: ViteDevServer;
let base = '';
let violations: string[] = [];

test.beforeAll(async () => {
  test.setTimeout(120_000);
  process.env[OPTIONS_ENV] = JSON.stringify({ memory: true });
  const { createServer } = await import('vite');
  // Port 0: any free port, so this never collides with another server of the suite or a running `npm run dev`.
  server = await createServer({ root: ROOT, configFile: resolve(ROOT, 'vite.config.ts'), logLevel: 'silent', server: { port: 0, strictPort: false, watch: null } });
  await server.listen();
  const address = server.httpServer!.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

test.afterAll(async () => {
  await server?.close();
  delete process.env[OPTIONS_ENV];
});

test.beforeEach(async ({ page }) => {
  violations = await watchCsp(page);
});

test.afterEach(async ({ page }) => {
  await settle(page);
  expect(violations, 'CSP violations').toEqual([]);
});

test('npm run dev: no unsafe keyword, Vite’s scripts by nonce, and the spec lens and the run form work without a violation', async ({ page, connection, schemas, runs }) => {
  test.setTimeout(120_000);
  const answer = await page.goto(`${base}/schemas/sales`);
  const csp = answer!.headers()['content-security-policy'] ?? '';
  expect(csp).not.toMatch(/'unsafe-/);
  expect(csp).toMatch(/script-src 'self' 'nonce-[^']+'/);
  await connection.setToken(TOKENS.global);
  await expect(schemas.keysTable('sales')).toBeVisible({ timeout: 60_000 });
  const badge = schemas.main.getByRole('button', { name: 'matches the public schema' });
  await badge.click({ timeout: 30_000 });
  await expect(schemas.main.getByText(/Checked against GET \/rest\/api\/index\/custom-metadata\/schema\/\{groupName\}/)).toBeVisible();

  await page.goto(`${base}/runs/hr-policy-form`);
  await connection.setToken(AGENT_TOKENS.agents);
  await expect(runs.inputForm).toBeVisible({ timeout: 60_000 });
  await runs.run.click();
  await expect(runs.field('Topic')).toHaveAccessibleDescription(/^Required\./);
  await runs.field('Topic').fill('parental leave');
  await runs.field('Region').selectOption('emea');
  await runs.startRun();
  await expect(runs.status).toHaveText('Done');
});
