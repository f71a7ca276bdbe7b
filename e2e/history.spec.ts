import { expect, test } from './fixtures';
import { ConnectionPage } from './pages/connection';
import { AGENT_TOKENS, RunsPage } from './pages/runs';

/**
 * What the console keeps has one home, the browser database: an address a run moves to works
 * the moment it shows, tabs agree, Clear history asks and can be undone, and imports neither
 * lose what they brought nor take a loop of turns.
 */


async function ready(runs: RunsPage, connection: ConnectionPage, agent: string) {
  await runs.open();
  await connection.setToken(AGENT_TOKENS.agents);
  await runs.chooseAgent(agent);
}

const turns = (runs: RunsPage) => runs.output.getByRole('list', { name: 'Turns' }).getByRole('listitem', { name: /^Turn/ });
const lastTurnStatus = (runs: RunsPage) => runs.output.locator('.turn-meta .status').last();

for (const mode of ['stream', 'wait', 'durable'] as const) {
  test(`a ${mode} turn's conversation address works the moment it shows: a reload at once finds the run`, async ({ page, runs, connection }) => {
    const agent = mode === 'durable' ? 'Expense Filer' : 'Echo Assistant';
    await ready(runs, connection, agent);
    await runs.answerBy(mode);
    await runs.writeMessage(`Reload me (${mode})`);
    const before = (await runs.servicePosts()).length;
    await runs.run.click();
    await page.waitForURL(/\/thread\/thread_/);
    await page.reload();
    await expect(turns(runs)).toHaveCount(1);
    await expect(turns(runs).first()).toContainText(`Reload me (${mode})`);
    await expect(runs.historyItem(1)).toContainText(`Reload me (${mode}) · conversation, 1 turn`);
    if (mode === 'durable') {
      // The run goes on at the service, and the page reads it: approval is one click away.
      await expect(lastTurnStatus(runs)).toHaveText('Waiting for your approval', { timeout: 15_000 });
      await expect(runs.output.getByRole('button', { name: 'Approve' })).toBeVisible();
    } else {
      // This browser's side of a stream or wait was cut by the reload: said so, not "Streaming…" for ever.
      await expect(lastTurnStatus(runs)).toHaveText(/^(Done|Interrupted)$/, { timeout: 20_000 });
    }
    expect((await runs.servicePosts()).length - before).toBe(1);
  });
}

test('Run on both moves to the comparison once both runs are in history: a reload at once shows both', async ({ page, runs, connection }) => {
  await ready(runs, connection, 'HR Policy Agent');
  await runs.field('Topic').fill('leave');
  await runs.field('Region').selectOption('emea');
  await page.getByText('Run on both: compare with another API, mode, profile or agent').click();
  await page.getByRole('radio', { name: /^as wait/ }).check();
  await page.getByRole('button', { name: 'Run on both' }).click();
  await page.waitForURL(/\/compare\//);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Compare two runs', level: 1 })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Run A' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Run B' })).toBeVisible();
  await expect(page.getByText(/not in this browser’s history/)).toHaveCount(0);
});

test('two tabs agree: a run finished in one shows in the other’s history, with no reload', async ({ page, runs, connection, context }) => {
  await ready(runs, connection, 'HR Policy Agent');
  const other = await context.newPage();
  const otherRuns = new RunsPage(other);
  await otherRuns.open();
  await runs.field('Topic').fill('two tabs');
  await runs.field('Region').selectOption('emea');
  await runs.startRun();
  await expect(runs.status).toHaveText('Done');
  const row = otherRuns.history.getByRole('listitem').filter({ hasText: 'HR Policy Agent' }).first();
  await expect(row.locator('.status')).toHaveText('Done');
  await expect(row).toContainText('profile Reference service');
  await other.close();
  void page;
});

test('Clear history asks first, keeps nothing it was not asked to, and Undo brings everything back', async ({ runs, connection }) => {
  await ready(runs, connection, 'Echo Assistant');
  for (const q of ['first question', 'second question']) {
    await runs.writeMessage(q);
    await runs.run.click();
    await expect(runs.history.getByText(`${q} · conversation, 1 turn`, { exact: false })).toBeVisible();
    await expect(lastTurnStatus(runs)).toHaveText('Done');
  }
  await runs.history.getByRole('button', { name: 'Clear history…' }).click();
  const ask = runs.history.getByRole('alertdialog', { name: 'Clear history?' });
  await expect(ask).toContainText('2 conversations leave this browser’s history');
  await ask.getByRole('button', { name: 'Cancel' }).click();
  await expect(runs.historyItems).toHaveCount(2);

  await runs.history.getByRole('button', { name: 'Clear history…' }).click();
  await ask.getByRole('button', { name: 'Clear history' }).click();
  await expect(runs.history.getByText('No runs yet.')).toBeVisible();
  const undo = runs.history.getByRole('status').filter({ hasText: 'History cleared' }).getByRole('button', { name: 'Undo' });
  await undo.click();
  await expect(runs.historyItems).toHaveCount(2);
  await expect(runs.history.getByText('first question · conversation, 1 turn', { exact: false })).toBeVisible();
});

/** A conversation file of one echo turn, as the console exports it. */
function conversationFile(question: string, startedAt: string, parentOf?: Record<string, string>) {
  const turn = (id: string, parentId?: string) => ({
    id,
    ...(parentId && { parentId }),
    startedAt,
    request: { api: 'platform', mode: 'stream', method: 'POST', path: '/api/agents/echo-assistant/runs', body: { messages: [{ role: 'USER', content: [{ type: 'text', text: question }] }], stream: true } },
    status: 'done',
    durationMs: 10,
    events: { count: 2, bytes: 50 },
    answer: { messages: [{ role: 'GLEAN_AI', content: [{ type: 'text', text: 'One ' }] }, { role: 'GLEAN_AI', content: [{ type: 'text', text: 'answer.' }] }], text: 'One answer.' },
  });
  const ids = parentOf ? Object.keys(parentOf) : ['t1'];
  return {
    format: 'metadata-agents-console/thread',
    version: 1,
    exportedAt: startedAt,
    thread: { id: 'thread_file', title: question, agent: { id: 'echo-assistant', name: 'Echo Assistant' } },
    turns: ids.map((id) => turn(id, parentOf?.[id])),
  };
}

/** The file is handed to the input from memory: nothing is left behind in the machine's temporary directory. */
async function importFile(runs: RunsPage, name: string, content: unknown) {
  await runs.history
    .getByLabel('Conversation file to import')
    .setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(content)) });
}

test('an old conversation imported into a full history is kept and shown; a file whose turns loop is refused, saying where', async ({ page, runs }) => {
  // Fifty imports through the page: 15 s on a quiet machine, over 60 s on a loaded one.
  test.setTimeout(180_000);
  await runs.open();
  // Fifty newer conversations fill history.
  for (let i = 0; i < 50; i++) {
    await importFile(runs, `new-${i}.json`, conversationFile(`newer ${i}`, new Date(Date.now() - 60_000 + i * 100).toISOString()));
    await expect(page).toHaveURL(/\/thread\/imported_/);
  }
  await expect(runs.historyItems).toHaveCount(50);

  await importFile(runs, 'old.json', conversationFile('an old question', '2020-01-01T00:00:00.000Z'));
  const thread = runs.output.getByRole('list', { name: 'Turns' });
  await expect(thread).toContainText('an old question');
  await expect(page.getByText(/No conversation/)).toHaveCount(0);
  await expect(runs.history.getByText('an old question · conversation, 1 turn', { exact: false })).toBeVisible();
  // What made room is said.
  await expect(runs.history.getByRole('status').filter({ hasText: 'History let go of an older item' })).toContainText('conversation “newer 0”');
  // Its streamed answer goes back as one message (files of older versions kept one per event).
  await thread.getByText('Events, timeline and raw answer').click();
  await expect(thread.getByLabel('Answer messages')).toContainText('"One answer."');

  await importFile(runs, 'loop.json', conversationFile('loop', '2024-01-01T00:00:00.000Z', { a: 'b', b: 'a' }));
  await expect(runs.history.getByRole('alert')).toContainText('loop.json: The turns do not form a tree: turn a follows itself (a → b → a)');
});

test.describe('on a phone (390×844)', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('history’s Clear, its question and Undo fit the screen; nothing scrolls sideways', async ({ page, runs, connection }) => {
    await ready(runs, connection, 'Echo Assistant');
    await runs.writeMessage('phone question');
    await runs.run.click();
    await expect(lastTurnStatus(runs)).toHaveText('Done');
    await runs.history.getByRole('button', { name: 'Clear history…' }).click();
    const ask = runs.history.getByRole('alertdialog', { name: 'Clear history?' });
    await ask.scrollIntoViewIfNeeded();
    for (const b of [ask.getByRole('button', { name: 'Clear history' }), ask.getByRole('button', { name: 'Cancel' })]) {
      const box = (await b.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    await ask.getByRole('button', { name: 'Clear history' }).click();
    const undo = runs.history.getByRole('button', { name: 'Undo' });
    await expect(undo).toBeVisible();
    const box = (await undo.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
  });
});
