import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { AGENT_TOKENS, type RunsPage } from './pages/runs';

const sidewaysOverflow = '(document.documentElement.scrollWidth - window.innerWidth)';

/** The run POSTs the service received after the first `from`, by path. */
async function postsSince(runs: RunsPage, from: number): Promise<string[]> {
  return (await runs.servicePosts()).slice(from).map((p) => p.path);
}

async function comparison(page: Page) {
  await expect(page).toHaveURL(/\/compare\/[^/]+\/[^/]+$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Compare two runs' })).toBeVisible();
  const verdict = page.getByRole('status', { name: 'Verdict' });
  await expect(verdict).toContainText(/The answers (match|differ)/, { timeout: 15_000 });
  return verdict;
}

test('a firehose run is drawn over time with its first event marked; hovering names an event and a click opens it in the timeline', async ({ page, runs, connection }) => {
  await page.goto('/connection');
  await connection.setToken(AGENT_TOKENS.agents);
  await page.goto('/runs/firehose');
  await runs.field('Events').fill('20000');
  await runs.startRun();
  await expect(runs.status).toHaveText('Done', { timeout: 30_000 });
  const chart = runs.output.getByTestId('stream-chart');
  await expect(chart).toBeVisible();
  await expect(runs.output.getByTestId('first-event-marker')).toHaveCount(1);
  // The text alternative says the numbers.
  await expect(chart).toHaveAttribute('aria-label', /^20,000 events, .* in [\d.]+ s; first event after [\d,]+ ms; peak [\d,]+ events per second/);
  await chart.scrollIntoViewIfNeeded();
  const box = (await chart.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
  await expect(runs.output.locator('.chart-readout')).toHaveText(/^At [\d.]+ s: event \d+, message, \d+ bytes \(a click or Enter opens it in the timeline\)$/);
  const seq = Number(/event (\d+)/.exec((await runs.output.locator('.chart-readout').textContent())!)![1]);
  await page.mouse.click(box.x + box.width * 0.5, box.y + box.height / 2);
  const detail = runs.output.locator('.event-detail');
  await expect(detail).toHaveAttribute('aria-label', `Event ${seq}`);
  // The timeline went to the event: its row is rendered and selected.
  await expect(runs.timeline.getByRole('option', { selected: true })).toHaveAttribute('aria-posinset', String(seq));
});

test('a slow stream is drawn live while it streams, and its words say when it has ended', async ({ page, runs, connection }) => {
  await page.goto('/connection');
  await connection.setToken(AGENT_TOKENS.agents);
  await page.goto('/runs/slow-storyteller');
  await runs.writeMessage('A story');
  await runs.startRun();
  await expect(runs.status).toHaveText('Streaming…');
  const chart = runs.output.getByTestId('stream-chart');
  // Drawn while it streams: the count in its words grows.
  await expect(chart).toHaveAttribute('aria-label', /so far/);
  await runs.stop.click();
  await expect(runs.status).toHaveText('Stopped');
  await expect(chart).toHaveAttribute('aria-label', /^\d+ events?, .* in [\d.]+ s; .*no silence over 1,000 ms\.$/);
});

test('legacy against current: one click runs the same input on both (one POST each), and the comparison says the answers match and which headers differ', async ({ page, runs, connection }) => {
  await page.goto('/connection');
  await connection.setToken(AGENT_TOKENS.agents);
  await page.goto('/runs/echo-assistant');
  await runs.useApi('Legacy');
  await runs.writeMessage('Does the replacement answer the same?');
  const from = (await runs.servicePosts()).length;
  await runs.deprecation.getByRole('button', { name: 'Compare with the replacement (runs both)' }).click();
  const verdict = await comparison(page);
  await expect(verdict).toContainText('The answers match: the replacement answers the same as the legacy endpoint.');
  await expect(verdict).toContainText('The bodies differ where the APIs do (/agent_id, /stream).');
  await expect(verdict).toContainText(/Headers that differ: .*deprecation.*sunset/);
  expect((await postsSince(runs, from)).sort()).toEqual(['/api/agents/echo-assistant/runs', '/rest/api/v1/agents/runs/stream']);
  const headers = page.getByRole('table', { name: 'Response header differences' });
  await expect(headers.getByRole('row', { name: /^deprecation/ })).toContainText('(absent)');
  await expect(page.getByText('A against B: legacy API against current API.')).toBeVisible();
  // Both on one time axis, each with its first event.
  await expect(page.getByTestId('first-event-marker')).toHaveCount(2);
  // The spec lens' verdict on each answer's events (the public spec gives stream events no schema, and says so).
  await expect(page.getByRole('region', { name: 'Run B' })).toContainText('No event has a public schema to check against.');
  // The comparison's address outlives the page: a reload reads both runs from history.
  await page.reload();
  await expect(await comparison(page)).toContainText('The answers match');
  expect(await postsSince(runs, from)).toHaveLength(2);
  // Exported without a token.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export comparison (JSON)' }).click();
  const file = await (await download).path();
  const text = (await import('node:fs')).readFileSync(file, 'utf8');
  expect(text).not.toContain(AGENT_TOKENS.agents);
  expect(JSON.parse(text)).toMatchObject({ format: 'metadata-agents-console/comparison', differences: { answersMatch: true, sent: ['legacy API against current API'] } });
});

test('two profiles compared: Run on both sends one POST with each profile’s token, and the answers are compared side by side', async ({ page, runs, connection }) => {
  await page.goto('/connection');
  await connection.setToken(AGENT_TOKENS.agents);
  await connection.createProfile({ name: 'Second token', token: AGENT_TOKENS.everything });
  await connection.switchTo('Reference service');
  await page.goto('/runs/echo-assistant');
  await runs.writeMessage('Same on both profiles?');
  await page.getByText('Run on both: compare with another API, mode, profile or agent').click();
  await page.getByRole('radio', { name: 'with another profile' }).check();
  await expect(page.getByLabel('Profile for B')).toHaveValue(/.+/);
  await page.getByLabel('Profile for B').selectOption({ label: 'Second token' });
  const from = (await runs.servicePosts()).length;
  const auth: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith('/api/agents/echo-assistant/runs')) auth.push(r.headers()['authorization'] ?? '');
  });
  await page.getByRole('button', { name: 'Run on both' }).click();
  const verdict = await comparison(page);
  await expect(verdict).toContainText('The answers match.');
  await expect(page.getByText('A against B: profile Reference service against Second token.')).toBeVisible();
  expect(await postsSince(runs, from)).toEqual(['/api/agents/echo-assistant/runs', '/api/agents/echo-assistant/runs']);
  expect(auth.sort()).toEqual([`Bearer ${AGENT_TOKENS.agents}`, `Bearer ${AGENT_TOKENS.everything}`].sort());
  await expect(page.getByRole('region', { name: 'Run A' })).toContainText('profile Reference service');
  await expect(page.getByRole('region', { name: 'Run B' })).toContainText('profile Second token');
  expect(page.url()).not.toContain('sandbox-');
});

test('two runs from history are compared: stream against wait, their differences marked word by word', async ({ page, runs, connection }) => {
  await page.goto('/connection');
  await connection.setToken(AGENT_TOKENS.agents);
  await page.goto('/runs/echo-assistant');
  await runs.writeMessage('First question');
  await runs.startRun();
  await expect(runs.status).toHaveText('Done');
  await runs.answerBy('wait');
  await page.goto('/runs/echo-assistant');
  await runs.writeMessage('Second question');
  await runs.startRun();
  await expect(runs.status).toHaveText('Done');
  const rows = runs.history.getByRole('listitem');
  await rows.nth(1).getByRole('button', { name: 'Compare…' }).click();
  await expect(runs.history.getByRole('status')).toContainText('One run chosen to compare');
  await rows.nth(0).getByRole('link', { name: 'Compare with the chosen run' }).click();
  const verdict = await comparison(page);
  await expect(verdict).toContainText('The answers differ');
  await expect(page.getByText('A against B: stream against wait.')).toBeVisible();
  await expect(page.getByRole('document', { name: 'Answer of A' }).locator('del')).toContainText(['First']);
  await expect(page.getByRole('document', { name: 'Answer of B' }).locator('ins')).toContainText(['Second']);
  const body = page.getByRole('table', { name: 'Request body differences' });
  await expect(body.getByRole('row', { name: /\/messages\/0\/content\/0\/text/ })).toBeVisible();
  await expect(body.getByRole('row', { name: /^\/stream/ })).toContainText('false');
  // The wait answer is checked by the spec lens.
  await expect(page.getByRole('region', { name: 'Run B' })).toContainText('matches the public schema');
  // A wait answer is drawn as its states on the same axis.
  await expect(page.getByTestId('state-chart')).toHaveCount(1);
});

test('an address whose runs are not in history says so', async ({ page, connection }) => {
  await page.goto('/connection');
  await connection.setToken(AGENT_TOKENS.agents);
  await page.goto('/compare/run_gone_1/run_gone_2');
  await expect(page.getByRole('heading', { name: 'This comparison’s runs are not in this browser’s history' })).toBeVisible();
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`on a phone (${colorScheme}), the comparison stacks with no sideways scroll, and it and the run chart pass an accessibility scan`, async ({ page, runs, connection, shell }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme });
    await page.goto('/connection');
    await connection.setToken(AGENT_TOKENS.agents);
    await page.goto('/runs/echo-assistant');
    await runs.writeMessage('A question asked on a phone, with a word_long_enough_to_need_wrapping_on_a_narrow_screen');
    await runs.startRun();
    await expect(runs.status).toHaveText('Done');
    await expect(runs.output.getByTestId('stream-chart')).toBeVisible();
    await shell.expectNoAxeViolations();
    await page.getByText('Run on both: compare with another API, mode, profile or agent').click();
    await page.getByRole('radio', { name: /^as wait/ }).check();
    await page.getByRole('button', { name: 'Run on both' }).click();
    await comparison(page);
    const a = (await page.getByRole('region', { name: 'Run A' }).boundingBox())!;
    const b = (await page.getByRole('region', { name: 'Run B' }).boundingBox())!;
    expect(b.y, 'B is below A').toBeGreaterThanOrEqual(a.y + a.height - 1);
    expect(Math.abs(a.x - b.x)).toBeLessThan(2);
    expect(await page.evaluate<number>(sidewaysOverflow), 'the comparison scrolls sideways').toBeLessThanOrEqual(0);
    await shell.expectNoAxeViolations();
    // Legacy against current, whose header values (Link, Sunset) are long: header names break
    // only at their hyphens, never inside a word ("depre/catio/n").
    await page.goto('/runs/echo-assistant');
    await runs.useApi('Legacy');
    await runs.writeMessage('Deprecated, on a phone?');
    await runs.deprecation.getByRole('button', { name: 'Compare with the replacement (runs both)' }).click();
    await comparison(page);
    expect(await page.evaluate<number>(sidewaysOverflow), 'the comparison scrolls sideways').toBeLessThanOrEqual(0);
    const names = page.getByRole('table', { name: 'Response header differences' }).locator('th[scope="row"] code');
    expect(await names.count()).toBeGreaterThan(0);
    for (const [name, lines] of await names.evaluateAll((els) => els.map((el) => [el.textContent!, el.getClientRects().length] as const))) {
      expect(lines, name).toBeLessThanOrEqual(name.split('-').length);
    }
  });
}
