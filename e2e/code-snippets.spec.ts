import { expect, test } from './fixtures';
import { TOKENS } from './pages/connection';
import { DurableRunPage } from './pages/durable';
import { AGENT_TOKENS } from './pages/runs';
import { CONSOLE_PORT } from './servers';

const CONSOLE_ORIGIN = `http://127.0.0.1:${CONSOLE_PORT}`;

test('a run as code: tabs by keyboard, the TypeScript client snippet copied without the token unless asked, the language remembered', async ({
  connection,
  runs,
  shell,
  page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: CONSOLE_ORIGIN });
  const clipboard = () => page.evaluate<string>('navigator.clipboard.readText()');
  const token = AGENT_TOKENS.agents;

  await connection.open();
  await connection.setToken(token);
  await runs.open();
  await runs.chooseAgent('Echo Assistant');
  await runs.writeMessage('Hello from the code tab');

  const code = page.getByRole('region', { name: 'Request', exact: true }).locator('.code-snippets').first();
  const tab = (name: string) => code.getByRole('tablist', { name: 'Code language' }).getByRole('tab', { name, exact: true });
  await expect(tab('curl')).toHaveAttribute('aria-selected', 'true');
  await expect(code.getByLabel('curl command')).toContainText(`curl --fail-with-body -N '${CONSOLE_ORIGIN}/api/agents/echo-assistant/runs' \\`);

  // Arrow keys move between languages, as tabs do.
  await tab('curl').focus();
  await page.keyboard.press('ArrowRight');
  await expect(tab('JavaScript')).toBeFocused();
  await expect(code.getByLabel('JavaScript code')).toContainText("import { EventSourceParserStream } from 'eventsource-parser/stream';");
  await page.keyboard.press('ArrowRight');
  await expect(tab('TypeScript')).toHaveAttribute('aria-selected', 'true');

  const typescript = code.getByLabel('TypeScript code');
  await expect(typescript).toContainText('glean.agents.createRun(');
  await expect(typescript).toContainText('"text": "Hello from the code tab"');
  // Long lines scroll sideways; nothing wraps inside a word.
  await expect(typescript).toHaveCSS('white-space', 'pre');

  const copy = code.getByRole('button', { name: 'Copy TypeScript' });
  const includeToken = code.getByLabel('Include token');
  // Copy and "Include token" sit on one row.
  const [a, b] = [await copy.boundingBox(), await includeToken.boundingBox()];
  expect(Math.abs(a!.y + a!.height / 2 - (b!.y + b!.height / 2))).toBeLessThan(4);

  await copy.click();
  await expect(code.getByRole('status')).toHaveText('Copied; the token is redacted as process.env.TOKEN.');
  const copied = await clipboard();
  expect(copied).toBe(await typescript.textContent());
  expect(copied).toContain("import { Glean } from '@gleanwork/api-client';");
  expect(copied).toContain('apiToken: process.env.TOKEN');
  expect(copied).not.toContain(token);

  // With "Include token" the clipboard gets the token; the screen still shows it masked.
  await includeToken.check();
  await expect(typescript).toContainText("apiToken: '••••••••'");
  await expect(code).not.toContainText(token);
  await copy.click();
  await expect(code.getByRole('status')).toHaveText('Copied, with the token.');
  expect(await clipboard()).toContain(`apiToken: '${token}'`);
  await shell.expectNoAxeViolations();

  // The chosen language is remembered (and only that: no token in storage beyond the session's own).
  await page.reload();
  await expect(tab('TypeScript')).toHaveAttribute('aria-selected', 'true');
  expect(Object.values((await shell.storage()).local).join('\n')).not.toContain(token);
});

test('schema code is the request about to be sent: GET, DELETE while confirming, the PUT being edited, document values as typed', async ({
  connection,
  schemas,
  request,
}) => {
  const put = await request.put('/rest/api/index/custom-metadata/schema/e2ecode', {
    headers: { Authorization: `Bearer ${TOKENS.global}` },
    data: { metadataKeys: [{ name: 'stage', propertyType: 'PICKLIST' }] },
  });
  expect(put.status()).toBe(200);
  await schemas.open('e2ecode');
  await connection.setToken(TOKENS.global);
  await expect(schemas.keysTable('e2ecode')).toBeVisible();
  const url = `'${CONSOLE_ORIGIN}/rest/api/index/custom-metadata/schema/e2ecode'`;
  await expect(schemas.curl).toContainText(`curl --fail-with-body ${url} \\`);

  await schemas.deleteSchema.click();
  await expect(schemas.curl).toContainText(`curl --fail-with-body -X DELETE ${url} \\`);
  await schemas.confirmDeletion.getByRole('button', { name: 'Cancel' }).click();
  await expect(schemas.curl).not.toContainText('-X DELETE');

  await schemas.editSchema.click();
  await schemas.addKeyRow('fresh', 'TEXT');
  const editorCurl = schemas.editor().getByLabel('curl command');
  await expect(editorCurl).toContainText(`curl --fail-with-body -X PUT ${url} \\`);
  await expect(editorCurl).toContainText('"name": "fresh"');
  await schemas.editor().getByRole('button', { name: 'Cancel' }).click();

  const form = schemas.documentValues('e2ecode');
  await form.getByText('Code for these requests').click();
  await form.getByLabel('Document id').fill('DOC-CODE-1');
  await schemas.documentField('e2ecode', 'stage').fill('draft');
  const [setCode, removeCode] = [form.getByLabel('curl command').first(), form.getByLabel('curl command').last()];
  const docUrl = `'${CONSOLE_ORIGIN}/rest/api/index/document/DOC-CODE-1/custom-metadata/e2ecode'`;
  await expect(setCode).toContainText(`-X PUT ${docUrl}`);
  await expect(setCode).toContainText('"value": "draft"');
  await expect(removeCode).toContainText(`-X DELETE ${docUrl}`);
});

test("a durable run's page offers code for its decisions and its cancellation: its agent, run id and pending interaction ids, the token hidden unless asked", async ({
  connection,
  page,
  request,
  context,
  shell,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: CONSOLE_ORIGIN });
  const clipboard = () => page.evaluate<string>('navigator.clipboard.readText()');
  const token = AGENT_TOKENS.agents;
  const headers = { Authorization: `Bearer ${token}` };
  type Run = { run_id: string; state: string; pending_interactions: { interaction_id: string; display_name: string }[] };
  const created = await request.post('/api/agents/trip-planner/runs', {
    headers,
    data: { messages: [{ role: 'USER', content: [{ type: 'text', text: 'Plan it' }] }], execution_mode: 'DURABLE' },
  });
  expect(created.status()).toBe(201);
  const runId = ((await created.json()) as { run: Run }).run.run_id;
  let paused: Run | undefined;
  await expect
    .poll(async () => {
      paused = ((await (await request.get(`/api/agents/trip-planner/runs/${runId}`, { headers })).json()) as { run: Run }).run;
      return paused.state;
    })
    .toBe('REQUIRES_INPUT');
  const [flight, hotel] = paused!.pending_interactions.map((i) => i.interaction_id);

  await connection.open();
  await connection.setToken(token);
  await page.goto(`/runs/trip-planner/${runId}`);
  const run = new DurableRunPage(page);
  await run.expectState('Waiting for your approval');

  await page.getByText('Code for this run', { exact: true }).click();
  const block = page.locator('details', { has: page.getByText('Code for this run', { exact: true }) });
  const request_ = block.getByRole('group', { name: 'Request' });
  const curl = block.getByLabel('curl command');
  await expect(request_.getByRole('radio', { name: 'Approve all 2' })).toBeChecked();
  await expect(curl).toContainText(`RUN_ID='${runId}'`);
  await expect(curl).toContainText(`curl -sS --fail-with-body '${CONSOLE_ORIGIN}/api/agents/trip-planner/responses' \\`);
  await expect(curl).toContainText(`"interaction_id": "${flight}",\n      "decision": "APPROVE"`);
  await expect(curl).toContainText(`"interaction_id": "${hotel}",\n      "decision": "APPROVE"`);
  // Followed to its end, by reading it.
  await expect(curl).toContainText(`'${CONSOLE_ORIGIN}/api/agents/trip-planner/runs/'"$RUN_ID"`);
  await expect(curl).toContainText('case $STATE in SUCCEEDED|FAILED|CANCELLED|EXPIRED)');
  // The token hidden by default.
  await expect(curl).toContainText('-H "Authorization: Bearer $TOKEN"');
  await expect(block).not.toContainText(token);

  await request_.getByRole('radio', { name: 'Approve only Book flight, reject the rest' }).check();
  await expect(curl).toContainText(`"interaction_id": "${flight}",\n      "decision": "APPROVE"`);
  await expect(curl).toContainText(`"interaction_id": "${hotel}",\n      "decision": "REJECT"`);
  await request_.getByRole('radio', { name: 'Reject all 2' }).check();
  await expect(curl).not.toContainText('"decision": "APPROVE"');

  await request_.getByRole('radio', { name: 'Cancel' }).check();
  await expect(curl).toContainText(`curl -sS --fail-with-body '${CONSOLE_ORIGIN}/api/agents/trip-planner/cancellations' \\`);
  await expect(curl).toContainText(`"run_id": "${runId}"`);
  await block.getByRole('tab', { name: 'TypeScript', exact: true }).click();
  const typescript = block.getByLabel('TypeScript code');
  await expect(typescript).toContainText(`await glean.agents.cancelRun({ run_id: '${runId}' }, 'trip-planner');`);
  await expect(typescript).toContainText(`({ run } = await glean.agents.getRun('trip-planner', run.run_id));`);
  await block.getByRole('button', { name: 'Copy TypeScript' }).click();
  await expect(block.getByRole('status')).toHaveText('Copied; the token is redacted as process.env.TOKEN.');
  expect(await clipboard()).toContain('apiToken: process.env.TOKEN');
  expect(await clipboard()).not.toContain(token);
  await block.getByLabel('Include token').check();
  await expect(typescript).toContainText("apiToken: '••••••••'");
  await expect(block).not.toContainText(token);
  await block.getByRole('button', { name: 'Copy TypeScript' }).click();
  expect(await clipboard()).toContain(`apiToken: '${token}'`);
  await shell.expectNoAxeViolations();

  // Answered (here, on the page): the decisions are gone from the code, following is what is left.
  await run.decide('Book flight', 'Approve');
  await run.decide('Book hotel', 'Reject');
  await run.submit.click();
  await run.expectState('Succeeded');
  await expect(request_.getByRole('radio')).toHaveCount(1);
  await expect(request_.getByRole('radio', { name: 'Follow it to its end (read only)' })).toBeChecked();
  await expect(typescript).toContainText(`let { run } = await glean.agents.getRun('trip-planner', '${runId}');`);
});
