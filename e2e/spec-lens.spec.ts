import { expect, test } from './fixtures';
import { TOKENS } from './pages/connection';

/**
 * The spec lens in the built console: the vendored spec and Ajv load lazily under the page's
 * CSP, and the badge says whether an answer matches the public schema of its operation.
 */

for (const colorScheme of ['light', 'dark'] as const) {
  test(`a schema answer matches the public schema; expanded, the badge passes an accessibility scan (${colorScheme})`, async ({ connection, schemas, shell, page }) => {
    test.setTimeout(60_000);
    await page.emulateMedia({ colorScheme });
    await schemas.open('sales');
    await connection.setToken(TOKENS.global);
    await expect(schemas.keysTable('sales')).toBeVisible();
    const badge = schemas.main.getByRole('button', { name: 'matches the public schema' });
    await expect(badge).toHaveAttribute('aria-expanded', 'false');
    await badge.click();
    await expect(badge).toHaveAttribute('aria-expanded', 'true');
    await expect(schemas.main.getByText('Checked against GET /rest/api/index/custom-metadata/schema/{groupName} → 200 application/json, schema CustomMetadataSchema (indexing.json).')).toBeVisible();
    await shell.expectNoAxeViolations();
  });
}

test('an instance answering what the documentation does not promise gets each difference by pointer', async ({ connection, schemas, shell, page }) => {
  // Another instance's answer, faked: a key's type outside the documented enum, and a field the spec does not have.
  const odd = { metadataKeys: [{ name: 'region', propertyType: 'COUNTRY' }], revision: 7 };
  await page.route('**/rest/api/index/custom-metadata/schema/e2eodd', (route) => route.fulfill({ json: odd }));
  await page.emulateMedia({ colorScheme: 'dark' });
  await schemas.open('e2eodd');
  await connection.setToken(TOKENS.global);
  const badge = schemas.main.getByRole('button', { name: '1 difference · 1 undocumented field' });
  await badge.click();
  const list = schemas.main.getByRole('list', { name: 'Differences from the public schema' });
  await expect(list.getByRole('listitem')).toHaveText([
    '/metadataKeys/0/propertyType The documentation allows only "TEXT", "DATE", "INT", "USERID", "PICKLIST", "TEXTLIST", "MULTIPICKLIST"; the answer has "COUNTRY".',
    '/revision note “revision” is not in the public schema: the documentation does not describe it.',
  ]);
  await shell.expectNoAxeViolations();
});

test('an error answer is checked against the documented error body', async ({ connection, schemas }) => {
  await schemas.open('sales');
  await connection.setToken(TOKENS.hr);
  await schemas.sendAnyway.click();
  const refused = schemas.error('401 Unauthorized: the token is not allowed to read group “sales”');
  // Inside an error, a match is told neutrally: no green "matches" in a red box.
  await refused.getByRole('button', { name: 'error body as documented' }).click();
  await expect(refused.getByRole('button', { name: /matches/ })).toHaveCount(0);
  await expect(refused.getByText(/Checked against GET .* → 401 application\/json, schema ErrorInfoResponse \(indexing\.json\)\./)).toBeVisible();
});
