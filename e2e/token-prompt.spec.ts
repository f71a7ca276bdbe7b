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

test('"Use another token" on a refused run offers another profile or a new one before replacing the token, and passes an accessibility scan', async ({ page, request, shell }) => {
  const id = await startDurableRun(request);
  await page.goto(`/runs/expense-filer/${id}`);
  // A token that may run agents but did not start this run.
  await new TokenPrompt(page).demo('Demo: global metadata and agents').click();
  const main = page.getByRole('main');
  await main.getByRole('alert').getByRole('button', { name: 'Use another token' }).click();
  const another = main.getByRole('region', { name: 'Another token for this page' });
  await expect(another.getByRole('heading', { level: 2 })).toHaveText(['Switch to another profile', 'Make a new profile with another token', 'Replace this profile’s token']);
  await shell.expectNoAxeViolations();

  const fresh = another.getByRole('region', { name: 'Make a new profile with another token' });
  await fresh.getByRole('button', { name: 'New profile with “Demo: agents”' }).click();
  await new DurableRunPage(page).expectState('Waiting for your approval');
  const stored = await shell.storage();
  // The refused profile keeps its token; the new one has its own.
  expect(stored.session['mac.token.reference']).toBe(JSON.stringify(AGENT_TOKENS.everything));
  const order = JSON.parse(stored.local['mac.profileOrder']!) as string[];
  expect(order.map((id) => (JSON.parse(stored.local[`mac.profile.${id}`]!) as { label: string }).label)).toEqual(['Reference service', 'Demo: agents']);
  const activeId = JSON.parse(stored.session['mac.activeProfile']!) as string;
  expect(activeId).toBe(order[1]);
  expect(stored.session[`mac.token.${activeId}`]).toBe(JSON.stringify(AGENT_TOKENS.agents));
});
