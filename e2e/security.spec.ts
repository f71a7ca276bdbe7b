import { expect, test } from './fixtures';
import { CONSOLE_PORT } from './servers';

const CONSOLE_ORIGIN = `http://127.0.0.1:${CONSOLE_PORT}`;

test('a session token stays out of URLs, localStorage, console output and a copied curl unless asked, and survives a reload', async ({
  connection,
  schemas,
  shell,
  page,
  context,
  request,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: CONSOLE_ORIGIN });
  // A token no page has seen before, so any trace of it comes from this flow.
  const minted = await request.post('/sandbox/tokens', { data: { scopes: ['custommetadata:global_scope'], label: 'e2e leak check' } });
  expect(minted.status()).toBe(201);
  const { token } = (await minted.json()) as { token: string };

  const consoleOutput: string[] = [];
  page.on('console', (m) => consoleOutput.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => consoleOutput.push(`pageerror: ${e.message}`));
  const urls: string[] = [];
  const authorized = new Set<string>();
  page.on('request', (r) => {
    urls.push(r.url());
    const auth = r.headers()['authorization'];
    if (auth) authorized.add(`${new URL(r.url()).origin} ${auth}`);
  });
  page.on('framenavigated', (f) => urls.push(f.url()));
  const clipboard = () => page.evaluate<string>('navigator.clipboard.readText()');

  /** The checks of every step: not in any URL so far, not in localStorage, not in the console output. */
  const expectNoLeak = async () => {
    expect(page.url()).not.toContain(token);
    expect(urls.filter((u) => u.includes(token))).toEqual([]);
    expect(Object.values((await shell.storage()).local).join('\n')).not.toContain(token);
    expect(consoleOutput.filter((line) => line.includes(token))).toEqual([]);
  };

  await connection.open();
  await connection.setToken(token);
  expect(Object.values((await shell.storage()).session)).toContain(JSON.stringify(token));
  await expectNoLeak();

  await shell.go('Schemas');
  await schemas.openGroup('sales');
  await expect(schemas.keysTable('sales')).toBeVisible();
  await expectNoLeak();
  for (const tab of ['Raw JSON', 'Response'] as const) {
    await schemas.tab(tab).click();
    await expect(schemas.tabPanel()).not.toContainText(token);
  }
  await expectNoLeak();

  // Copied curl: redacted as $TOKEN unless "Include token" is ticked; the screen never shows it.
  const get = (auth: string) =>
    [`curl --fail-with-body '${CONSOLE_ORIGIN}/rest/api/index/custom-metadata/schema/sales' \\`, `  -H ${auth}`].join('\n');
  await schemas.copyCurl.click();
  await expect(schemas.curlStatus).toHaveText('Copied; the token is redacted as $TOKEN.');
  expect(await clipboard()).toBe(get('"Authorization: Bearer $TOKEN"'));
  await schemas.includeToken.check();
  await expect(schemas.curl).toHaveText(get("'Authorization: Bearer ••••••••'"));
  await schemas.copyCurl.click();
  await expect(schemas.curlStatus).toHaveText('Copied, with the token.');
  expect(await clipboard()).toBe(get(`'Authorization: Bearer ${token}'`));
  await schemas.includeToken.uncheck();
  await schemas.copyCurl.click();
  await expect.poll(clipboard).not.toContain(token);

  // Error answers and the editor do not expose it either.
  await schemas.openGroup('nosuchgroup');
  await expect(schemas.noSchema('nosuchgroup')).toBeVisible();
  await schemas.createSchemaFor('nosuchgroup').click();
  await expect(schemas.editor()).toBeVisible();
  await expectNoLeak();

  // A reload keeps the session token, and still only in sessionStorage.
  await page.reload();
  await expect(connection.token).toHaveValue(token);
  await expect(schemas.noSchema('nosuchgroup')).toBeVisible();
  await expectNoLeak();

  // Only as the Authorization header, only to the profile's base URL.
  expect([...authorized]).toEqual([`${CONSOLE_ORIGIN} Bearer ${token}`]);
  expect(consoleOutput.filter((line) => line.includes(token))).toEqual([]);

  // The same check sees it once the user asks to remember it on this device.
  await connection.remember.check();
  expect(Object.values((await shell.storage()).local)).toContain(JSON.stringify(token));
});
