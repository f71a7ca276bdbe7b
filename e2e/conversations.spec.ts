import { readFile } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { AGENT_TOKENS, RunsPage } from './pages/runs';
import { ConnectionPage } from './pages/connection';

interface Message {
  role: 'USER' | 'GLEAN_AI';
  content: { type: string; text: string }[];
}

const user = (text: string): Message => ({ role: 'USER', content: [{ type: 'text', text }] });
/**
 * What goes back of the echo assistant's streamed answer: one GLEAN_AI message, the words it
 * streamed one per event joined in order (the same message a wait for that answer returns).
 */
const echoed = (q: string): Message[] => [
  { role: 'GLEAN_AI', content: [{ type: 'text', text: `You asked: "${q}". This is the reference service's echo assistant, answering one word per event.` }] },
];

const sidewaysOverflow = '(document.documentElement.scrollWidth - window.innerWidth)';

/** The conversation in the response pane. */
class Thread {
  readonly turns: Locator;
  readonly replyBox: Locator;
  readonly send: Locator;
  constructor(readonly page: Page, readonly runs: RunsPage) {
    this.turns = runs.output.getByRole('list', { name: 'Turns' });
    this.replyBox = runs.output.getByLabel(/^Reply to /);
    this.send = runs.output.getByRole('button', { name: 'Send reply' });
  }

  turn(n: number): Locator {
    return this.turns.getByRole('listitem', { name: /^Turn/ }).nth(n - 1);
  }

  items(): Locator {
    return this.turns.getByRole('listitem', { name: /^Turn/ });
  }

  lastStatus(): Locator {
    return this.runs.output.locator('.turn-meta .status').last();
  }

  async reply(text: string) {
    await this.replyBox.fill(text);
    await this.replyBox.press('Control+Enter');
  }

  /** The messages each run POST after `from` carried, as the service received them. */
  async sentSince(from: number): Promise<unknown[]> {
    const posts = (await this.runs.servicePosts()) as { messages?: unknown }[];
    return posts.slice(from).map((p) => p.messages);
  }
}

test('a three-turn conversation sends exactly the conversation each turn, survives a reload, branches from turn 1, and travels as a file', async ({
  page,
  runs,
  connection,
  shell,
  browser,
}) => {
  await runs.open();
  await connection.setToken(AGENT_TOKENS.agents);
  const thread = new Thread(page, runs);
  await runs.chooseAgent('Echo Assistant');
  const from = (await runs.servicePosts()).length;

  await runs.writeMessage('What is a metadata group?');
  await runs.run.click();
  await expect(page).toHaveURL(/\/runs\/echo-assistant\/thread\/thread_/);
  await expect(thread.lastStatus()).toHaveText('Done');
  await shell.expectNoAxeViolations();

  // The preview shows the exact body before it is sent.
  await thread.replyBox.fill('And a scope?');
  await runs.output.getByText(/^Request it sends:/).click();
  const second = [user('What is a metadata group?'), ...echoed('What is a metadata group?'), user('And a scope?')];
  expect(JSON.parse((await runs.output.getByLabel('Reply request body').textContent())!)).toEqual({ messages: second, stream: true });
  await thread.replyBox.press('Control+Enter');
  await expect(thread.items()).toHaveCount(2);
  await expect(thread.lastStatus()).toHaveText('Done');

  await thread.reply('Thanks!');
  await expect(thread.items()).toHaveCount(3);
  await expect(thread.lastStatus()).toHaveText('Done');
  const third = [...second, ...echoed('And a scope?'), user('Thanks!')];
  expect(await thread.sentSince(from)).toEqual([[user('What is a metadata group?')], second, third]);

  // A reload restores the thread from history.
  const url = page.url();
  await page.reload();
  await expect(thread.items()).toHaveCount(3);
  await expect(thread.turn(3)).toContainText('You asked: "Thanks!"');
  await expect(runs.historyItem(1)).toContainText('What is a metadata group? · conversation, 3 turns');

  // Edit the first question: a new branch from the start, the old one still there.
  await thread.turn(1).getByRole('button', { name: 'Edit' }).click();
  await thread.turn(1).getByLabel(/^Edit the question/).fill('What is a custom metadata schema?');
  await thread.turn(1).getByRole('button', { name: 'Send as a new branch' }).click();
  await expect(thread.items()).toHaveCount(1);
  await expect(thread.lastStatus()).toHaveText('Done');
  expect((await thread.sentSince(from)).at(-1)).toEqual([user('What is a custom metadata schema?')]);
  await expect(thread.turn(1).getByRole('group', { name: 'Branches at this turn' })).toContainText('Branch 2 of 2');
  await thread.turn(1).getByRole('button', { name: 'Previous branch' }).click();
  await expect(thread.items()).toHaveCount(3);
  await expect(thread.turn(1)).toContainText('Branch 1 of 2');
  await shell.expectNoAxeViolations();

  // Export, then import into a browser that has never seen it: the same turns, read-only.
  const download = page.waitForEvent('download');
  await runs.output.getByRole('button', { name: 'Export conversation' }).click();
  const file = await (await download).path();
  const text = await readFile(file, 'utf8');
  expect(text).not.toContain(AGENT_TOKENS.agents);
  expect(text.toLowerCase()).not.toContain('authorization');
  const exported = JSON.parse(text) as { turns: unknown[] };
  expect(exported.turns).toHaveLength(4);

  const fresh = await browser.newContext();
  const other = await fresh.newPage();
  const otherRuns = new RunsPage(other);
  await otherRuns.open();
  await otherRuns.history.getByLabel('Conversation file to import').setInputFiles(file);
  await expect(other).toHaveURL(/\/runs\/echo-assistant\/thread\/imported_/);
  const imported = new Thread(other, otherRuns);
  await expect(imported.items()).toHaveCount(1);
  await expect(imported.turn(1)).toContainText('What is a custom metadata schema?');
  await imported.turn(1).getByRole('button', { name: 'Previous branch' }).click();
  await expect(imported.items()).toHaveCount(3);
  for (let n = 1; n <= 3; n++) await expect(imported.turn(n)).toContainText((await thread.turn(n).locator('.turn-user .turn-text').textContent())!);
  await expect(imported.turn(3)).toContainText('You asked: "Thanks!"');
  await expect(imported.replyBox).toHaveCount(0);
  await expect(otherRuns.output.getByText(/read-only/)).toBeVisible();

  // Continued on that browser's profile, the next turn carries the whole imported branch.
  await new ConnectionPage(other).setToken(AGENT_TOKENS.agents);
  await otherRuns.output.getByRole('button', { name: /^Continue on profile/ }).click();
  const before = (await otherRuns.servicePosts()).length;
  await imported.reply('One more');
  await expect(imported.items()).toHaveCount(4);
  await expect(imported.lastStatus()).toHaveText('Done');
  expect(await new Thread(other, otherRuns).sentSince(before)).toEqual([[...third, ...echoed('Thanks!'), user('One more')]]);

  // A file that is not a conversation is refused with a clear message, and nothing is added.
  await otherRuns.history.getByLabel('Conversation file to import').setInputFiles({ name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('{"format":"metadata-agents-console/thread","version":1}') });
  await expect(otherRuns.history.getByRole('alert')).toContainText(/Not imported: notes\.json: The file does not match the conversation format .*must have required property/);
  await fresh.close();
  expect(page.url()).toBe(url);
});

test('an expense-filer conversation is approved inside the thread, in one click, and goes on', async ({ page, runs, connection }) => {
  await runs.open();
  await connection.setToken(AGENT_TOKENS.agents);
  const thread = new Thread(page, runs);
  await runs.chooseAgent('Expense Filer');
  await runs.answerBy('durable');
  await runs.writeMessage('File my receipts from Berlin');
  await runs.run.click();
  const approve = thread.turn(1).getByRole('button', { name: 'Approve' });
  await expect(approve).toBeVisible({ timeout: 15_000 });
  await approve.click();
  await expect(thread.lastStatus()).toHaveText('Succeeded', { timeout: 15_000 });
  await expect(thread.turn(1)).toContainText('You approved “Submit expense report”');
  await expect(thread.turn(1)).toContainText('EXP-1042');
  await thread.reply('Which report number was it?');
  await expect(thread.items()).toHaveCount(2);
  await expect(thread.turn(2)).toContainText('Which report number was it?');
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`on a phone (${colorScheme}), the thread and the reply box fit with no sideways scroll and pass an accessibility scan`, async ({ page, runs, connection, shell }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme });
    await page.goto('/connection');
    await connection.setToken(AGENT_TOKENS.agents);
    await page.goto('/runs/echo-assistant');
    const thread = new Thread(page, runs);
    await runs.writeMessage('A question written on a phone, long enough to wrap across the narrow screen several times over');
    await runs.run.click();
    await expect(thread.lastStatus()).toHaveText('Done');
    await thread.reply('A follow-up_with_a_very_long_unbroken_word_that_must_wrap_rather_than_push_the_page_sideways_on_a_phone');
    await expect(thread.items()).toHaveCount(2);
    // The page went to the reply's turn, not back to the conversation's first.
    await expect(thread.items().first()).not.toBeInViewport();
    await expect(thread.lastStatus()).toHaveText('Done');
    await thread.replyBox.scrollIntoViewIfNeeded();
    await expect(thread.replyBox).toBeInViewport();
    await runs.output.getByText(/^Request it sends:/).click();
    expect(await page.evaluate<number>(sidewaysOverflow), 'the thread scrolls sideways').toBeLessThanOrEqual(0);
    await shell.expectNoAxeViolations();
  });
}
