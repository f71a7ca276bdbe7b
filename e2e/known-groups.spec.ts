import { expect, test } from './fixtures';
import { TOKENS } from './pages/connection';

test('the Schemas page lists the groups it knows, with how each last answered, filterable, each a link; a group opened by address is recent', async ({ page, connection, schemas }) => {
  await schemas.open();
  await connection.setToken(TOKENS.sales);
  const known = page.getByRole('region', { name: 'Known groups' });
  const list = known.getByRole('list', { name: 'Known groups' });
  // The service is shared by the suite: other tests add groups; the seeded ones are there.
  for (const g of ['engineering', 'hr', 'sales']) await expect(list.getByRole('listitem').filter({ hasText: new RegExp(`^${g} `) })).toHaveText(`${g} · on the bundled service`);

  // Opened with this token: sales answers, hr is refused; both are remembered with the outcome.
  await page.goto('/schemas/sales');
  await expect(schemas.keysTable('sales')).toBeVisible();
  await expect(page).toHaveTitle('Schemas · sales — Metadata & Agents Console');
  await expect(page.getByRole('navigation', { name: 'Recent groups' }).getByRole('button', { name: 'sales' })).toBeVisible();
  await page.goto('/schemas/hr');
  // The pasted demo token stated its scope (custommetadata:sales): warned first, sent when asked.
  await schemas.sendAnyway.click();
  await expect(schemas.error(/^401 Unauthorized/)).toBeVisible();
  // The connection panel says the group refused this token: then it is kept.
  await expect(page.getByRole('group', { name: 'Groups seen with this profile' })).toContainText('Refused (401): hr');
  await page.goto('/schemas');
  await expect(list.getByRole('listitem').filter({ hasText: /^sales / })).toHaveText('sales · on the bundled service · last answered');
  await expect(list.getByRole('listitem').filter({ hasText: /^hr / })).toHaveText('hr · on the bundled service · last refused (401)');

  await known.getByLabel('Filter groups').fill('engin');
  await expect(list.getByRole('listitem')).toHaveText(['engineering · on the bundled service']);
  await list.getByRole('link', { name: 'engineering' }).click();
  await expect(page).toHaveURL(/\/schemas\/engineering$/);

  // A new token starts with no outcomes: what the old one was answered is not kept.
  await connection.setToken(TOKENS.global);
  await page.goto('/schemas');
  await expect(list.getByRole('listitem').filter({ hasText: /^hr / })).toHaveText('hr · on the bundled service');
});
