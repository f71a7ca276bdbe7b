import type { APIRequestContext } from '@playwright/test';
import { expect, test } from './fixtures';
import { TokenPrompt } from './pages/connection';
import { DurableRunPage } from './pages/durable';
import { AGENT_TOKENS } from './pages/runs';

/** Starts a durable run of expense-filer through the API (it pauses for an approval) and gives its id. */
async function startDurableRun(request: APIRequestContext): Promise<string> {
  const res = await request.post('/api/agents/expense-filer/runs', {
    headers: { Authorization: `Bearer ${AGENT_TOKENS.agents}` },
    data: { execution_mode: 'DURABLE', messages: [{ role: 'USER', content: [{ type: 'text', text: 'File my expenses' }] }] },
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { run: { run_id: string } }).run.run_id;
}

// Each test's page is a fresh browser context: no profile, no token, as a link opened in a new browser.
test('a durable run’s address opened without a token asks for one; the demo token opens the run', async ({ page, request, shell }) => {
  const id = await startDurableRun(request);
  await page.goto(`/runs/expense-filer/${id}`);
  const prompt = new TokenPrompt(page);
  await expect(prompt.region).toContainText('A durable run can be read only with the token that started it.');
  await expect(prompt.remember).not.toBeChecked();
  await expect(page.getByRole('main').getByRole('alert')).toHaveCount(0);
  await shell.expectNoAxeViolations();

  await prompt.demo('Demo: agents').click();
  const run = new DurableRunPage(page);
  await expect(run.heading).toContainText(id);
  await run.expectState('Waiting for your approval');
  await expect(prompt.region).toBeHidden();
});

test('a token pasted in the prompt and remembered on this device opens the run in the next tab without asking', async ({ page, context, request, shell }) => {
  const id = await startDurableRun(request);
  await page.goto(`/runs/expense-filer/${id}`);
  const prompt = new TokenPrompt(page);
  await prompt.use.click();
  await expect(prompt.region.getByText('Paste a token first.')).toBeVisible();
  await prompt.token.fill(AGENT_TOKENS.agents);
  await prompt.remember.check();
  await prompt.use.click();
  await new DurableRunPage(page).expectState('Waiting for your approval');
  const stored = await shell.storage();
  expect(stored.local['mac.token.reference']).toBe(JSON.stringify(AGENT_TOKENS.agents));

  const tab = await context.newPage();
  await tab.goto(`/runs/expense-filer/${id}`);
  await new DurableRunPage(tab).expectState('Waiting for your approval');
  await expect(new TokenPrompt(tab).region).toHaveCount(0);
});
