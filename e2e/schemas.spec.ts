import type { APIRequestContext } from '@playwright/test';
import { expect, test } from './fixtures';
import { TOKENS } from './pages/connection';
import { UPSTREAM_ORIGIN, UPSTREAM_RATE_LIMIT } from './servers';

const SALES_KEYS: [string, 'TEXT' | 'PICKLIST' | 'MULTIPICKLIST'][] = [
  ['status', 'PICKLIST'],
  ['region', 'PICKLIST'],
  ['tags', 'MULTIPICKLIST'],
  ['dealNotes', 'TEXT'],
];

const GLOBAL = { Authorization: `Bearer ${TOKENS.global}` };
const schemaUrl = (group: string) => `/rest/api/index/custom-metadata/schema/${group}`;

/** Sets up a group straight on the service, as a pipeline would, so a test starts from a known schema. */
async function putSchema(request: APIRequestContext, group: string, metadataKeys: { name: string; propertyType: string; skipIndexing?: boolean }[]) {
  const answer = await request.put(schemaUrl(group), { headers: GLOBAL, data: { metadataKeys } });
  expect(answer.status(), await answer.text()).toBe(200);
}

test('a deep link shows the schema with its keys, raw JSON and response, in tabs the arrow keys move between', async ({ connection, schemas, page }) => {
  await schemas.open('sales');
  await expect(schemas.groupName).toHaveValue('sales');
  await connection.setToken(TOKENS.global);
  await schemas.expectKeys('sales', SALES_KEYS);
  await expect(schemas.keyRow('sales', 'dealNotes')).toContainText('stored only (skipIndexing)');
  await expect(schemas.keyRow('sales', 'status')).toContainText('searchable');
  await expect(schemas.freshness).toHaveText('Fetched just now');

  // Keyboard: the selected tab is the one tab stop; arrows, Home and End move and select.
  await schemas.tab('Keys').focus();
  await page.keyboard.press('ArrowRight');
  await expect(schemas.tab('Raw JSON')).toBeFocused();
  await expect(schemas.tab('Raw JSON')).toHaveAttribute('aria-selected', 'true');
  const raw = JSON.parse(await schemas.tabPanel().locator('pre').innerText()) as unknown;
  expect(raw).toEqual({ metadataKeys: SALES_KEYS.map(([name, propertyType]) => ({ name, propertyType, ...(name === 'dealNotes' && { skipIndexing: true }) })) });

  await page.keyboard.press('ArrowRight');
  await expect(schemas.tab('Response')).toBeFocused();
  await expect(schemas.meta('Request')).toHaveText('GET /rest/api/index/custom-metadata/schema/sales');
  await expect(schemas.meta('Status')).toHaveText('200');
  await expect(schemas.meta('Duration')).toHaveText(/^\d+ ms$/);
  await expect(schemas.meta('Request id')).toHaveText(/^\S{8,}$/);
  const header = (name: string) => schemas.responseHeaders().getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) });
  await expect(header('content-type')).toContainText('application/json');
  await expect(header('x-request-id')).toBeVisible();
  await expect(header('x-content-type-options')).toContainText('nosniff');

  await page.keyboard.press('ArrowRight');
  await expect(schemas.tab('Keys')).toBeFocused();
  await expect(schemas.keysTable('sales')).toBeVisible();
  await page.keyboard.press('ArrowLeft');
  await expect(schemas.tab('Response')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Home');
  await expect(schemas.tab('Keys')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('End');
  await expect(schemas.tab('Response')).toHaveAttribute('aria-selected', 'true');
  await expect(schemas.tab('Keys')).toHaveAttribute('tabindex', '-1');

  // Refetch asks the service again with the answer's ETag: the schema has not changed, so the
  // 304 costs no body and is shown as that request's own figures beside the answer it confirms.
  const firstId = await schemas.meta('Request id').innerText();
  const again = page.waitForResponse((r) => r.url().endsWith(schemaUrl('sales')));
  await schemas.refetch.click();
  expect((await again).status()).toBe(304);
  await expect(schemas.meta('Revalidated')).toHaveText(/^304 Not Modified \(If-None-Match with this answer’s ETag\) · \d+ ms · no body · \S{8,}$/);
  await expect(schemas.meta('Revalidated')).not.toContainText(firstId);
  await expect(schemas.meta('Request id')).toHaveText(firstId);
  await expect(schemas.freshness).toHaveText('Fetched just now');
});

test('rejects an invalid group name before sending, keeps what was typed, and offers recent groups', async ({ connection, schemas, page }) => {
  const schemaRequests: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/custom-metadata/schema/')) schemaRequests.push(r.url());
  });
  await schemas.open();
  await connection.setToken(TOKENS.global);

  await schemas.openGroup('sales team!');
  await expect(schemas.groupNameHint).toHaveText(
    'The group name "sales team!" has characters other than letters and digits. ' +
      'Rule: letters and digits only (A–Z, a–z, 0–9), 1 to 50 characters; case is ignored.',
  );
  await expect(schemas.groupName).toHaveAttribute('aria-invalid', 'true');
  await expect(schemas.groupName).toHaveValue('sales team!');
  await expect(page).toHaveURL(/\/schemas$/);

  await schemas.openGroup('a'.repeat(51));
  await expect(schemas.groupNameHint).toHaveText(/^The group name has 51 characters; at most 50 are allowed\. Rule: letters and digits only/);
  await expect(schemas.groupName).toHaveValue('a'.repeat(51));
  expect(schemaRequests).toEqual([]);

  // Fixing the name clears the message back to the rule.
  await schemas.groupName.fill('sales');
  await expect(schemas.groupNameHint).toHaveText(/^Rule: letters and digits only/);
  await schemas.openSchema.click();
  await expect(page).toHaveURL(/\/schemas\/sales$/);
  await schemas.expectKeys('sales', SALES_KEYS);

  await schemas.openGroup('hr');
  await expect(page).toHaveURL(/\/schemas\/hr$/);
  await expect(schemas.keysTable('hr')).toBeVisible();
  await expect(schemas.recent.getByRole('button')).toHaveText(['hr', 'sales']);

  // Recent groups survive a reload and open in one click.
  await page.reload();
  await expect(schemas.recent.getByRole('button')).toHaveText(['hr', 'sales']);
  await schemas.recent.getByRole('button', { name: 'sales', exact: true }).click();
  await expect(page).toHaveURL(/\/schemas\/sales$/);
  await expect(schemas.groupName).toHaveValue('sales');
  await expect(schemas.keysTable('sales')).toBeVisible();

  // A deep link with a bad name is explained, and not sent either.
  const before = schemaRequests.length;
  await schemas.open('sales-team');
  await expect(schemas.main.getByRole('alert')).toHaveText(/^“sales-team” is not a valid group name: .*characters other than letters and digits/);
  await expect(schemas.groupName).toHaveValue('sales-team');
  expect(schemaRequests.slice(before).filter((u) => u.includes('sales-team'))).toEqual([]);
});

test('explains a token refused with 401 and a group with no schema, and creates the missing schema from there', async ({
  connection,
  schemas,
  request,
}) => {
  await schemas.open('sales');
  // No token at all: the 401 says so, not that a token's scope is wrong.
  await expect(schemas.error('401 Unauthorized: no token was sent')).toContainText('Paste a token in the connection panel');
  // A pasted demo token states its scopes: the console warns first, and sends when asked.
  await connection.setToken(TOKENS.hr);
  await expect(schemas.scopeWarning).toContainText('A token for custommetadata:hr will be refused with 401 for group sales');
  await schemas.sendAnyway.click();
  const refused = schemas.error('401 Unauthorized: the token is not allowed to read group “sales”');
  await expect(refused).toContainText('This request needs custommetadata:sales or custommetadata:global_scope.');
  await expect(refused.getByText('Response details')).toBeVisible();
  await expect(schemas.keysTable('sales')).toBeHidden();

  await connection.setToken(TOKENS.global);
  await schemas.expectKeys('sales', SALES_KEYS);

  await schemas.openGroup('e2ecreated');
  const missing = schemas.noSchema('e2ecreated');
  await expect(missing).toBeVisible();
  await schemas.createSchemaFor('e2ecreated').click();
  await expect(schemas.editor()).toHaveAccessibleName('New schema for e2ecreated');
  await schemas.keyName(1).fill('stage');
  await schemas.keyType(1).selectOption('PICKLIST');
  await schemas.addKeyRow('owners', 'TEXTLIST');
  await schemas.reviewChanges.click();
  await expect(schemas.review('e2ecreated').getByRole('listitem')).toHaveText(['+ stage: PICKLIST', '+ owners: TEXTLIST']);
  await expect(schemas.saveSchema).toHaveText('Create schema');
  await schemas.saveSchema.click();

  await expect(schemas.notice()).toHaveText('Schema of e2ecreated created.');
  await expect(schemas.noticeBox()).toBeFocused();
  await expect(schemas.answerSummary(schemas.noticeBox())).toHaveText(/^Status 200 · \d+ ms · \d+ B$/);
  await schemas.expectKeys('e2ecreated', [
    ['stage', 'PICKLIST'],
    ['owners', 'TEXTLIST'],
  ]);
  const stored = await request.get(schemaUrl('e2ecreated'), { headers: GLOBAL });
  expect(await stored.json()).toEqual({ metadataKeys: [{ name: 'stage', propertyType: 'PICKLIST' }, { name: 'owners', propertyType: 'TEXTLIST' }] });
});

test('the editor validates keys, reviews the difference, and saving updates the viewer', async ({ connection, schemas, request }) => {
  await putSchema(request, 'e2eedit', [
    { name: 'status', propertyType: 'PICKLIST' },
    { name: 'notes', propertyType: 'TEXT' },
    { name: 'region', propertyType: 'PICKLIST' },
  ]);
  await schemas.open('e2eedit');
  await connection.setToken(TOKENS.global);
  await expect(schemas.keysTable('e2eedit')).toBeVisible();
  await schemas.editSchema.click();
  await expect(schemas.editor()).toHaveAccessibleName('Edit schema of e2eedit');
  await expect(schemas.keyName(1)).toHaveValue('status');
  await expect(schemas.keyType(3)).toHaveValue('PICKLIST');

  // Duplicate names ignoring case, and characters other than letters and digits, are refused before review.
  await schemas.addKeyRow('Status', 'MULTIPICKLIST');
  await expect(schemas.keyName(4)).toHaveAttribute('aria-invalid', 'true');
  await expect(schemas.keyName(4)).toHaveAccessibleDescription('Same name as key 1 (names are compared ignoring case).');
  await schemas.reviewChanges.click();
  await expect(schemas.review('e2eedit')).toBeHidden();
  await schemas.keyName(4).fill('deal-stage');
  await expect(schemas.keyName(4)).toHaveAccessibleDescription('The key name "deal-stage" has characters other than letters and digits.');
  await schemas.keyName(4).fill('dealStage');
  await expect(schemas.keyName(4)).toHaveAttribute('aria-invalid', 'false');

  // Edit: tick skipIndexing on notes, retype region, drop status.
  await schemas.keySkipIndexing(2).check();
  await schemas.keyType(3).selectOption('TEXT');
  await schemas.removeKey(1).click();
  await expect(schemas.keyName(1)).toHaveValue('notes');
  await schemas.reviewChanges.click();
  const review = schemas.review('e2eedit');
  await expect(review.getByRole('listitem')).toHaveText([
    '+ dealStage: MULTIPICKLIST',
    '~ notes: TEXT → notes: TEXT (skipIndexing)',
    '~ region: PICKLIST → region: TEXT',
    '− status: PICKLIST',
  ]);
  // Going back keeps every edit.
  await schemas.backToEditing.click();
  await expect(schemas.keyName(3)).toHaveValue('dealStage');
  await expect(schemas.keySkipIndexing(1)).toBeChecked();
  await schemas.reviewChanges.click();
  await schemas.saveSchema.click();

  await schemas.expectKeys('e2eedit', [
    ['notes', 'TEXT'],
    ['region', 'TEXT'],
    ['dealStage', 'MULTIPICKLIST'],
  ]);
  await expect(schemas.keyRow('e2eedit', 'notes')).toContainText('stored only (skipIndexing)');
  await expect(schemas.tab('Keys')).toHaveText('Keys (3)');
  const stored = await request.get(schemaUrl('e2eedit'), { headers: GLOBAL });
  expect(await stored.json()).toEqual({
    metadataKeys: [
      { name: 'notes', propertyType: 'TEXT', skipIndexing: true },
      { name: 'region', propertyType: 'TEXT' },
      { name: 'dealStage', propertyType: 'MULTIPICKLIST' },
    ],
  });
});

test('refuses more than 20 keys before review, even when the stored schema already has more', async ({ connection, schemas, page }) => {
  // The reference service never holds more than 20 keys; another instance might, so its answer is faked here.
  const wide = { metadataKeys: Array.from({ length: 21 }, (_, i) => ({ name: `k${i + 1}`, propertyType: 'TEXT' })) };
  await page.route('**/rest/api/index/custom-metadata/schema/e2ewide', (route) =>
    route.request().method() === 'GET' ? route.fulfill({ json: wide }) : route.abort(),
  );
  const writes: string[] = [];
  page.on('request', (r) => {
    if (r.method() !== 'GET' && r.url().includes('/custom-metadata/')) writes.push(`${r.method()} ${r.url()}`);
  });
  await schemas.open('e2ewide');
  await connection.setToken(TOKENS.global);
  await expect(schemas.tab('Keys')).toHaveText('Keys (21)');
  await schemas.editSchema.click();

  const rows = schemas.editor().locator('tbody tr');
  await expect(rows).toHaveCount(21);
  await expect(schemas.addKey).toBeDisabled();
  await schemas.reviewChanges.click();
  await expect(schemas.editor().getByRole('alert')).toHaveText('A group has at most 20 keys; remove 1.');
  await expect(schemas.review('e2ewide')).toBeHidden();

  await schemas.removeKey(21).click();
  await expect(rows).toHaveCount(20);
  await expect(schemas.addKey).toBeDisabled();
  await schemas.reviewChanges.click();
  await expect(schemas.review('e2ewide').getByRole('listitem')).toHaveText(['− k21: TEXT']);
  expect(writes).toEqual([]);
});

test('explains a 409 when changing the type of a key documents carry values for, and keeps the edits', async ({ connection, schemas, request }) => {
  await schemas.open('sales');
  await connection.setToken(TOKENS.global);
  await expect(schemas.keysTable('sales')).toBeVisible();
  await schemas.editSchema.click();
  await schemas.keyType(1).selectOption('TEXT');
  await schemas.addKeyRow('quarter', 'PICKLIST');
  await schemas.reviewChanges.click();
  const review = schemas.review('sales');
  await expect(review.getByRole('listitem')).toHaveText(['+ quarter: PICKLIST', '~ status: PICKLIST → status: TEXT']);
  await schemas.saveSchema.click();

  const saveStatus = review.getByRole('status').filter({ hasText: '409' });
  await expect(saveStatus).toContainText('409 Conflict:');
  await expect(saveStatus).toContainText('The stored schema is unchanged and your edits are kept.');
  // The remedy is said once, by the service.
  await expect(saveStatus).toHaveText(/^409 Conflict: Documents carry values for "status"; their propertyType cannot change\. Remove those values first, or add a new key\. The stored schema is unchanged and your edits are kept\.$/);
  await schemas.backToEditing.click();
  await expect(schemas.keyType(1)).toHaveValue('TEXT');
  await expect(schemas.keyName(5)).toHaveValue('quarter');

  const stored = await request.get(schemaUrl('sales'), { headers: GLOBAL });
  expect(((await stored.json()) as { metadataKeys: unknown[] }).metadataKeys).toContainEqual({ name: 'status', propertyType: 'PICKLIST' });
  await schemas.editor().getByRole('button', { name: 'Cancel' }).click();
  await schemas.expectKeys('sales', SALES_KEYS);
});

test('deletes a schema after an inline confirmation, which then answers 404', async ({ connection, schemas, request }) => {
  await putSchema(request, 'e2edelete', [{ name: 'topic', propertyType: 'TEXT' }]);
  await schemas.open('e2edelete');
  await connection.setToken(TOKENS.global);
  await expect(schemas.keysTable('e2edelete')).toBeVisible();

  await schemas.deleteSchema.click();
  await expect(schemas.confirmDeletion).toContainText('Delete the schema of e2edelete? Values already on documents are kept.');
  await schemas.confirmDeletion.getByRole('button', { name: 'Cancel' }).click();
  await expect(schemas.confirmDeletion).toBeHidden();
  expect((await request.get(schemaUrl('e2edelete'), { headers: GLOBAL })).status()).toBe(200);

  await schemas.deleteSchema.click();
  await schemas.confirmDeletion.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(schemas.noSchema('e2edelete')).toBeVisible();
  await expect(schemas.notice()).toHaveText('Schema of e2edelete deleted.');
  await expect(schemas.noticeBox()).toBeFocused();
  await expect(schemas.answerSummary(schemas.noSchema('e2edelete'))).toHaveText(/^Status 404 · \d+ ms · \d+ B$/);
  await expect(schemas.main.getByText(/Fetched .*\(stale\)/)).toBeHidden();
  await expect(schemas.keysTable('e2edelete')).toBeHidden();
  expect((await request.get(schemaUrl('e2edelete'), { headers: GLOBAL })).status()).toBe(404);
});

test('sets and removes document values, which decides whether a later type change is refused with 409', async ({ connection, schemas, request }) => {
  const keys = [
    { name: 'stage', propertyType: 'PICKLIST' },
    { name: 'labels', propertyType: 'MULTIPICKLIST' },
  ];
  await putSchema(request, 'e2edocs', keys);
  const retypeStage = () =>
    request.put(schemaUrl('e2edocs'), { headers: GLOBAL, data: { metadataKeys: [{ name: 'stage', propertyType: 'TEXT' }, keys[1]] } });

  await schemas.open('e2edocs');
  await connection.setToken(TOKENS.global);
  const form = schemas.documentValues('e2edocs');
  await expect(form).toBeVisible();

  // Client checks first: a document id, and at least one value.
  await form.getByRole('button', { name: 'Set values' }).click();
  await expect(form.getByLabel('Document id')).toHaveAccessibleDescription('The document id is empty.');
  await form.getByLabel('Document id').fill('DOC-E2E-1');
  await form.getByRole('button', { name: 'Set values' }).click();
  await expect(form.getByText('Enter at least one value.')).toBeVisible();

  await schemas.documentField('e2edocs', 'stage').fill('draft');
  await schemas.documentField('e2edocs', 'labels').fill('alpha\nbeta');
  await form.getByRole('button', { name: 'Set values' }).click();
  await expect(form.getByRole('status')).toHaveText('Values set on DOC-E2E-1.');
  await expect(schemas.answerSummary(form)).toHaveText(/^Status 200 · \d+ ms · \d+ B$/);
  expect((await retypeStage()).status()).toBe(409);

  await form.getByRole('button', { name: 'Remove all values' }).click();
  await expect(form.getByRole('status')).toHaveText('All e2edocs values removed from DOC-E2E-1.');
  await expect(schemas.answerSummary(form)).toHaveText(/^Status 200 · \d+ ms · \d+ B$/);
  expect((await retypeStage()).status()).toBe(200);
});

test('switching profile never shows the schema another token fetched', async ({ connection, schemas, shell, page }) => {
  await connection.open();
  await connection.profileName.fill('Global');
  await connection.setToken(TOKENS.global);
  await connection.createProfile({ name: 'HR team', token: TOKENS.hr });
  await connection.switchTo('Global');
  await shell.go('Schemas');
  await schemas.openGroup('sales');
  await schemas.expectKeys('sales', SALES_KEYS);

  // Watch every change of the page: the keys must never be on screen while HR team is the profile.
  await page.evaluate(`(() => {
    window.__keysUnderOtherProfile = 0;
    const check = () => {
      const profile = document.querySelector('aside select option:checked');
      if (profile && profile.textContent === 'HR team' && document.querySelector('main table.keys')) window.__keysUnderOtherProfile++;
    };
    new MutationObserver(check).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  })()`);
  await connection.switchTo('HR team');
  await expect(schemas.scopeWarning).toBeVisible();
  await schemas.sendAnyway.click();
  await expect(schemas.error(/^401 Unauthorized/)).toBeVisible();
  await expect(schemas.keysTable('sales')).toBeHidden();
  await expect(schemas.editSchema).toBeHidden();
  expect(await page.evaluate<number>('window.__keysUnderOtherProfile')).toBe(0);

  // Back on the global profile, its own answer shows again.
  await connection.switchTo('Global');
  await schemas.expectKeys('sales', SALES_KEYS);
});

test('explains a network or CORS failure of a direct connection', async ({ connection, schemas, shell }) => {
  await connection.open();
  await connection.createProfile({ name: 'Nowhere', mode: 'direct', target: 'http://127.0.0.1:9', token: TOKENS.global });
  await shell.go('Schemas');
  await schemas.openGroup('sales');
  const failure = schemas.error('Network or CORS failure');
  await expect(failure).toContainText('The browser got no answer from http://127.0.0.1:9/rest/api/index/custom-metadata/schema/sales.');
  await expect(failure).toContainText('does not allow this page\'s origin');
  await expect(failure).toContainText('--upstream');
  await expect(schemas.groupName).toHaveValue('sales');
});

test('sends nothing, not even to this origin, while a direct profile has no valid instance URL', async ({ connection, schemas, shell, page }) => {
  await connection.open();
  await connection.createProfile({ name: 'Unfinished', mode: 'direct', target: 'not a url', token: TOKENS.global });
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/rest/api/')) sent.push(r.url());
  });
  await shell.go('Schemas');
  await schemas.openGroup('sales');
  await expect(schemas.error('Connection not set up')).toContainText('has no valid instance URL yet');
  expect(sent).toEqual([]);
});

test('explains a 429 from an upstream with its Retry-After', async ({ connection, schemas, shell, page, request }) => {
  // A fresh token on the upstream, so its per-token rate limit starts from zero.
  const minted = await request.post(`${UPSTREAM_ORIGIN}/sandbox/tokens`, { data: { scopes: ['custommetadata:sales'], label: 'e2e 429' } });
  expect(minted.status()).toBe(201);
  const { token } = (await minted.json()) as { token: string };

  await connection.open();
  await connection.createProfile({ name: 'Upstream, limited', mode: 'proxy', token });
  await shell.go('Schemas');
  await schemas.openGroup('sales');
  await schemas.expectKeys('sales', SALES_KEYS);

  // The first GET counted; a few refetches reach the limit.
  const tooMany = schemas.error('429 Too many requests');
  for (let i = 0; i < UPSTREAM_RATE_LIMIT; i++) {
    const answer = page.waitForResponse((r) => r.url().endsWith('/rest/api/index/custom-metadata/schema/sales'));
    await schemas.refetch.click();
    if ((await answer).status() === 429) break;
  }
  await expect(tooMany).toBeVisible();
  await expect(tooMany).toContainText(/The service asks to wait \d+ s \(Retry-After\)\./);
  await expect(tooMany.getByRole('button', { name: /^Retry in \d+ s$/ })).toBeDisabled();
  await tooMany.getByText('Response details').click();
  await expect(tooMany.getByRole('table', { name: 'Response headers' }).getByRole('row').filter({ hasText: 'retry-after' })).toBeVisible();
  await expect(schemas.keysTable('sales')).toBeHidden();
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`the schema pages pass an accessibility scan in the ${colorScheme} color scheme`, async ({ connection, schemas, shell, page }) => {
    // Seven full axe scans: room for a busy machine.
    test.setTimeout(60_000);
    await page.emulateMedia({ colorScheme });
    await schemas.open();
    await connection.setToken(TOKENS.global);
    await shell.expectNoAxeViolations();

    await schemas.openGroup('sales');
    await expect(schemas.keysTable('sales')).toBeVisible();
    await shell.expectNoAxeViolations();
    for (const tab of ['Raw JSON', 'Response'] as const) {
      await schemas.tab(tab).click();
      await expect(schemas.tab(tab)).toHaveAttribute('aria-selected', 'true');
      await shell.expectNoAxeViolations();
    }

    await schemas.editSchema.click();
    await schemas.addKeyRow('bad-name');
    await expect(schemas.keyName(5)).toHaveAttribute('aria-invalid', 'true');
    await shell.expectNoAxeViolations();
    await schemas.keyName(5).fill('fine');
    await schemas.keyType(1).selectOption('TEXT');
    await schemas.removeKey(4).click();
    await schemas.reviewChanges.click();
    await expect(schemas.review('sales').getByRole('listitem')).toHaveCount(3);
    await shell.expectNoAxeViolations();

    await schemas.openGroup('nosuchgroup');
    await expect(schemas.noSchema('nosuchgroup')).toBeVisible();
    await shell.expectNoAxeViolations();
  });
}
