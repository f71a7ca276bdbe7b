import { expect, test } from './fixtures';
import { ConnectionPage, TOKENS } from './pages/connection';
import { UPSTREAM_ORIGIN } from './servers';

const TOKEN_KEY = 'mac.token.reference';

test('keeps the token masked with show, hide and clear, in sessionStorage unless remembered on this device', async ({ connection, shell, page }) => {
  await connection.open();
  await connection.setToken(TOKENS.global);

  // Masked by default; only its first characters are summarised, and a public demo token says which it is.
  await expect(connection.token).toHaveAttribute('type', 'password');
  await expect(connection.tokenSummary).toHaveText('Token: sandbo…•••• (Demo: global metadata)');
  await connection.showToken.click();
  await expect(connection.token).toHaveAttribute('type', 'text');
  await expect(connection.hideToken).toHaveAttribute('aria-pressed', 'true');
  await connection.hideToken.click();
  await expect(connection.token).toHaveAttribute('type', 'password');

  // This tab only, by default.
  await expect(connection.panel.getByText('Kept for this tab only (session storage)')).toBeVisible();
  let stored = await shell.storage();
  expect(stored.session[TOKEN_KEY]).toBe(JSON.stringify(TOKENS.global));
  expect(Object.values(stored.local).join('\n')).not.toContain(TOKENS.global);

  // A reload of the tab keeps a session token.
  await page.reload();
  await expect(connection.token).toHaveValue(TOKENS.global);

  // Remembering moves it to localStorage at once, and back when unticked.
  await connection.remember.check();
  await expect(connection.panel.getByText('Kept in this browser’s local storage')).toBeVisible();
  stored = await shell.storage();
  expect(stored.local[TOKEN_KEY]).toBe(JSON.stringify(TOKENS.global));
  expect(stored.session[TOKEN_KEY]).toBeUndefined();
  await page.reload();
  await expect(connection.token).toHaveValue(TOKENS.global);
  await expect(connection.remember).toBeChecked();

  await connection.remember.uncheck();
  stored = await shell.storage();
  expect(stored.session[TOKEN_KEY]).toBe(JSON.stringify(TOKENS.global));
  expect(Object.values(stored.local).join('\n')).not.toContain(TOKENS.global);

  // Clear empties the field and both storages.
  await connection.clearToken.click();
  await expect(connection.token).toHaveValue('');
  await expect(connection.tokenSummary).toBeHidden();
  await expect(connection.clearToken).toBeDisabled();
  stored = await shell.storage();
  expect(JSON.stringify(stored)).not.toContain(TOKENS.global);
  await page.reload();
  await expect(connection.token).toHaveValue('');
});

test('switches between named profiles in one click, each with its own token, scopes and way to connect', async ({ connection }) => {
  await connection.open();
  await connection.profileName.fill('Global pipeline');
  await connection.setToken(TOKENS.global);
  await connection.createProfile({ name: 'HR team', token: TOKENS.hr, scopes: 'custommetadata:hr' });
  await connection.createProfile({ name: 'Acme direct', mode: 'direct', target: 'https://acme-be.glean.com', token: TOKENS.sales });
  await expect(connection.instanceUrl).toHaveValue('https://acme-be.glean.com');

  // One selection in the panel switches everything the profile holds.
  await connection.switchTo('Global pipeline');
  await expect(connection.token).toHaveValue(TOKENS.global);
  // Its pasted demo token stated its own scopes.
  await expect(connection.scopes).toHaveValue('custommetadata:global_scope');
  await expect(connection.connectTo).toHaveValue('same-origin');
  await expect(connection.instanceUrl).toBeHidden();

  // One click in the Profiles list does the same.
  await expect(connection.profileRow('Global pipeline').getByText('active')).toBeVisible();
  await connection.profileRow('HR team').getByRole('button', { name: 'Switch to HR team' }).click();
  await expect(connection.selectedProfile).toHaveText('HR team');
  await expect(connection.token).toHaveValue(TOKENS.hr);
  await expect(connection.scopes).toHaveValue('custommetadata:hr');
  await expect(connection.profileRow('HR team').getByText('active')).toBeVisible();
  await expect(connection.profileRow('HR team')).toContainText('custommetadata:hr');

  await connection.switchTo('Acme direct');
  await expect(connection.connectTo).toHaveValue('direct');
  await expect(connection.instanceUrl).toHaveValue('https://acme-be.glean.com');
  await expect(connection.token).toHaveValue(TOKENS.sales);
  await expect(connection.profileRow('Acme direct')).toContainText('https://acme-be.glean.com');

  // Deleting the active profile falls back to another; its token goes with it.
  await connection.profileRow('Acme direct').getByRole('button', { name: 'Delete Acme direct' }).click();
  await expect(connection.profile.locator('option')).toHaveText(['Global pipeline', 'HR team']);
  await expect(connection.token).toHaveValue(TOKENS.global);
});

test('screen-share mode masks every token on screen, in the panel and in the curl command', async ({ connection, schemas, shell, page }) => {
  await connection.open();
  await connection.setToken(TOKENS.global);
  await connection.showToken.click();
  await expect(connection.token).toHaveAttribute('type', 'text');

  await connection.screenShare.check();
  await expect(connection.token).toHaveAttribute('type', 'password');
  await expect(connection.showToken).toBeDisabled();
  await expect(connection.tokenSummary).toHaveText('Token: ••••••••');

  await shell.go('Schemas');
  await schemas.openGroup('sales');
  await expect(schemas.keysTable('sales')).toBeVisible();
  await schemas.includeToken.check();
  await expect(schemas.curl).toContainText('Authorization: Bearer ••••••••');
  await expect(schemas.curlStatus).toContainText('(masked on screen)');

  // Nothing readable on the page, nor in any field that shows its text, holds the token or its prefix.
  const onScreen = await page.evaluate<string>(
    `document.body.innerText + '\\n' + [...document.querySelectorAll('input:not([type=password]), textarea')].map((e) => e.value).join('\\n')`,
  );
  expect(onScreen).not.toContain(TOKENS.global);
  expect(onScreen).not.toContain('sandbo…');

  // The choice survives a reload, and turning it off brings the usual summary back.
  await page.reload();
  await expect(connection.screenShare).toBeChecked();
  await expect(connection.tokenSummary).toHaveText('Token: ••••••••');
  await connection.screenShare.uncheck();
  await expect(connection.tokenSummary).toHaveText('Token: sandbo…•••• (Demo: global metadata)');
  await expect(connection.showToken).toBeEnabled();
});

test('warns before a group the stated scopes do not cover, sends anyway on request, and remembers per profile which groups answered', async ({
  connection,
  schemas,
  shell,
  page,
}) => {
  const hrRequests: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/custom-metadata/schema/hr')) hrRequests.push(r.url());
  });
  await connection.open();
  await connection.profileName.fill('Sales integration');
  await connection.setToken(TOKENS.sales);
  await connection.setScopes('custommetadata:sales');

  await shell.go('Schemas');
  await schemas.openGroup('hr');
  await expect(schemas.scopeWarning).toContainText(
    'A token for custommetadata:sales will be refused with 401 for group hr; it needs custommetadata:hr or custommetadata:global_scope',
  );
  // Nothing is sent until the user chooses to.
  await expect(schemas.refetch).toBeHidden();
  expect(hrRequests).toEqual([]);

  const sent = page.waitForRequest((r) => r.url().endsWith('/rest/api/index/custom-metadata/schema/hr'));
  await schemas.sendAnyway.click();
  await sent;
  await expect(schemas.error(/^401 Unauthorized/)).toBeVisible();
  await expect(schemas.sendAnyway).toBeHidden();
  await expect(connection.outcomes).toContainText('Refused (401): hr');

  await schemas.openGroup('sales');
  await expect(schemas.keysTable('sales')).toBeVisible();
  await expect(connection.outcomes).toContainText('Answered: sales');
  await expect(connection.outcomes).toContainText('Refused (401): hr');

  // Another profile has its own record.
  await connection.createProfile({ name: 'Everything', token: TOKENS.global });
  await expect(connection.outcomes).toBeHidden();
  await shell.go('Schemas');
  await schemas.recent.getByRole('button', { name: 'hr', exact: true }).click();
  await expect(schemas.keysTable('hr')).toBeVisible();
  await expect(connection.outcomes).toHaveText('Answered: hr');

  // Kept across a reload, per profile.
  await page.reload();
  await expect(connection.outcomes).toHaveText('Answered: hr');
  await connection.switchTo('Sales integration');
  await expect(connection.outcomes).toContainText('Answered: sales');
  await expect(connection.outcomes).toContainText('Refused (401): hr');
});

test('the sandbox panel mints a token with the chosen scopes and adds it as a profile that works', async ({ connection, schemas, shell, page }) => {
  await connection.open();
  await expect(connection.sandbox).toBeVisible();
  const mint = page.waitForResponse((r) => r.url().endsWith('/sandbox/tokens') && r.request().method() === 'POST');
  await connection.mintSandboxToken({ groups: 'hr', label: 'E2E hr only' });
  const minted = (await (await mint).json()) as { token: string; scopes: string[] };
  expect(minted.scopes).toEqual(['custommetadata:hr']);

  await expect(connection.selectedProfile).toHaveText('E2E hr only');
  await expect(connection.token).toHaveValue(minted.token);
  await expect(connection.scopes).toHaveValue('custommetadata:hr');
  await expect(connection.profileRow('E2E hr only')).toContainText('custommetadata:hr');
  const stored = await shell.storage();
  expect(Object.values(stored.session)).toContain(JSON.stringify(minted.token));
  expect(Object.values(stored.local).join('\n')).not.toContain(minted.token);

  // The new profile reads its group, and is warned off another one.
  await shell.go('Schemas');
  await schemas.openGroup('hr');
  await schemas.expectKeys('hr', [
    ['policyArea', 'PICKLIST'],
    ['audience', 'MULTIPICKLIST'],
    ['summary', 'TEXT'],
    ['internalNotes', 'TEXT'],
  ]);
  await schemas.openGroup('sales');
  await expect(schemas.scopeWarning).toContainText('A token for custommetadata:hr will be refused with 401 for group sales');
});

test('the console server forwards only to the upstreams it was started with', async ({ connection, schemas, shell, request }) => {
  const auth = { Authorization: `Bearer ${TOKENS.global}` };
  const listed = await request.get('/console/upstreams');
  expect(await listed.json()).toEqual({ upstreams: [UPSTREAM_ORIGIN] });

  for (const host of ['example.com', '127.0.0.1:9']) {
    const refused = await request.get(`/upstream/${host}/rest/api/index/custom-metadata/schema/sales`, { headers: auth });
    expect(refused.status()).toBe(403);
    expect(await refused.json()).toEqual({
      error: 'upstream not allowed',
      message: `This console's server forwards only to ${UPSTREAM_ORIGIN}, the upstreams it was started with; "${host}" is not one of them.`,
    });
  }

  // A group that exists only on the upstream proves where the answer came from.
  const put = await request.put(`${UPSTREAM_ORIGIN}/rest/api/index/custom-metadata/schema/onlyupstream`, {
    headers: auth,
    data: { metadataKeys: [{ name: 'origin', propertyType: 'TEXT' }] },
  });
  expect(put.status()).toBe(200);
  expect((await request.get('/rest/api/index/custom-metadata/schema/onlyupstream', { headers: auth })).status()).toBe(404);

  await connection.open();
  await connection.createProfile({ name: 'Upstream', mode: 'proxy', token: TOKENS.global });
  await expect(connection.upstream).toHaveValue(UPSTREAM_ORIGIN);
  await shell.go('Schemas');
  await schemas.openGroup('onlyupstream');
  await schemas.expectKeys('onlyupstream', [['origin', 'TEXT']]);
  await schemas.tab('Response').click();
  await expect(schemas.meta('Request')).toHaveText(`GET /upstream/127.0.0.1:${new URL(UPSTREAM_ORIGIN).port}/rest/api/index/custom-metadata/schema/onlyupstream`);
  await expect(schemas.meta('Status')).toHaveText('200');
});

test('the connection page passes an accessibility scan in light and dark color schemes', async ({ connection, shell, page }) => {
  await connection.open();
  await connection.setToken(TOKENS.global);
  await connection.createProfile({ name: 'Broken URL', mode: 'direct', target: 'acme' });
  await expect(connection.panel.getByText('Not a URL; include the scheme')).toBeVisible();
  await connection.mintSandboxToken({ agents: true, groups: 'sales', label: 'E2E a11y' });
  await expect(connection.outcomes).toBeHidden();
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await shell.expectNoAxeViolations();
  }
});

test.describe('on a phone (390×844)', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('every profile’s Switch and Delete are on screen, however long its scopes or URL; nothing scrolls sideways', async ({ connection, page }) => {
    await connection.open();
    await connection.expand();
    await connection.setScopes('custommetadata:global_scope agents.run');
    await connection.createProfile({ name: 'Acme production direct', mode: 'direct', target: 'https://acme-production-be.glean.com', scopes: 'custommetadata:engineering' });
    await connection.createProfile({ name: 'Third' });
    await connection.panel.locator('summary').click();
    const buttons = connection.profiles.getByRole('button', { name: /^(Switch to|Delete) / });
    await expect(buttons).toHaveCount(5);
    for (const button of await buttons.all()) {
      await button.scrollIntoViewIfNeeded();
      const box = (await button.boundingBox())!;
      expect(box.x, `${await button.getAttribute('aria-label')} starts off screen`).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, `${await button.getAttribute('aria-label')} ends at ${box.x + box.width}px`).toBeLessThanOrEqual(390);
    }
    // Nothing in the list is wider than the list, which would be cut off or scroll.
    const overflow = await connection.profiles.evaluate((el) => [...el.querySelectorAll('li')].map((li) => li.scrollWidth - li.clientWidth));
    expect(Math.max(...overflow)).toBeLessThanOrEqual(0);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
  });
});

test('two tabs: each keeps its own token’s scopes and its own profile; a profile made in one is not lost by the other', async ({ connection, page, context }) => {
  await connection.open();
  await connection.setToken(TOKENS.global);
  await connection.setScopes('custommetadata:global_scope');

  // A second tab of the same browser: localStorage shared, sessionStorage its own.
  const other = new ConnectionPage(await context.newPage());
  await other.open();
  await other.setToken(TOKENS.sales);
  await other.setScopes('custommetadata:sales');
  await other.createProfile({ name: 'Made in the second tab', token: TOKENS.global });

  // The first tab renames its profile, then is reloaded.
  await connection.profileName.fill('First tab’s profile');
  await page.reload();
  await expect(connection.selectedProfile).toHaveText('First tab’s profile');
  await expect(connection.token).toHaveValue(TOKENS.global);
  await expect(connection.scopes).toHaveValue('custommetadata:global_scope');
  await expect(connection.profile.locator('option')).toHaveText(['First tab’s profile', 'Made in the second tab']);

  // The second tab, reloaded, is still on the profile it made.
  await other.page.reload();
  await expect(other.selectedProfile).toHaveText('Made in the second tab');
  await other.switchTo('First tab’s profile');
  await expect(other.token).toHaveValue(TOKENS.sales);
  await expect(other.scopes).toHaveValue('custommetadata:sales');
});

test('two tabs: typing fast in one loses nothing to the other, which takes each change in and writes none back', async ({ connection, context }) => {
  await connection.open();
  const other = new ConnectionPage(await context.newPage());
  await other.open();
  await connection.profileName.click();
  await connection.page.keyboard.press('End');
  // No delay between keys: each is a save here and a StorageEvent there.
  await connection.page.keyboard.type(' the quick brown fox jumps');
  await expect(other.selectedProfile).toHaveText('Reference service the quick brown fox jumps');
  await expect(connection.profileName).toHaveValue('Reference service the quick brown fox jumps');
  await connection.page.waitForTimeout(500);
  await expect(connection.profileName).toHaveValue('Reference service the quick brown fox jumps');

  // Both tabs on the token remembered on this device: its scopes, typed as fast, reach the other tab whole.
  await connection.setToken(TOKENS.global);
  await connection.remember.check();
  await other.page.reload();
  await expect(other.token).toHaveValue(TOKENS.global);
  await connection.scopes.fill('');
  await connection.page.keyboard.type('custommetadata:global_scope agents.run');
  await expect(other.scopes).toHaveValue('custommetadata:global_scope agents.run');
  await connection.page.waitForTimeout(500);
  await expect(connection.scopes).toHaveValue('custommetadata:global_scope agents.run');
});

test('two tabs: Remember ticked in one keeps the other’s own token and scopes; a deletion there is said here', async ({ connection, page, context }) => {
  await connection.open();
  await connection.setToken(TOKENS.global);
  await connection.setScopes('custommetadata:global_scope');
  const other = new ConnectionPage(await context.newPage());
  await other.open();
  await other.setToken(TOKENS.sales);
  await other.setScopes('custommetadata:sales');
  await connection.remember.check();
  await expect(other.remember).not.toBeChecked();
  await page.reload();
  await expect(connection.token).toHaveValue(TOKENS.global);
  await expect(connection.scopes).toHaveValue('custommetadata:global_scope');
  await other.page.reload();
  await expect(other.token).toHaveValue(TOKENS.sales);
  await expect(other.scopes).toHaveValue('custommetadata:sales');

  // The first tab makes a profile and uses it; the other tab deletes it.
  await connection.createProfile({ name: 'Short-lived' });
  await other.switchTo('Short-lived');
  await other.scopes.click();
  await connection.goToPage();
  await connection.profileRow('Short-lived').getByRole('button', { name: /^Delete/ }).click();
  const said = other.panel.getByRole('status', { name: 'Changed in another tab' });
  await expect(said).toHaveText(/“Short-lived” was deleted in another tab; this tab now uses “Reference service”\./);
  // What was being typed in belonged to the deleted profile: focus is on what says so.
  await expect(said.locator('p')).toBeFocused();
  await expect(other.selectedProfile).toHaveText('Reference service');
  await expect(other.scopes).toHaveValue('custommetadata:sales');
});
