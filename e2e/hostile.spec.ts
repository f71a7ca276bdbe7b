/**
 * Issue 27, the page: whatever an instance sends, the console answers within a second and says
 * what it cut or refused. Each test reaches a hostile stand-in instance (scripts/hostile-instance.ts,
 * a bare node:http server this file starts on a free port) through a console server of its own,
 * started with `--upstream` pointing at it, on a profile that connects through that server.
 */
import { test as base, expect } from './fixtures';
import { settle, watchCsp } from './csp-watch';
import { Heartbeat } from './pages/heartbeat';
import { startConsoleServer, type ConsoleServer } from '../scripts/console-server';
import {
  CATASTROPHIC_INPUT,
  CATASTROPHIC_PATTERN,
  EVENT_BYTES,
  HOSTILE_TOKEN,
  HUGE_ENUM_VALUES,
  MANY_MESSAGES,
  MEGABYTE_EVENTS,
  startHostileInstance,
  WIDE_FORM_FIELDS,
  WIDE_GROUP_KEYS,
  type HostileInstance,
} from '../scripts/hostile-instance';

/** The page must answer within this, throughout (issue 27): its own work, in its thread's CPU time. */
const RESPONSIVE_MS = 1_000;
/**
 * And on the wall clock, with the machine's load in it: a bound no load of a 2-core machine
 * stretches a one-second task to, which a wait of the page's thread without CPU would still
 * reach (the page has none: lint refuses dialogs and synchronous requests).
 */
const FROZEN_MS = 5_000;

const test = base.extend<{ heartbeat: Heartbeat }, { hostile: { instance: HostileInstance; console: ConsoleServer } }>({
  hostile: [
    // Playwright reads a fixture's dependencies from its first parameter: this one has none.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const instance = await startHostileInstance();
      const server = await startConsoleServer(['--upstream', instance.origin]);
      try {
        await use({ instance, console: server });
      } finally {
        server.stop();
        await instance.close();
      }
    },
    { scope: 'worker', timeout: 120_000 },
  ],
  baseURL: async ({ hostile }, use) => {
    await use(hostile.console.origin);
  },
  heartbeat: async ({ page, connection }, use) => {
    // The page's policy holds throughout (the linear-time pattern engine compiles no code).
    const violations = await watchCsp(page);
    const heartbeat = new Heartbeat(page);
    await heartbeat.install();
    // A profile that reaches the hostile instance through the console's server.
    await connection.open();
    await connection.createProfile({ name: 'Hostile', mode: 'proxy', token: HOSTILE_TOKEN });
    await use(heartbeat);
    await heartbeat.stop();
    await settle(page);
    expect(violations).toEqual([]);
  },
});

// A trace snapshots the whole page at every action and every retry of an assertion, in the page's
// own thread: with a large DOM those snapshots are the page's longest tasks, not the console's.
test.use({ trace: 'off' });

// The page's own work, in its thread's CPU time: on a loaded machine the wall clock also counts the
// time other processes held the cores, so it is held only to FROZEN_MS.
const expectResponsive = async (heartbeat: Heartbeat) => {
  const task = await heartbeat.longestTask();
  const told = `the page's longest task: ${Math.round(task.cpuMs)} ms of CPU, ${Math.round(task.wallMs)} ms of wall clock; the heartbeat's longest gap ${Math.round(await heartbeat.maxGap())} ms (gaps over 250 ms: ${await heartbeat.gaps()})`;
  expect(task.tasks, 'tasks of the page read from the trace').toBeGreaterThan(0);
  expect(task.cpuMs, told).toBeLessThan(RESPONSIVE_MS);
  expect(Math.max(task.wallMs, await heartbeat.maxGap()), told).toBeLessThan(FROZEN_MS);
};

test('a catastrophic pattern is checked in linear time, and a pattern the page cannot check says so beside its field', async ({ page, runs, heartbeat }) => {
  await page.goto('/runs/pattern-trap');
  await expect(runs.field('Code')).toBeVisible();
  await heartbeat.reset();
  await runs.field('Code').fill(CATASTROPHIC_INPUT);
  const codeHint = page.locator(`#${await runs.field('Code').getAttribute('aria-describedby')}`);
  await expect(codeHint).toContainText(`must match pattern "${CATASTROPHIC_PATTERN}".`);
  await expectResponsive(heartbeat);
  await runs.field('Code').fill('aaaa');
  await expect(codeHint).not.toContainText('must match pattern');

  const pinHint = page.locator(`#${await runs.field('PIN').getAttribute('aria-describedby')}`);
  await expect(pinHint).toContainText('Pattern not checked here');
  await runs.field('PIN').fill('no digits');
  await expect(runs.field('PIN')).toHaveAttribute('aria-invalid', 'false');
  await expectResponsive(heartbeat);
});

test('a form of 20,000 fields and a 50,000-value enum is shown in part, with a search, and checked as typed', async ({ page, runs, heartbeat }) => {
  await page.goto('/runs/wide-form');
  // From the page's own start on: the schema arrives after it.
  await heartbeat.reset();
  await expect(runs.inputForm).toBeVisible();
  await expect(runs.inputForm).toContainText(`${WIDE_FORM_FIELDS.toLocaleString('en-US')} fields`);
  await expectResponsive(heartbeat);
  // Only the fields in view are in the page.
  expect(await runs.inputForm.locator('input, select, textarea').count()).toBeLessThan(200);

  await heartbeat.reset();
  await runs.inputForm.getByLabel('Find a field').fill('Field 19999');
  await runs.field('Field 19999').fill('typed far down');
  await expect(runs.field('Field 19999')).toHaveValue('typed far down');

  await runs.inputForm.getByLabel('Find a field').fill('Choice');
  const choice = runs.field('Choice');
  await choice.fill('value-4999');
  const choiceHint = page.locator(`#${await choice.getAttribute('aria-describedby')}`);
  await expect(choiceHint).toContainText(`${HUGE_ENUM_VALUES.toLocaleString('en-US')} allowed values`);
  await expect(choice).toHaveAttribute('aria-invalid', 'false');
  await choice.fill('not-a-value');
  await expect(choiceHint).toContainText('must be equal to one of the allowed values');
  await expectResponsive(heartbeat);
});

test('a schema nested 2,000 levels deep is refused with a message, not the error page', async ({ page, heartbeat }) => {
  await page.goto('/runs/deep-form');
  const refusal = page.getByRole('main').getByRole('alert').filter({ hasText: 'nests deeper than' });
  await expect(refusal).toBeVisible();
  await expect(page.getByText('Something went wrong while showing it')).toHaveCount(0);
  await expectResponsive(heartbeat);
});

test('200 events of 1 MB: each is kept and shown cut, the cut is said, the full data is downloadable, the heap stays bounded', async ({ page, runs, heartbeat }) => {
  test.setTimeout(120_000);
  await page.goto('/runs/megabyte-events');
  await runs.writeMessage('Send the big ones');
  await heartbeat.reset();
  await runs.startRun();
  await expect(runs.status).toHaveText('Done', { timeout: 90_000 });
  await expect(runs.eventCount).toHaveAttribute('data-count', String(MEGABYTE_EVENTS));
  await expectResponsive(heartbeat);
  await expect(runs.transcript).toContainText('characters of event 1 cut');

  // The first event, from the keyboard: Home, then Enter opens it below the list.
  await runs.timeline.focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('Enter');
  const detail = runs.output.getByLabel('Event 1', { exact: true });
  await expect(detail).toContainText('Cut: shown are the first 65,536 of its');
  const download = page.waitForEvent('download');
  await detail.getByRole('button', { name: 'Download the full data' }).click();
  const chunks: Buffer[] = [];
  for await (const chunk of await (await download).createReadStream()) chunks.push(chunk as Buffer);
  const full = Buffer.concat(chunks);
  expect(full.length).toBe(EVENT_BYTES);
  expect(JSON.parse(full.toString('utf8')).messages[0].content[0].text).toMatch(/^Event 1 begins\..* Event 1 ends\.$/s);
  // Past the run's budget for full data, an event says it was not kept.
  await runs.timeline.focus();
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await expect(runs.output.getByLabel(`Event ${MEGABYTE_EVENTS}`, { exact: true })).toContainText('Its full data is not kept');
  await expectResponsive(heartbeat);
  // Measured last: a full collection stops the page while it runs.
  expect(await heartbeat.heapMb()).toBeLessThan(300);
});

test('an event line that never ends is cut off at its limit, and the run says why', async ({ page, runs, heartbeat }) => {
  await page.goto('/runs/endless-line');
  await runs.writeMessage('Never stop');
  await heartbeat.reset();
  await runs.startRun();
  await expect(runs.status).toHaveText('Interrupted', { timeout: 60_000 });
  await expect(runs.output).toContainText('without an end of line');
  await expect(runs.eventCount).toHaveAttribute('data-count', '1');
  await expectResponsive(heartbeat);
});

test('a wait answer of 100,000 messages is shown in part, saying how many', async ({ page, runs, heartbeat }) => {
  await page.goto('/runs/many-messages');
  await runs.answerBy('wait');
  await runs.writeMessage('Many please');
  await heartbeat.reset();
  await runs.startRun();
  await expect(runs.status).toHaveText('Done', { timeout: 60_000 });
  await expect(runs.output).toContainText(`Shown are the first 500 of ${MANY_MESSAGES.toLocaleString('en-US')} messages`);
  await expect(runs.output).toContainText('Not checked against the public schema yet');
  await expectResponsive(heartbeat);
});

test('a schema of 5,001 keys is listed in part, with a filter', async ({ schemas, heartbeat }) => {
  await schemas.open();
  await heartbeat.reset();
  await schemas.openGroup('wide');
  await expect(schemas.tab('Keys')).toHaveText(`Keys (${WIDE_GROUP_KEYS})`);
  await expect(schemas.tabPanel()).toContainText(`${WIDE_GROUP_KEYS.toLocaleString('en-US')} keys; the first 200 are listed`);
  await expect(schemas.keysTable('wide').locator('tbody tr')).toHaveCount(200);
  await schemas.main.getByLabel('Filter keys by name').fill('key5001');
  await expect(schemas.keysTable('wide').locator('tbody tr')).toHaveCount(1);
  await expect(schemas.keyRow('wide', 'key5001')).toBeVisible();
  // Document values: fields for the first keys, a search for the others, and what was typed is kept.
  await expect(schemas.main.getByText(`This group has ${WIDE_GROUP_KEYS.toLocaleString('en-US')} keys: fields are shown for the first 50`)).toBeVisible();
  await schemas.main.getByLabel('Find a key').fill('key4999');
  await schemas.main.getByLabel(/^key4999 /).fill('a value');
  await schemas.main.getByLabel('Find a key').fill('');
  await schemas.main.getByLabel('Find a key').fill('key4999');
  await expect(schemas.main.getByLabel(/^key4999 /)).toHaveValue('a value');
  await expectResponsive(heartbeat);
});

test('a suite case whose pattern grinds on a long answer is judged in a worker: the page answers throughout, and the case fails at the budget saying so', async ({ page, heartbeat }) => {
  test.setTimeout(120_000);
  // Issue 37: accepted at import (RE2 takes it); on a 28,000-character answer it held the page's thread 22 s.
  const pattern = '(?:[ -~]{1000}|Q)'.repeat(500);
  const file = {
    format: 'metadata-agents-console/suite',
    version: 1,
    suite: { name: 'Hostile pattern' },
    cases: [
      { id: 'grind', name: 'Grinding pattern', agent: { id: 'long-answer' }, api: 'platform', mode: 'wait', input: { chars: 28_000 }, assertions: [{ kind: 'outcome', expect: 'success' }, { kind: 'answer-matches', pattern }] },
      { id: 'plain', name: 'Plain pattern', agent: { id: 'long-answer' }, api: 'platform', mode: 'wait', input: { chars: 28_000 }, assertions: [{ kind: 'answer-matches', pattern: '^The answer\\.' }] },
    ],
  };
  await page.goto('/suites');
  await page.getByLabel('Suite file to import').setInputFiles({ name: 'hostile-pattern.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(file)) });
  const main = page.getByRole('main');
  await expect(main.getByRole('button', { name: 'Run suite' })).toBeEnabled({ timeout: 30_000 });
  await heartbeat.reset();
  await main.getByRole('button', { name: 'Run suite' }).click();
  await expect(main.getByRole('status').filter({ hasText: /Finished: 2 of 2 · 1 passed · 1 failed/ })).toBeVisible({ timeout: 60_000 });
  await expectResponsive(heartbeat);
  const results = main.getByRole('region', { name: 'Results by case' });
  await results.getByRole('button', { name: 'Grinding pattern' }).click();
  await expect(results.getByRole('listitem').filter({ hasText: 'the answer matches' })).toContainText(
    'actual: not judged: matching the pattern against the answer (28,000 characters) took longer than 2,000 ms, the budget of one judgement',
  );
  await expectResponsive(heartbeat);
});
