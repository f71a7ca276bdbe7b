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

/**
 * Starts a durable run from the runs page; it shows there, under Run, and the page stays where
 * it is (its address names the conversation the run starts, never the run's own page).
 */
async function startDurable(runs: import('./pages/runs').RunsPage, agent: string, message = 'Please go ahead') {
  await runs.chooseAgent(agent);
  await runs.answerBy('durable');
  await runs.writeMessage(message);
  const post = runs.nextRunPost();
  const url = runs.page.url();
  await runs.run.click();
  expect((await post).postDataJSON()).toEqual({ messages: [{ role: 'USER', content: [{ type: 'text', text: message }] }], execution_mode: 'DURABLE' });
  const inline = new DurableRunPage(runs.page, runs.output);
  await expect(inline.ownPageLink).toBeVisible();
  // The address moves once history holds the run (with its id): from then on a reload finds it.
  await expect(runs.page).toHaveURL(new RegExp(`^${url.replace(/[.?*+^$()[\]\\|{}]/g, '\\$&')}/thread/thread_[\\w]+$`));
  return inline;
}

test('a durable run is POSTed once and followed by reading it: a reload shows the same run; Cancel ends it on the service', async ({ runs, page }) => {
  const postsBefore = (await runs.servicePosts()).length;
  const inline = await startDurable(runs, 'Long Runner');
  await inline.expectState('Running');
  await expect(runs.status).toHaveText('Running');
  const run = await inline.openOwnPage();
  const id = await run.runId();
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
  const id = await run.runId();
  await run.expectState('Waiting for your approval');
  await expect(runs.status).toHaveText('Waiting for your approval');
  const card = run.tool('Submit expense report');
  await expect(card).toContainText('Files the expense report in the finance system');
  await expect(card.getByLabel('Arguments of Submit expense report')).toContainText('"report_id": "EXP-1042"');
  await expect(card).toContainText(/This request expires in \d+ h/);
  await shell.expectNoAxeViolations();

  const decisions: Request[] = [];
  page.on('request', (r) => isDecision(r) && decisions.push(r));
  await run.decideNow('Submit expense report', 'Approve');
  await run.expectState('Succeeded');
  await expect(run.statesSeen).toContainText('You approved “Submit expense report”');
  await expect(runs.historyItem(1)).toContainText('Succeeded');
  expect(decisions).toHaveLength(1);
  const sent = decisions[0]!.postDataJSON() as { run_id: string; responses: { interaction_id: string; decision: string }[] };
  expect(sent.run_id).toBe(id);
  expect(sent.responses.map((r) => r.decision)).toEqual(['APPROVE']);
  await expect(run.transcript).toContainText('The finance system accepted EXP-1042');
});

test('rejecting a tool call on the run’s own page finishes the run the rejected way', async ({ runs }) => {
  const run = await (await startDurable(runs, 'Expense Filer')).openOwnPage();
  await run.expectState('Waiting for your approval');
  await run.decideNow('Submit expense report', 'Reject');
  await run.expectState('Succeeded');
  await expect(run.transcript).toContainText('Rejected: EXP-1042 was not submitted');
  await expect(run.transcript).not.toContainText('finance system accepted');
  await expect(run.statesSeen).toContainText('You rejected “Submit expense report”');
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
  const id = await run.runId();

  // Someone else (here: the API directly) decides first; this page still shows the old request.
  const interaction = await page.request.get(`/api/agents/expense-filer/runs/${id}`, { headers: { Authorization: `Bearer ${AGENT_TOKENS.agents}` } });
  const pending = ((await interaction.json()) as { run: { pending_interactions: { interaction_id: string }[] } }).run.pending_interactions;
  const decided = await page.request.post('/api/agents/expense-filer/responses', {
    headers: { Authorization: `Bearer ${AGENT_TOKENS.agents}` },
    data: { run_id: id, responses: [{ interaction_id: pending[0]!.interaction_id, decision: 'REJECT' }] },
  });
  expect(decided.status()).toBe(200);
  await run.decideNow('Submit expense report', 'Approve');
  await expect(run.main.getByRole('alert').filter({ hasText: '409 Conflict' })).toContainText('The run has moved on since it was last read');
  await run.expectState('Succeeded');
  await expect(run.transcript).toContainText('Rejected: EXP-1042 was not submitted');

  // A second run, cancelled while it waits for approval.
  const second = await startDurable(runs, 'Expense Filer', 'Again');
  await second.expectState('Waiting for your approval');
  await second.cancel.click();
  await second.confirmCancel.click();
  await second.expectState('Cancelled');
  await expect(second.approvals).toBeHidden();
  await expect(second.cancel).toBeHidden();
});

test('an unknown run id says so; "Open a run by id" reaches a run', async ({ runs, page }) => {
  await page.goto('/runs/long-runner/run_does_not_exist');
  await expect(page.getByRole('main').getByRole('alert')).toContainText('No run “run_does_not_exist” for agent “long-runner”');

  await page.goto('/runs/long-runner');
  const run = await startDurable(runs, 'Long Runner');
  const id = await run.runId();
  await run.cancel.click();
  await run.confirmCancel.click();
  await run.expectState('Cancelled');
  await page.goto('/runs');
  const own = new DurableRunPage(page);
  await page.getByText('Open a durable run by id').click();
  await page.getByLabel('Agent id').fill('long-runner');
  await page.getByLabel('Run id').fill(id);
  await page.getByRole('button', { name: 'Open run' }).click();
  await expect(own.heading).toContainText(id);
  await own.expectState('Cancelled');
});

test('a run past its deadline is marked failed at the next read (a service with short deadlines)', async ({ runs, connection, page }) => {
  await connection.connectVia('direct', `http://127.0.0.1:${DURABLE_PORT}`);
  await connection.setToken(AGENT_TOKENS.agents);
  await page.goto('/runs/long-runner');
  const run = await startDurable(runs, 'Long Runner');
  await run.expectState('Running');
  await run.expectState('Failed');
  await expect(run.main.getByRole('alert')).toContainText('Run failed: execution_deadline_exceeded');
});

test('history tells each durable run’s real outcome: failed, cancelled, and succeeded after a rejection', async ({ runs }) => {
  const failing = await startDurable(runs, 'Failing Job');
  await failing.expectState('Failed');
  const cancelled = await startDurable(runs, 'Long Runner');
  await cancelled.expectState('Running');
  await cancelled.cancel.click();
  await cancelled.confirmCancel.click();
  await cancelled.expectState('Cancelled');
  const rejected = await startDurable(runs, 'Expense Filer');
  await rejected.decideNow('Submit expense report', 'Reject');
  await rejected.expectState('Succeeded');

  await expect(runs.historyItem(1)).toContainText(/Expense Filer · current durable · Succeeded · you rejected “Submit expense report”/);
  await expect(runs.historyItem(2)).toContainText(/Long Runner · current durable · Cancelled/);
  await expect(runs.historyItem(3)).toContainText(/Failing Job · current durable · Failed/);
  for (const n of [1, 2, 3]) await expect(runs.historyItem(n)).toContainText('last read');
  await expect(runs.history).not.toContainText('Done');

  // After a reload the runs are read again from history's own record: the outcomes stay.
  await runs.page.reload();
  await expect(runs.historyItem(2)).toContainText('Cancelled');
  await expect(runs.historyItem(3)).toContainText('Failed');
});

test('Run again loads a durable run into the form without sending it; Run sends it once', async ({ runs }) => {
  const first = await startDurable(runs, 'Expense Filer', 'File my receipts');
  await first.expectState('Waiting for your approval');
  await runs.chooseAgent('Echo Assistant');
  await expect(runs.streamAnswer).toBeChecked();
  const posts = runs.recordRunPosts();
  await runs.historyItem(1).getByRole('button', { name: 'Run again…' }).click();
  await expect(runs.agentHeading).toContainText('Expense Filer');
  await expect(runs.durableAnswer).toBeChecked();
  await expect(runs.message()).toHaveValue('File my receipts');
  await expect(runs.main.getByRole('note', { name: 'Loaded from history' })).toContainText('Nothing is sent until you run it');
  await expect(runs.run).toHaveText('Start durable run');
  expect(posts).toHaveLength(0);
  await runs.startRun();
  await expect(runs.status).toHaveText('Waiting for your approval', { timeout: 10_000 });
  expect(posts).toHaveLength(1);
  expect(posts[0]!.postDataJSON()).toEqual({ messages: [{ role: 'USER', content: [{ type: 'text', text: 'File my receipts' }] }], execution_mode: 'DURABLE' });
});

test('a profile switched while a cancel is in flight shows nothing of the first profile’s run', async ({ runs, connection, page }) => {
  await connection.createProfile({ name: 'Second token', token: AGENT_TOKENS.everything });
  await connection.switchTo('Reference service');
  await runs.open();
  const run = await (await startDurable(runs, 'Long Runner')).openOwnPage();
  const id = await run.runId();
  await run.expectState('Running');
  // The cancellation reaches the service; its answer is held back while the profile changes.
  await page.route('**/api/agents/long-runner/cancellations', async (route) => {
    const answer = await route.fetch();
    await new Promise((r) => setTimeout(r, 1_500));
    await route.fulfill({ response: answer });
  });
  await run.cancel.click();
  await run.confirmCancel.click();
  await connection.switchTo('Second token');
  await expect(run.main.getByRole('alert')).toContainText(`No run “${id}” for agent “long-runner”`);
  await page.waitForTimeout(2_000);
  await expect(run.state).toBeHidden();
  await expect(run.main).not.toContainText('Cancelling');
  await connection.switchTo('Reference service');
  await run.expectState('Cancelled');
});

test('a durable run whose page is reloaded before its 201 arrives is found again at the reference service by its history id, and followed', async ({ runs, page }) => {
  await runs.chooseAgent('Long Runner');
  await runs.answerBy('durable');
  await runs.writeMessage('Go on without me');
  // The service makes the run as the POST arrives, and holds its answer 20 s.
  await runs.main.getByText('Inject a fault (reference service)').click();
  await runs.main.getByRole('group', { name: 'Inject a fault (reference service)' }).getByLabel('Hold the first event, ms').fill('20000');
  const post = runs.nextRunPost();
  await runs.run.click();
  // headers(), not headerValue(): that one waits for the answer's raw headers, 20 s away.
  const clientRunId = (await post).headers()['x-sandbox-client-run-id'];
  expect(clientRunId).toMatch(/^run_\w+$/);
  // History holds the run, still waiting for the service's answer (no run id yet).
  await expect(runs.historyItem(1)).toContainText('Long Runner');
  await expect(runs.history.getByRole('link', { name: /^run_/ })).toHaveCount(0);
  await page.reload();
  const found = await page.request.get(`/sandbox/durable-runs?client_run_id=${clientRunId}`, { headers: { Authorization: `Bearer ${AGENT_TOKENS.agents}` } });
  const [run] = ((await found.json()) as { runs: { run_id: string }[] }).runs;
  expect(run).toBeDefined();
  // Found again: history has the run's id, a link to its page, and reads it as it goes on.
  await expect(runs.history.getByRole('link', { name: run!.run_id })).toBeVisible({ timeout: 30_000 });
  await expect(runs.historyItem(1).locator('.status')).toHaveText('Running');
  await expect(runs.historyItem(1)).not.toContainText('Interrupted');
  await page.request.post('/api/agents/long-runner/runs/cancellations', { headers: { Authorization: `Bearer ${AGENT_TOKENS.agents}` }, data: { run_id: run!.run_id } });
});
