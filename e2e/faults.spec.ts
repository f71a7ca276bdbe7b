import { expect, test } from './fixtures';
import { AGENT_TOKENS } from './pages/runs';

test('a fault injected in the run options: the stream breaks after 3 events, the run says so, and history and Run again keep the fault', async ({ runs, connection, shell }) => {
  await runs.open();
  await connection.setToken(AGENT_TOKENS.agents);
  await runs.chooseAgent('Firehose');
  await runs.field('Events').fill('50');

  const faults = runs.main.getByRole('group', { name: 'Inject a fault (reference service)' });
  await runs.main.getByText('Inject a fault (reference service)').click();
  const dropAfter = faults.getByLabel('Drop the stream after N events');
  await dropAfter.fill('3');
  const request = runs.main.getByRole('region', { name: 'Request', exact: true });
  await expect(request.getByText('X-Sandbox-Fault: drop-after=3', { exact: true })).toBeVisible();
  await shell.expectNoAxeViolations();

  // A value the service would refuse says why, and nothing can be sent.
  const status = faults.getByLabel('Answer with error status');
  await status.fill('200');
  await expect(faults.getByRole('alert')).toHaveText('Answer with error status: an HTTP error status from 400 to 599, in plain digits; not "200".');
  await expect(status).toHaveAttribute('aria-invalid', 'true');
  await expect(runs.run).toBeDisabled();
  await status.fill('');

  const post = runs.nextRunPost();
  await runs.run.click();
  expect(await (await post).headerValue('x-sandbox-fault')).toBe('drop-after=3');
  await expect(runs.status).toHaveText('Interrupted');
  await expect(runs.eventCount).toHaveAttribute('data-count', '3');
  await expect(runs.output.locator('.run-identity')).toContainText('with fault drop-after=3');

  // The fault is part of the run's record: history shows it, and Run again brings it back.
  await faults.getByRole('button', { name: 'No fault' }).click();
  await expect(dropAfter).toHaveValue('');
  const entry = runs.historyItem(1);
  await entry.getByRole('button', { name: 'View' }).click();
  await expect(entry.getByText('X-Sandbox-Fault: drop-after=3', { exact: true })).toBeVisible();
  await entry.getByRole('button', { name: 'Run again…' }).click();
  await expect(dropAfter).toHaveValue('3');
  await expect(request.getByText('X-Sandbox-Fault: drop-after=3', { exact: true })).toBeVisible();
});
