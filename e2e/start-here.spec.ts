import { expect, test } from './fixtures';

test('a first visit shows how to start; one click uses a demo token, which the service is asked to accept; copy confirms', async ({ page, connection, runs, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto('/connection');
  const start = page.getByRole('region', { name: 'Start here' });
  await expect(start).toContainText('Agent runs needs agents.run');
  await start.getByRole('button', { name: 'Use “Demo: agents”' }).click();
  await expect(start).toBeHidden();
  // The list (and the button pressed) went away: focus is on what replaced it.
  await expect(page.getByRole('region', { name: 'Using “Demo: agents”' })).toBeFocused();
  await expect(connection.panel.getByRole('status', { name: 'Token check' })).toHaveText('Token accepted. It can run agents.');
  await expect(connection.scopes).toHaveValue('agents.run');

  // A token the service does not know is told apart from one lacking a scope.
  await connection.setToken('sandbox-not-a-real-token');
  await expect(connection.panel.getByRole('status', { name: 'Token check' })).toContainText('does not accept this token (401)');
  await connection.setToken('sandbox-global-3f9c2a7d41e8b605');
  await expect(connection.panel.getByRole('status', { name: 'Token check' })).toContainText('It cannot run agents');
  // Pasted by hand, a demo token fills in its scopes too.
  await expect(connection.scopes).toHaveValue('custommetadata:global_scope');

  await connection.setToken('sandbox-agents-1d6f3b9e0a7c2548');
  await page.goto('/runs/echo-assistant');
  await runs.writeMessage('Copy me');
  await runs.startRun();
  await expect(runs.status).toHaveText('Done');
  await runs.output.getByRole('button', { name: 'Copy transcript' }).click();
  await expect(runs.output.getByRole('status').filter({ hasText: 'Copied.' })).toBeVisible();
  expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(await runs.transcript.textContent());
});
