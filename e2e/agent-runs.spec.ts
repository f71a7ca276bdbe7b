import { readFile } from 'node:fs/promises';
import { expect, test } from './fixtures';
import { AGENT_TOKENS } from './pages/runs';

test.beforeEach(async ({ runs, connection }) => {
  await runs.open();
  await connection.setToken(AGENT_TOKENS.agents);
});

test('streams a messages agent: the transcript echoes the message, the timeline and counters list every event', async ({ runs, shell }) => {
  await runs.chooseAgent('Echo Assistant');
  await shell.expectNoAxeViolations();

  const before = await runs.serviceSeq();
  await runs.writeMessage('Hello from the e2e suite');
  await expect(runs.requestLine).toHaveText('POST /api/agents/echo-assistant/runs');
  expect(await runs.previewBody()).toEqual({
    messages: [{ role: 'USER', content: [{ type: 'text', text: 'Hello from the e2e suite' }] }],
    stream: true,
  });

  const post = runs.nextRunPost();
  await runs.startRun();
  expect((await post).postDataJSON()).toEqual(await runs.previewBody());
  expect(await (await post).headerValue('accept')).toBe('text/event-stream');
  await expect(runs.status).toHaveText('Done');
  const answer = 'You asked: "Hello from the e2e suite". This is the reference service\'s echo assistant, answering one word per event.';
  await expect(runs.transcript).toHaveText(answer);

  // One event per word, and the counter, the timeline and the service agree on how many.
  const started = await runs.serviceRunsAfter(before);
  expect(started).toMatchObject([{ agentId: 'echo-assistant', flavour: 'platform', mode: 'stream', outcome: 'completed' }]);
  const events = started[0]!.events!;
  expect(events).toBe(answer.split(' ').length);
  await expect(runs.eventCount).toHaveText(String(events));
  await expect(runs.timeline).toHaveAccessibleName(`${events} events`);
  await expect(runs.timelineRows.first()).toContainText('message');
  await runs.timelineRows.first().click();
  await expect(runs.output.getByLabel('Event 1')).toContainText('"text": "You "');

  await shell.expectNoAxeViolations();
});

test('sends every field of the form agent, empty optional ones as "" and false, blocks a run missing a required field, and keeps the values over a reload', async ({
  runs,
  page,
}) => {
  await runs.chooseAgent('HR Policy Agent');
  const before = await runs.serviceSeq();
  const posts = runs.recordRunPosts();

  // Nothing filled in: the run is not sent, and the required fields say why.
  await runs.run.click();
  await expect(runs.field('Topic')).toHaveAttribute('aria-invalid', 'true');
  await expect(runs.field('Region')).toHaveAttribute('aria-invalid', 'true');
  await expect(runs.field('Topic')).toBeFocused();
  await expect(runs.field('Topic')).toHaveAccessibleDescription('Required. What the policy question is about');
  await expect(runs.field('Region')).toHaveAccessibleDescription('Required.');
  await expect(runs.field('Audience')).toHaveAttribute('aria-invalid', 'false');
  // "(optional)" is said once, by the label; the field's help stays.
  await expect(runs.field('Audience')).toHaveAccessibleDescription('Who the answer is for · sent as "" when empty');
  await expect(runs.status).toHaveText('No run yet');
  expect(posts).toHaveLength(0);
  expect(await runs.serviceRunsAfter(before)).toEqual([]);

  await runs.field('Topic').fill('parental leave');
  await expect(runs.field('Topic')).toHaveAttribute('aria-invalid', 'false');
  await runs.field('Region').selectOption('emea');
  const complete = {
    topic: 'parental leave',
    audience: '',
    region: 'emea',
    tone: '',
    maxPoints: '',
    includeLinks: false,
  };
  await expect.poll(() => runs.previewBody()).toEqual({ input: complete, stream: true });

  const post = runs.nextRunPost();
  await runs.startRun();
  const sent = (await post).postDataJSON() as { input: Record<string, unknown> };
  expect(sent).toEqual({ input: complete, stream: true });
  expect(Object.keys(sent.input)).toHaveLength(6);
  await expect(runs.status).toHaveText('Done');
  await expect(runs.transcript).toContainText('Policy summary on parental leave for region emea (audience: none; tone: none; at most none points; links: false).');
  expect(await runs.serviceRunsAfter(before)).toMatchObject([{ agentId: 'hr-policy-form', mode: 'stream', outcome: 'completed' }]);

  // Optional fields filled in go as their types: an integer as a number, the box as true.
  await runs.field('Tone').selectOption('formal');
  await runs.field('Maximum points').fill('3');
  await runs.field('Include links').check();
  await expect.poll(() => runs.previewBody()).toEqual({ input: { ...complete, tone: 'formal', maxPoints: 3, includeLinks: true }, stream: true });

  await page.reload();
  await expect(runs.field('Topic')).toHaveValue('parental leave');
  await expect(runs.field('Region')).toHaveValue('emea');
  await expect(runs.field('Audience')).toHaveValue('');
  await expect(runs.field('Tone')).toHaveValue('formal');
  await expect(runs.field('Maximum points')).toHaveValue('3');
  await expect(runs.field('Include links')).toBeChecked();
  expect(posts).toHaveLength(1);
});

test('stops a slow stream, keeping what arrived, and allows no second run while one is in flight', async ({ runs }) => {
  await runs.chooseAgent('Slow Storyteller');
  await runs.writeMessage('Tell me a story');
  const before = await runs.serviceSeq();
  const posts = runs.recordRunPosts();

  // A double click is one run: the second click finds a run in flight.
  await runs.run.dblclick();
  await expect(runs.status).toHaveText('Streaming…');
  await expect(runs.run).toBeDisabled();
  await expect(runs.inFlightHint).toBeVisible();
  await runs.waitForEvents(3);
  expect(posts).toHaveLength(1);
  await runs.stop.click();

  await expect(runs.status).toHaveText('Stopped');
  const kept = await runs.events();
  expect(kept).toBeGreaterThanOrEqual(3);
  // A word per event: the transcript is the story's first words, as many as events were kept.
  const story = 'Once upon a time, in a data center far away, a request arrived.'.split(' ');
  await expect(runs.transcript).toHaveText(story.slice(0, kept).join(' ') + ' ');
  await expect(runs.timeline).toHaveAccessibleName(`${kept} events`);
  await expect(runs.run).toBeEnabled();
  await expect(runs.stop).toBeDisabled();
  await expect(runs.historyItem(1)).toContainText('Stopped');

  // The service saw the client leave: one run, closed by the client, no more events than the page kept.
  await expect.poll(async () => (await runs.serviceRunsAfter(before)).map((r) => r.outcome)).toEqual(['client-closed']);
  const [logged] = await runs.serviceRunsAfter(before);
  expect(logged!.events).toBeGreaterThanOrEqual(kept);
  expect(logged!.events).toBeLessThanOrEqual(kept + 1);
  await expect(runs.eventCount).toHaveText(String(kept));

  // Run again from the history loads the run; Run sends it, and while it streams the form cannot start another.
  await runs.historyItem(1).getByRole('button', { name: 'Run again…' }).click();
  expect(posts).toHaveLength(1);
  await runs.startRun();
  await expect(runs.status).toHaveText('Streaming…');
  await expect(runs.run).toBeDisabled();
  await runs.stop.click();
  await expect(runs.status).toHaveText('Stopped');
  expect(posts).toHaveLength(2);
  await expect.poll(async () => (await runs.serviceRunsAfter(before)).map((r) => r.outcome)).toEqual(['client-closed', 'client-closed']);
});

test('reports a mid-stream failure on both APIs, and the legacy API warns of its deprecation and switches keeping the input', async ({ runs }) => {
  await runs.chooseAgent('Flaky Reporter');
  await runs.writeMessage('The quarterly report, please');
  const before = await runs.serviceSeq();

  // Current API: one run.failed event, in problem-details terms.
  await expect(runs.deprecation).toBeHidden();
  await runs.startRun();
  await expect(runs.status).toHaveText('Failed');
  await expect(runs.failure.getByRole('heading')).toHaveText('Run failed: Spend Limit Exceeded');
  await expect(runs.failure).toContainText("You've reached the monthly limit set by your admin.");
  await expect(runs.failure).toContainText('Code spend_limit_exceeded');
  const [platformRun] = await runs.serviceRunsAfter(before);
  expect(platformRun).toMatchObject({ flavour: 'platform', agentId: 'flaky-reporter', outcome: 'failed' });
  await expect(runs.failure).toContainText(`Request id ${platformRun!.requestId}`);
  await expect(runs.failure.getByRole('link', { name: 'Documentation for this error' })).toHaveAttribute('href', /^https?:\/\/\S+/);
  await expect(runs.transcript).toHaveText('Starting the quarterly report. Gathering sources now. Almost there');
  await expect(runs.eventCount).toHaveText('4');

  // Legacy API: the banner, then a failure told by the text of the last message.
  await runs.useApi('Legacy');
  await expect(runs.deprecation).toContainText('scheduled for removal on 2027-04-15');
  await expect(runs.requestLine).toHaveText('POST /rest/api/v1/agents/runs/stream');
  const post = runs.nextRunPost();
  await runs.startRun();
  expect((await post).postDataJSON()).toEqual({
    agent_id: 'flaky-reporter',
    messages: [{ role: 'USER', content: [{ type: 'text', text: 'The quarterly report, please' }] }],
  });
  await expect(runs.status).toHaveText('Failed');
  await expect(runs.failure.getByRole('heading')).toHaveText('Run failed: the agent’s last message is an error');
  await expect(runs.failure).toContainText("Error: Spend Limit Exceeded: You've reached the monthly limit set by your admin. (spend_limit_exceeded)");
  // The error is told once, in the failure, not glued to the answer.
  await expect(runs.transcript).toHaveText('Starting the quarterly report. Gathering sources now. Almost there');
  expect((await runs.serviceRunsAfter(before)).map((r) => [r.flavour, r.outcome])).toEqual([
    ['platform', 'failed'],
    ['legacy', 'failed'],
  ]);
  // The answer's own Deprecation and Sunset headers are now the banner's source.
  await expect(runs.deprecation).toContainText('as the last answer’s Deprecation and Sunset headers say');
  await expect(runs.deprecation).toContainText('POST /api/agents/flaky-reporter/runs');

  await runs.switchToReplacement.click();
  await expect(runs.currentApi).toBeChecked();
  await expect(runs.deprecation).toBeHidden();
  await expect(runs.message()).toHaveValue('The quarterly report, please');
  await expect(runs.requestLine).toHaveText('POST /api/agents/flaky-reporter/runs');
  expect(await runs.previewBody()).toEqual({
    messages: [{ role: 'USER', content: [{ type: 'text', text: 'The quarterly report, please' }] }],
    stream: true,
  });
});

test('waits for one answer: transcript, raw JSON and status; Stop and the client timeout end a slow wait', async ({ runs }) => {
  await runs.chooseAgent('Echo Assistant');
  await runs.answerBy('wait');
  await runs.writeMessage('Just the answer');
  const before = await runs.serviceSeq();

  await runs.startRun();
  await expect(runs.status).toHaveText('Done');
  await expect(runs.resultTab('Transcript')).toHaveAttribute('aria-selected', 'true');
  await expect(runs.resultPanel()).toContainText('GLEAN_AI: You asked: "Just the answer".');
  await runs.resultTab('Raw JSON').click();
  const raw = JSON.parse((await runs.resultPanel().locator('pre').textContent()) ?? '') as Record<string, unknown>;
  expect(raw).toMatchObject({ run: { agent_id: 'echo-assistant', status: 'success' }, messages: [{ role: 'GLEAN_AI' }] });
  expect(await runs.serviceRunsAfter(before)).toMatchObject([{ mode: 'wait', outcome: 'completed' }]);

  // Wait was chosen for the echo agent; the next agent has its own choice, stream by default.
  await runs.chooseAgent('Slow Storyteller');
  await expect(runs.streamAnswer).toBeChecked();
  await runs.answerBy('wait');
  await runs.writeMessage('A long story');
  await runs.startRun();
  await expect(runs.status).toHaveText('Waiting for the answer…');
  await expect(runs.run).toBeDisabled();
  await runs.stop.click();
  await expect(runs.status).toHaveText('Stopped');
  await expect(runs.output).toContainText('Stopped by you; the service may still finish the run.');
  await expect.poll(async () => (await runs.serviceRunsAfter(before)).map((r) => `${r.agentId} ${r.outcome}`)).toEqual([
    'echo-assistant completed',
    'slow-storyteller client-closed',
  ]);

  await runs.clientTimeout.fill('1');
  await runs.startRun();
  await expect(runs.status).toHaveText('Stopped');
  await expect(runs.output).toContainText('Your client-side timeout (1 s) ended the wait');
});

test('runs a past run again (loaded into the form, then one new POST), and exports it as JSON without the token', async ({ runs, page }) => {
  await runs.chooseAgent('Echo Assistant');
  await runs.writeMessage('Remember me');
  await runs.startRun();
  await expect(runs.status).toHaveText('Done');
  await expect(runs.historyItems).toHaveCount(1);
  const entry = runs.historyItem(1);
  await expect(entry).toContainText('Echo Assistant · current stream · Done');

  await entry.getByRole('button', { name: 'View' }).click();
  await expect(entry.getByLabel('Request body')).toContainText('"text": "Remember me"');

  // A messages agent's run is a conversation's turn: the turn exports with its events.
  const download = page.waitForEvent('download');
  await entry.getByRole('button', { name: 'Export last turn' }).click();
  const file = await (await download).path();
  const exported = await readFile(file, 'utf8');
  expect(exported).not.toContain(AGENT_TOKENS.agents);
  expect(JSON.parse(exported)).toMatchObject({
    status: 'done',
    request: { agentId: 'echo-assistant', agentName: 'Echo Assistant', flavour: 'platform', mode: 'stream', path: '/api/agents/echo-assistant/runs', body: { stream: true } },
    transcript: expect.stringContaining('You asked: "Remember me".') as unknown,
    events: expect.arrayContaining([expect.objectContaining({ event: 'message' })]) as unknown,
  });

  const before = await runs.serviceSeq();
  const posts = runs.recordRunPosts();
  await entry.getByRole('button', { name: 'Run again…' }).click();
  await expect(runs.message()).toHaveValue('Remember me');
  expect(posts).toHaveLength(0);
  await runs.startRun();
  await expect(runs.historyItems).toHaveCount(2);
  await expect(runs.status).toHaveText('Done');
  expect(posts).toHaveLength(1);
  expect(posts[0]!.postDataJSON()).toEqual({ messages: [{ role: 'USER', content: [{ type: 'text', text: 'Remember me' }] }], stream: true });
  expect(await runs.serviceRunsAfter(before)).toMatchObject([{ agentId: 'echo-assistant', outcome: 'completed' }]);
});

test('shows malformed and unknown events raw with a warning, and later events still render', async ({ runs, page }) => {
  // The reference service never sends bad data, so this one answer is written by hand.
  const event = (id: number, name: string, data: string) => `id: ${id}\nevent: ${name}\ndata: ${data}\n\n`;
  const text = (t: string) => JSON.stringify({ messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text: t }] }] });
  await page.route('**/api/agents/echo-assistant/runs', (route) =>
    route.fulfill({
      status: 200,
      headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' },
      body:
        event(1, 'message', text('Before the noise, ')) +
        ': keep-alive\n\n' +
        event(2, 'message', '{"messages": [unterminated') +
        event(3, 'agent.thinking', '{"step":"planning"}') +
        event(4, 'message', text('and after it.')),
    }),
  );
  await runs.chooseAgent('Echo Assistant');
  await runs.writeMessage('Anything');
  const before = await runs.serviceSeq();
  await runs.startRun();

  await expect(runs.status).toHaveText('Done');
  await expect(runs.transcript).toHaveText('Before the noise, and after it.');
  await expect(runs.eventCount).toHaveText('4');
  await expect(runs.warningCount).toHaveText('2');
  await expect(runs.timelineRows.nth(1)).toContainText('⚠ {"messages": [unterminated');
  await expect(runs.timelineRows.nth(2)).toContainText('agent.thinking');

  await runs.timelineRows.nth(1).click();
  const detail = runs.output.getByLabel('Event 2');
  await expect(detail).toContainText('The data is not JSON; shown as received.');
  await expect(detail.locator('pre')).toHaveText('{"messages": [unterminated');
  await runs.timelineRows.nth(2).click();
  await expect(runs.output.getByLabel('Event 3')).toContainText('An event this console does not know ("agent.thinking").');
  await runs.timelineRows.nth(3).click();
  await expect(runs.output.getByLabel('Event 4')).not.toContainText('⚠');
  // The page is still usable: the form and the next run work.
  await expect(runs.run).toBeEnabled();
  expect(await runs.serviceRunsAfter(before)).toEqual([]);
});
