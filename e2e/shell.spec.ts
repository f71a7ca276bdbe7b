import { expect, test } from './fixtures';

test('opens on the connection page, reaches the bundled service, and navigates by keyboard', async ({ shell, page }) => {
  await shell.open('/');
  await expect(page).toHaveURL(/\/connection$/);
  // The connection panel beside every page has its own "Connection" heading and its own status.
  await expect(page.getByRole('heading', { name: 'Connection', level: 1 })).toBeVisible();
  await expect(page.getByRole('main').getByRole('status').first()).toHaveText(
    // Counts, not fixed numbers: other specs add groups to the same throw-away service.
    /^Reference service reachable: \d+ metadata groups, \d+ scripted agents\.$/,
  );
  await shell.expectNoAxeViolations();

  // Keyboard only: the skip link first, then the navigation links in order.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(shell.nav().getByRole('link', { name: 'Schemas' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/schemas$/);
  await expect(page.getByRole('heading', { name: 'Schemas' })).toBeVisible();
  await shell.expectNoAxeViolations();

  await shell.go('Agent runs');
  await expect(page).toHaveURL(/\/runs$/);
  await expect(page.getByRole('heading', { name: 'Agent runs' })).toBeVisible();
  await shell.expectNoAxeViolations();
});

test('serves deep links to the console and API paths to the service on one origin', async ({ page, request }) => {
  await page.goto('/schemas/sales');
  await expect(page.getByRole('heading', { name: 'Schemas' })).toBeVisible();
  const api = await request.get('/rest/api/index/custom-metadata/schema/sales', {
    headers: { Authorization: 'Bearer sandbox-sales-8b1e6d0c93a2f457' },
  });
  expect(api.status()).toBe(200);
  expect(await api.json()).toMatchObject({ metadataKeys: expect.arrayContaining([{ name: 'status', propertyType: 'PICKLIST' }]) });
});
