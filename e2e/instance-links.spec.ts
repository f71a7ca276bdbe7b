import { expect, test } from './fixtures';
import { AGENT_TOKENS } from './pages/runs';

/**
 * A link an instance sends (a problem's `documentation_url`, a failed run's) is opened from
 * the console only when it is an http or https address. These instances are faked: the
 * reference service only ever sends https links.
 */

test.beforeEach(async ({ runs, connection }) => {
  await runs.open();
  await connection.setToken(AGENT_TOKENS.agents);
});

test('a run that fails with a javascript: documentation link shows the address as text, not a link to click', async ({ runs, page }) => {
  const failed = {
    error: { type: 'https://x.example/e', title: 'Spend Limit Exceeded', status: 403, detail: 'Over the limit.', code: 'spend_limit_exceeded', request_id: 'req_1', documentation_url: 'javascript:alert(document.domain)' },
  };
  await page.route('**/api/agents/flaky-reporter/runs', (route) =>
    route.fulfill({
      status: 200,
      headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' },
      body: `id: 1\nevent: run.failed\ndata: ${JSON.stringify(failed)}\n\n`,
    }),
  );
  await runs.chooseAgent('Flaky Reporter');
  await runs.writeMessage('The report');
  await runs.startRun();
  await expect(runs.status).toHaveText('Failed');
  await expect(runs.failure.getByRole('heading')).toHaveText('Run failed: Spend Limit Exceeded');
  await expect(runs.failure).toContainText('Documentation for this error: javascript:alert(document.domain) (not a web link');
  await expect(runs.failure.getByRole('link')).toHaveCount(0);
});

test('a refusal whose documentation link is a phishing ftp: address does not offer it as documentation to open', async ({ runs, page }) => {
  await page.route('**/api/agents/echo-assistant/runs', (route) =>
    route.fulfill({
      status: 404,
      contentType: 'application/problem+json',
      json: { type: 'https://x.example/e', title: 'Resource Not Found', status: 404, detail: 'No such agent.', code: 'resource_not_found', request_id: 'req_2', documentation_url: 'ftp://login-glean.example/reset' },
    }),
  );
  await runs.chooseAgent('Echo Assistant');
  await runs.writeMessage('Hello');
  await runs.run.click();
  const refused = runs.refusal(/^404 /);
  await expect(refused).toContainText('Documentation for this error: ftp://login-glean.example/reset (not a web link');
  await expect(refused.getByRole('link', { name: 'Documentation for this error' })).toHaveCount(0);
});

test('the reference service’s own https documentation links stay links', async ({ runs }) => {
  await runs.chooseAgent('Flaky Reporter');
  await runs.writeMessage('The report');
  await runs.startRun();
  await expect(runs.status).toHaveText('Failed');
  await expect(runs.failure.getByRole('link', { name: 'Documentation for this error' })).toHaveAttribute('href', /^https:\/\/developers\.glean\.com\/errors\//);
});
