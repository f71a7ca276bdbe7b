import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { TOKENS, type ConnectionPage } from './pages/connection';
import { AGENT_TOKENS, type RunsPage } from './pages/runs';

const PAGES = ['/connection', '/schemas', '/schemas/sales', '/runs', '/runs/hr-policy-form', '/runs/echo-assistant', '/runs/no-such-agent'];

/** Starts an expense-filer durable run, waits until it asks for its approval, and presses Go to the approval. */
async function goToPausedApproval(page: Page, connection: ConnectionPage, runs: RunsPage) {
  await page.goto('/connection');
  await connection.setToken(AGENT_TOKENS.agents);
  await page.goto('/runs/expense-filer');
  await runs.answerBy('durable');
  await runs.writeMessage('File my expenses');
  await runs.run.click();
  await expect(page.getByRole('status', { name: 'Run state' })).toHaveText('Waiting for your approval', { timeout: 15_000 });
  await page.getByRole('button', { name: 'Go to the approval' }).click();
}

/** How far the document is wider than the window: 0 when nothing scrolls sideways. */
const sidewaysOverflow = '(document.documentElement.scrollWidth - window.innerWidth)';

test.describe('on a phone (390×844)', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('no page scrolls sideways, and the connection panel is a summary that opens', async ({ page, connection, runs }) => {
    await page.goto('/connection');
    await expect(connection.panel.locator('summary')).toContainText('Reference service');
    await expect(connection.token).toBeHidden();
    await connection.setToken(AGENT_TOKENS.global);
    await expect(connection.panel.locator('summary')).toContainText('token sandbo…');
    await connection.panel.locator('summary').click();
    for (const path of PAGES) {
      await page.goto(path);
      await expect(page.getByRole('main')).not.toBeEmpty();
      await page.waitForLoadState('networkidle');
      expect(await page.evaluate<number>(sidewaysOverflow), `${path} scrolls sideways`).toBeLessThanOrEqual(0);
    }
    // After a streamed run too, with its timeline and transcript on the page.
    await page.goto('/connection');
    await connection.setToken(AGENT_TOKENS.agents);
    await page.goto('/runs/echo-assistant');
    await runs.writeMessage('A phone-sized answer');
    // Run and Stop stay on screen beside the message being written, not a screen-length below it.
    await expect(runs.message()).toBeInViewport();
    await expect(runs.run).toBeInViewport();
    await expect(runs.stop).toBeInViewport();
    await runs.startRun();
    await expect(runs.status).toHaveText('Done');
    await expect(runs.status).toBeInViewport();
    await expect(runs.transcript).toBeInViewport();
    expect(await page.evaluate<number>(sidewaysOverflow)).toBeLessThanOrEqual(0);

    // A durable run's page, paused with its approval card.
    await page.goto('/runs/expense-filer');
    await runs.answerBy('durable');
    await runs.writeMessage('File my expenses');
    await runs.run.click();
    await expect(page.getByRole('status', { name: 'Run state' })).toHaveText('Waiting for your approval', { timeout: 15_000 });
    expect(await page.evaluate<number>(sidewaysOverflow), 'the paused durable run scrolls sideways').toBeLessThanOrEqual(0);
    // History with durable rows (run ids, last read times) wraps inside the screen.
    await runs.history.scrollIntoViewIfNeeded();
    await expect(runs.historyItem(1)).toContainText('last read');
    for (const row of await runs.historyItems.all()) {
      const box = (await row.boundingBox())!;
      expect(box.x + box.width, 'a history row is wider than the screen').toBeLessThanOrEqual(390);
    }
    expect(await page.evaluate<number>(sidewaysOverflow), 'history scrolls sideways').toBeLessThanOrEqual(0);
    await page.getByRole('link', { name: 'Open the run’s own page' }).click();
    await expect(page.getByRole('status', { name: 'Run state' })).toHaveText('Waiting for your approval');
    expect(await page.evaluate<number>(sidewaysOverflow), 'the durable run page scrolls sideways').toBeLessThanOrEqual(0);
  });
});

/** The control that has focus, when the Run bar fixed at the screen's bottom covers part of it. */
const focusUnderTheBar = `(() => {
  const el = document.activeElement;
  const bar = document.querySelector('.response-head');
  if (!el || el === document.body || !bar || bar.contains(el)) return null;
  const r = el.getBoundingClientRect();
  const b = bar.getBoundingClientRect();
  // One taller than the room above the bar shows its start there; any other shows whole.
  const fits = r.height <= b.top;
  if (r.height === 0 || (fits ? r.bottom <= b.top + 1 : r.top >= -2 && r.top < b.top - 20)) return null;
  const name = (el.getAttribute('aria-label') || el.textContent || el.tagName).trim().slice(0, 40);
  return name + ' spans ' + Math.round(r.top) + ' to ' + Math.round(r.bottom) + ' px, under the bar from ' + Math.round(b.top) + ' px';
})()`;

test.describe('keyboard on a phone (390×844)', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the Run bar fixed at the bottom never covers the control that has focus, Tab after Tab, beside a paused durable run', async ({ page, connection, runs }) => {
    // The bar is at its tallest while it says the run waits for a decision.
    await goToPausedApproval(page, connection, runs);
    const covered: string[] = [];
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      const under = await page.evaluate<string | null>(focusUnderTheBar);
      if (under) covered.push(under);
    }
    expect(covered).toEqual([]);
  });
});

/**
 * Whether each select in the editor is wide enough for its chosen option's text (with its padding
 * and arrow), measured in the select's own font: false for a type cut to "PICKL".
 */
const selectsShowTheirValue = `[...document.querySelectorAll('form select')].map((s) => {
  const style = getComputedStyle(s);
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = [style.fontStyle, style.fontWeight, style.fontSize, style.fontFamily].join(' ');
  const text = ctx.measureText(s.selectedOptions[0].text).width;
  // Chromium draws the arrow in about 20 px beside the padding.
  return s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20 >= text;
})`;

/** Elements inside the editor that scroll sideways (a table in its own scrolling box). */
const editorSideways = `[...document.querySelectorAll('form *')].filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible' && !['SELECT', 'INPUT', 'TEXTAREA', 'PRE'].includes(e.tagName) && !e.closest('.code-snippets')).length`;

test.describe('schema editor on a phone (390×844)', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('each key is a card: name, type, skip indexing and Remove labelled and on screen, the type whole, nothing scrolls sideways', async ({ page, connection, schemas }) => {
    await schemas.open('sales');
    await connection.setToken(TOKENS.global);
    await schemas.editSchema.click();
    await expect(schemas.editor()).toBeVisible();
    await schemas.addKeyRow('region', 'MULTIPICKLIST');
    const keys = await schemas.editor().getByRole('textbox', { name: /^Key \d+ name$/ }).count();
    expect(keys).toBeGreaterThan(1);
    expect(await page.evaluate<boolean[]>(selectsShowTheirValue), 'a type is cut').not.toContain(false);
    expect(await page.evaluate<number>(editorSideways), 'something in the editor scrolls sideways').toBe(0);
    for (let n = 1; n <= keys; n++) {
      for (const control of [schemas.keyName(n), schemas.keyType(n), schemas.keySkipIndexing(n), schemas.removeKey(n)]) {
        await control.scrollIntoViewIfNeeded();
        await expect(control).toBeVisible();
        const box = (await control.boundingBox())!;
        expect(box.x, `key ${n}: a control starts off screen`).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, `key ${n}: a control ends off screen`).toBeLessThanOrEqual(390);
      }
      const card = schemas.editor().getByRole('group', { name: `Key ${n}`, exact: true });
      for (const label of ['Name', 'Type', 'Skip indexing']) await expect(card.getByText(label, { exact: true })).toBeVisible();
    }
    expect(await page.evaluate<number>(sidewaysOverflow)).toBeLessThanOrEqual(0);
    // The card's controls still work: a removed key goes.
    await schemas.removeKey(keys).click();
    await expect(schemas.editor().getByRole('textbox', { name: /^Key \d+ name$/ })).toHaveCount(keys - 1);
  });
});

test.describe('on a laptop (1440×900)', () => {
  test('the schema editor is a table of keys, one row each, under column headers', async ({ page, connection, schemas }) => {
    await schemas.open('sales');
    await connection.setToken(TOKENS.global);
    await schemas.editSchema.click();
    const table = schemas.editor().getByRole('table');
    for (const name of ['Key name', 'Type', 'Skip indexing']) await expect(table.getByRole('columnheader', { name })).toBeVisible();
    await expect(table.getByRole('textbox', { name: 'Key 1 name' })).toBeVisible();
    expect(await page.evaluate<boolean[]>(selectsShowTheirValue)).not.toContain(false);
  });


  test.use({ viewport: { width: 1440, height: 900 } });

  test('Go to the approval shows what is to be approved below the sticky Run bar, its choice focused', async ({ page, connection, runs }) => {
    await goToPausedApproval(page, connection, runs);
    const approve = page.getByRole('button', { name: 'Approve' });
    await expect(approve).toBeFocused();
    await expect(approve).toBeInViewport();
    const bar = (await page.locator('.response-head').boundingBox())!;
    const tool = (await page.getByRole('heading', { name: /Submit expense report/ }).boundingBox())!;
    expect(tool.y, 'the tool’s name is under the Run bar').toBeGreaterThanOrEqual(bar.y + bar.height);
  });

  test('request and response sit side by side, each scrolling on its own; a started run is in view with Stop beside it', async ({ page, connection, runs }) => {
    await page.goto('/runs/hr-policy-form');
    await connection.setToken(AGENT_TOKENS.agents);
    const request = page.locator('.request-side');
    const response = page.locator('.response-side');
    const [r, s] = [await request.boundingBox(), await response.boundingBox()];
    expect(r!.x + r!.width).toBeLessThanOrEqual(s!.x + 1);
    expect(Math.abs(r!.y - s!.y)).toBeLessThan(2);
    // The page itself does not scroll; the request side does.
    expect(await page.evaluate<number>('document.documentElement.scrollHeight - window.innerHeight')).toBeLessThanOrEqual(0);
    await runs.field('Topic').fill('parental leave');
    await runs.field('Region').selectOption('emea');
    await request.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    expect(await request.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
    await expect(runs.run).toBeInViewport();
    await expect(runs.stop).toBeInViewport();

    await runs.startRun();
    await expect(runs.status).toBeFocused();
    await expect(runs.status).toHaveText('Done');
    await expect(runs.transcript).toBeInViewport();
    // With a run in history, the window still has nothing of its own to scroll into.
    await expect(page.locator('.history-row').first()).toBeAttached();
    expect(await page.evaluate<number>('document.documentElement.scrollHeight - window.innerHeight')).toBeLessThanOrEqual(0);
  });
});

test('a deep link opens the agent; an unknown id says so once; the picker and history navigate', async ({ page, connection, runs, shell }) => {
  await page.goto('/runs/no-such-agent');
  await connection.setToken(AGENT_TOKENS.agents);
  await expect(runs.main.getByRole('alert')).toHaveCount(1);
  await expect(runs.main.getByRole('alert')).toContainText('No agent “no-such-agent” on this instance');
  await expect(runs.inputForm).toBeHidden();

  await runs.chooseAgent('Echo Assistant');
  await expect(page).toHaveURL(/\/runs\/echo-assistant$/);
  await runs.writeMessage('Deep links');
  await runs.startRun();
  await expect(runs.status).toHaveText('Done');

  await runs.chooseAgent('HR Policy Agent');
  await expect(page).toHaveURL(/\/runs\/hr-policy-form$/);
  await runs.history.getByRole('link', { name: 'Echo Assistant' }).click();
  await expect(page).toHaveURL(/\/runs\/echo-assistant$/);
  await expect(runs.message()).toHaveValue('Deep links');

  await page.reload();
  await expect(runs.agentHeading).toContainText('Echo Assistant');
  await shell.expectNoAxeViolations();
});

test('keyboard: Ctrl+Enter runs from the request side, focus goes to the status, Escape stops; the navigation marks the live run', async ({ page, connection, runs, shell }) => {
  await page.goto('/runs/slow-storyteller');
  await connection.setToken(AGENT_TOKENS.agents);
  await runs.writeMessage('A long story');
  const before = await runs.serviceSeq();
  await runs.message().press('Control+Enter');
  await expect(runs.status).toHaveText('Streaming…');
  await expect(runs.status).toBeFocused();
  await expect(shell.nav().getByRole('link', { name: /^Agent runs.*a run is live/ })).toBeVisible();

  await page.keyboard.press('Escape');
  await expect(runs.status).toHaveText('Stopped');
  await expect(shell.nav().getByRole('link', { name: 'Agent runs', exact: true })).toBeVisible();
  await expect.poll(async () => (await runs.serviceRunsAfter(before)).map((r) => r.outcome)).toEqual(['client-closed']);
});
