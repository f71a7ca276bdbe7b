import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { AGENT_TOKENS } from './pages/runs';

/**
 * A run is POSTed exactly once (docs/api.md, "Server-sent events"): counted at the reference service, which
 * logs every run POST it receives and every run it starts (GET /sandbox/runs), and at the
 * page. fetch-event-source's own default is to retry after a second.
 */
const RETRY_WINDOW_MS = 1_500;

/** Pretends the tab was hidden or shown, as a browser does when the user switches tabs. */
async function setTabHidden(page: Page, hidden: boolean) {
  // A string, not a function: the e2e sources are type-checked without the DOM library.
  await page.evaluate(`(() => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} });
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${hidden ? 'hidden' : 'visible'}' });
    document.dispatchEvent(new Event('visibilitychange'));
  })()`);
}

test.beforeEach(async ({ runs, connection }) => {
  await runs.open();
  await connection.setToken(AGENT_TOKENS.agents);
});

test('keeps the one stream open when the tab is hidden and shown again mid-stream', async ({ runs, page }) => {
  await runs.chooseAgent('Slow Storyteller');
  await runs.writeMessage('A story while I look away');
  const before = await runs.serviceSeq();
  const arrivedBefore = (await runs.servicePosts()).length;
  const posts = runs.recordRunPosts();

  await runs.run.click();
  const seen = await runs.waitForEvents(2);
  await setTabHidden(page, true);
  // Events keep arriving while hidden: the request was not aborted.
  await runs.waitForEvents(seen + 2);
  await setTabHidden(page, false);
  const shown = await runs.events();

  await page.waitForTimeout(RETRY_WINDOW_MS); // long enough for a would-be re-POST to happen
  await expect(runs.status).toHaveText('Streaming…');
  await runs.waitForEvents(shown + 1);
  expect(posts).toHaveLength(1);
  expect((await runs.servicePosts()).slice(arrivedBefore).map((p) => p.path)).toEqual(['/api/agents/slow-storyteller/runs']);
  const started = await runs.serviceRunsAfter(before);
  expect(started).toHaveLength(1);
  expect(started[0]).toMatchObject({ agentId: 'slow-storyteller', mode: 'stream' });
  expect(started[0]!.outcome).toBeUndefined();

  // The events form one unbroken sequence: ids 1, 2, 3… with no restart.
  await runs.stop.click();
  await expect(runs.status).toHaveText('Stopped');
  const kept = await runs.events();
  await expect(runs.timelineRows.last()).toContainText(`${kept}${kept}message`);
  await expect.poll(async () => (await runs.serviceRunsAfter(before)).map((r) => r.outcome)).toEqual(['client-closed']);
});

test('reports a stream the server drops as interrupted, keeps the five fragments, and does not POST again', async ({ runs, page }) => {
  await runs.chooseAgent('Unreliable Line');
  await runs.writeMessage('Are you there?');
  const before = await runs.serviceSeq();
  const arrivedBefore = (await runs.servicePosts()).length;
  const posts = runs.recordRunPosts();

  await runs.startRun();
  await expect(runs.status).toHaveText('Interrupted');
  await expect(runs.interruption).toContainText('The run was not sent again');
  await expect(runs.eventCount).toHaveText('5');
  await expect(runs.transcript).toHaveText('This line works for a ');
  await expect(runs.run).toBeEnabled();

  await page.waitForTimeout(RETRY_WINDOW_MS); // long enough for a would-be retry to happen
  expect(posts).toHaveLength(1);
  expect((await runs.servicePosts()).slice(arrivedBefore).map((p) => p.path)).toEqual(['/api/agents/unreliable-line/runs']);
  expect(await runs.serviceRunsAfter(before)).toMatchObject([{ agentId: 'unreliable-line', outcome: 'dropped', events: 5 }]);
  await expect(runs.status).toHaveText('Interrupted');
  await expect(runs.eventCount).toHaveText('5');
  await expect(runs.historyItem(1)).toContainText('Interrupted');
});

test('shows a 422 with the tools to authorize from one POST that is not retried; a token without agents.run is told so before any run is sent', async ({
  runs,
  connection,
  page,
  shell,
}) => {
  const before = await runs.serviceSeq();
  const arrivedBefore = (await runs.servicePosts()).length;
  const posts = runs.recordRunPosts();

  // 422: the agent's tools are not authorized.
  await runs.chooseAgent('Calendar Helper');
  await runs.writeMessage('Book a meeting');
  await runs.startRun();
  await expect(runs.status).toHaveText('Refused');
  const tools = runs.refusal(/^422 /);
  await expect(tools).toContainText('The agent uses tools you have not authorized yet.');
  await expect(tools.getByRole('listitem')).toHaveText(['Google Calendar (server srv_gcal_01)', 'Outlook Mail (server srv_outlook_02)']);
  await expect(tools).toContainText('Code tools_unauthorized');
  await expect(runs.message()).toHaveValue('Book a meeting');
  await shell.expectNoAxeViolations();
  await page.waitForTimeout(RETRY_WINDOW_MS); // long enough for a would-be retry to happen
  expect(posts.map((p) => new URL(p.url()).pathname)).toEqual(['/api/agents/calendar-helper/runs']);
  expect((await runs.servicePosts()).slice(arrivedBefore).map((p) => [p.path, p.status])).toEqual([['/api/agents/calendar-helper/runs', 422]]);

  // 403: a valid token without agents.run, on an agent typed by id. The schema is refused the same way a run would be,
  // so the page says what would work instead of offering fields by hand, and no run is sent.
  await connection.setToken(AGENT_TOKENS.global);
  await runs.openAgentId('echo-assistant');
  await expect(runs.schemaError).toContainText('403');
  await expect(runs.schemaError).toContainText('Use a token with agents.run');
  await expect(runs.addFieldsByHand).toBeHidden();
  await expect(runs.run).toBeDisabled();
  await page.waitForTimeout(RETRY_WINDOW_MS); // long enough for a would-be retry to happen
  expect(posts.map((p) => new URL(p.url()).pathname)).toEqual(['/api/agents/calendar-helper/runs']);
  expect((await runs.servicePosts()).slice(arrivedBefore).map((p) => [p.path, p.status])).toEqual([['/api/agents/calendar-helper/runs', 422]]);

  // Neither refused POST started a run at the service.
  expect(await runs.serviceRunsAfter(before)).toEqual([]);
});
