import type { Request } from '@playwright/test';
import { expect, test } from './fixtures';
import { DurableRunPage } from './pages/durable';
import { AGENT_TOKENS } from './pages/runs';
import { DURABLE_PORT } from './servers';

const isDecision = (r: Request) => r.method() === 'POST' && /\/api\/agents\/[^/]+\/responses$/.test(new URL(r.url()).pathname);
const isCancellation = (r: Request) => r.method() === 'POST' && /\/api\/agents\/[^/]+\/cancellations$/.test(new URL(r.url()).pathname);

test.beforeEach(async ({ runs, connection }) => {
  await runs.open();
  await connection.setToken(AGENT_TOKENS.agents);
});

async function startDurable(runs: import('./pages/runs').RunsPage, agent: string, message = 'Please go ahead') {
  await runs.chooseAgent(agent);
  await runs.answerBy('durable');
  await runs.writeMessage(message);
  const post = runs.nextRunPost();
  await runs.run.click();
  expect((await post).postDataJSON()).toEqual({ messages: [{ role: 'USER', content: [{ type: 'text', text: message }] }], execution_mode: 'DURABLE' });
  await expect(runs.page).toHaveURL(/\/runs\/[^/]+\/[^/]+$/);
  return new DurableRunPage(runs.page);
}

test('a durable run is POSTed once and followed by reading it: a reload shows the same run; Cancel ends it on the service', async ({ runs, page }) => {
  const postsBefore = (await runs.servicePosts()).length;
  const run = await startDurable(runs, 'Long Runner');
  const id = run.runId();
  await expect(run.heading).toContainText(id);
  await run.expectState('Running');
  await expect(run.expiresIn).toBeVisible();
  await expect(run.transcript).not.toHaveText('No messages yet.', { timeout: 10_000 });

  await page.reload();
  await expect(run.heading).toContainText(id);
  await run.expectState('Running');
  await expect(page).toHaveTitle(`Run ${id} · long-runner — Metadata & Agents Console`);
  const posts = (await runs.servicePosts()).slice(postsBefore);
  expect(posts.map((p) => p.path)).toEqual(['/api/agents/long-runner/runs']);

  // History keeps the run with its id, a link back here.
  await page.goto('/runs/long-runner');
  await runs.history.getByRole('link', { name: id }).click();
  await expect(run.heading).toContainText(id);

  const cancels: Request[] = [];
  page.on('request', (r) => isCancellation(r) && cancels.push(r));
  await run.cancel.click();
  await run.confirmCancel.click();
  await run.expectState('Cancelled');
  expect(cancels).toHaveLength(1);
  await expect(run.statesSeen).toContainText('Cancelled');
  expect((await runs.servicePosts()).slice(postsBefore).map((p) => p.path)).toEqual(['/api/agents/long-runner/runs']);
});

test('approving a tool call resumes the same run, which finishes with the approved outcome; one POST per click', async ({ runs, page, shell }) => {
  const run = await startDurable(runs, 'Expense Filer');
  const id = run.runId();
  await run.expectState('Waiting for your approval');
  const card = run.tool('Submit expense report');
  await expect(card).toContainText('Files the expense report in the finance system');
  await expect(card.getByLabel('Arguments of Submit expense report')).toContainText('"report_id": "EXP-1042"');
  await expect(card).toContainText(/This request expires in \d+ h/);
  await expect(run.submit).toBeDisabled();
  await shell.expectNoAxeViolations();

  const decisions: Request[] = [];
  page.on('request', (r) => isDecision(r) && decisions.push(r));
  await run.decide('Submit expense report', 'Approve');
  await run.submit.click();
  await run.expectState('Succeeded');
  expect(decisions).toHaveLength(1);
  const sent = decisions[0]!.postDataJSON() as { run_id: string; responses: { interaction_id: string; decision: string }[] };
  expect(sent.run_id).toBe(id);
  expect(sent.responses.map((r) => r.decision)).toEqual(['APPROVE']);
  await expect(run.heading).toContainText(id);
  await expect(run.transcript).toContainText('The finance system accepted EXP-1042');
});

test('rejecting a tool call finishes the run the rejected way', async ({ runs }) => {
  const run = await startDurable(runs, 'Expense Filer');
  await run.expectState('Waiting for your approval');
  await run.decide('Submit expense report', 'Reject');
  await run.submit.click();
  await run.expectState('Succeeded');
  await expect(run.transcript).toContainText('Rejected: EXP-1042 was not submitted');
  await expect(run.transcript).not.toContainText('finance system accepted');
});

test('two approvals in one batch: Submit waits for both decisions and sends them together', async ({ runs, page }) => {
  const run = await startDurable(runs, 'Trip Planner');
  await run.expectState('Waiting for your approval');
  await expect(run.approvals.getByRole('listitem')).toHaveCount(2);
  await run.decide('Book flight', 'Approve');
  await expect(run.submit).toBeDisabled();
  await expect(run.approvals).toContainText('One request still needs a decision.');
  await run.decide('Book hotel', 'Reject');
  const decisions: Request[] = [];
  page.on('request', (r) => isDecision(r) && decisions.push(r));
  await run.submit.click();
  await run.expectState('Succeeded');
  expect(decisions).toHaveLength(1);
  expect((decisions[0]!.postDataJSON() as { responses: { decision: string }[] }).responses.map((r) => r.decision).sort()).toEqual(['APPROVE', 'REJECT']);
  await expect(run.transcript).toContainText('Flight LH 2033 booked');
  await expect(run.transcript).toContainText('Hotel not reserved, as you asked.');
});

test('a paused run can be cancelled; a stale decision answers 409, explained, and the run is read again', async ({ runs, page }) => {
  const run = await startDurable(runs, 'Expense Filer');
  await run.expectState('Waiting for your approval');
  const id = run.runId();

  // Someone else (here: the API directly) decides first; this page still shows the old request.
  const interaction = await page.request.get(`/api/agents/expense-filer/runs/${id}`, { headers: { Authorization: `Bearer ${AGENT_TOKENS.agents}` } });
  const pending = ((await interaction.json()) as { run: { pending_interactions: { interaction_id: string }[] } }).run.pending_interactions;
  const decided = await page.request.post('/api/agents/expense-filer/responses', {
    headers: { Authorization: `Bearer ${AGENT_TOKENS.agents}` },
    data: { run_id: id, responses: [{ interaction_id: pending[0]!.interaction_id, decision: 'REJECT' }] },
  });
  expect(decided.status()).toBe(200);
  await run.decide('Submit expense report', 'Approve');
  await run.submit.click();
  await expect(run.main.getByRole('alert').filter({ hasText: '409 Conflict' })).toContainText('The run has moved on since this page read it');
  await run.expectState('Succeeded');
  await expect(run.transcript).toContainText('Rejected: EXP-1042 was not submitted');

  // A second run, cancelled while it waits for approval.
  await page.goto('/runs/expense-filer');
  const second = await startDurable(runs, 'Expense Filer', 'Again');
  await second.expectState('Waiting for your approval');
  await second.cancel.click();
  await second.confirmCancel.click();
  await second.expectState('Cancelled');
  await expect(second.approvals).toBeHidden();
});

test('an unknown run id says so; "Open a run by id" reaches a run', async ({ runs, page }) => {
  await page.goto('/runs/long-runner/run_does_not_exist');
  await expect(page.getByRole('main').getByRole('alert')).toContainText('No run “run_does_not_exist” for agent “long-runner”');

  await page.goto('/runs/long-runner');
  const run = await startDurable(runs, 'Long Runner');
  const id = run.runId();
  await run.cancel.click();
  await run.confirmCancel.click();
  await run.expectState('Cancelled');
  await page.goto('/runs');
  await page.getByText('Open a durable run by id').click();
  await page.getByLabel('Agent id').fill('long-runner');
  await page.getByLabel('Run id').fill(id);
  await page.getByRole('button', { name: 'Open run' }).click();
  await expect(run.heading).toContainText(id);
  await run.expectState('Cancelled');
});

test('a run past its deadline is marked failed at the next read (a service with short deadlines)', async ({ runs, connection, page }) => {
  await connection.connectVia('direct', `http://127.0.0.1:${DURABLE_PORT}`);
  await connection.setToken(AGENT_TOKENS.agents);
  await page.goto('/runs/long-runner');
  const run = await startDurable(runs, 'Long Runner');
  await run.expectState('Running');
  await run.expectState('Failed');
  await expect(run.main.getByRole('alert')).toContainText('The run failed');
});
