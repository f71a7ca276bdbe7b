/**
 * `npm run screenshots`: PNGs of every page and its main states, light and dark, at
 * 1440×900 (a laptop) and 390×844 (a phone), into .screenshots/ (git-ignored), from the
 * console as `npm start` serves it, on a throw-away database. For people to look at.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { chromiumMissingMessage, chromiumPath } from './chromium.mjs';
import { startConsoleServer } from './console-server.ts';

const OUT = resolve(import.meta.dirname, '..', '.screenshots');
const GLOBAL = 'sandbox-global-3f9c2a7d41e8b605';
const AGENTS = 'sandbox-agents-1d6f3b9e0a7c2548';

const VIEWPORTS = [
  { name: 'laptop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const SCHEMES = ['light', 'dark'] as const;
const only = process.argv.slice(2);

interface Shot {
  name: string;
  token?: string;
  /** A token of its own (agents.run), minted for each picture: a tool server it authorizes stays unauthorized for the others. */
  mint?: boolean;
  path: string;
  /** Brings the page into the state to show; the page is loaded at `path` first. */
  act?(page: Page): Promise<void>;
}

const SHOTS: Shot[] = [
  { name: 'connection-first-visit', path: '/connection' },
  { name: 'schemas-empty', token: GLOBAL, path: '/schemas' },
  { name: 'schemas-sales', token: GLOBAL, path: '/schemas/sales', act: (p) => p.getByRole('cell', { name: 'status' }).first().waitFor() },
  { name: 'runs-no-agent', token: AGENTS, path: '/runs' },
  {
    name: 'runs-picker-open',
    token: AGENTS,
    path: '/runs',
    act: async (p) => {
      await p.getByRole('combobox', { name: 'Agent' }).fill('a');
      await p.getByRole('listbox', { name: 'Agents' }).getByRole('option').first().waitFor();
    },
  },
  { name: 'runs-form', token: AGENTS, path: '/runs/hr-policy-form', act: (p) => p.getByLabel(/^Topic/).waitFor() },
  {
    name: 'runs-streaming',
    token: AGENTS,
    path: '/runs/slow-storyteller',
    act: async (p) => {
      await p.getByLabel('Message 1 text').fill('Tell me a story');
      await p.getByRole('button', { name: 'Run and stream' }).click();
      await p.getByTestId('event-count').filter({ hasText: /^[1-9]\d*$/ }).waitFor();
      await p.waitForTimeout(1500);
    },
  },
  {
    name: 'runs-done',
    token: AGENTS,
    path: '/runs/echo-assistant',
    act: async (p) => {
      await p.getByLabel('Message 1 text').fill('Hello there');
      await p.getByRole('button', { name: 'Run and stream' }).click();
      await p.locator('section.run-output [role="status"]', { hasText: 'Done' }).waitFor();
    },
  },
  {
    name: 'runs-refused',
    token: GLOBAL,
    path: '/runs/echo-assistant',
    // A token without agents.run is told so at the schema, before any run is sent.
    act: (p) => p.getByRole('alert').filter({ hasText: 'Use a token with agents.run' }).waitFor(),
  },
  {
    name: 'durable-approval',
    token: AGENTS,
    path: '/runs/trip-planner',
    act: async (p) => {
      await p.getByRole('radio', { name: /^Durable/ }).check();
      await p.getByLabel('Message 1 text').fill('Plan my Berlin trip');
      await p.getByRole('button', { name: 'Start durable run' }).click();
      await p.getByRole('status', { name: 'Run state' }).filter({ hasText: 'Waiting for your approval' }).waitFor({ timeout: 15_000 });
    },
  },
  {
    name: 'conversation',
    token: AGENTS,
    path: '/runs/echo-assistant',
    act: async (p) => {
      await p.getByLabel('Message 1 text').fill('What is a metadata group?');
      await p.getByRole('button', { name: 'Run and stream' }).click();
      const reply = p.getByLabel(/^Reply to /);
      await reply.fill('And how is it scoped?');
      await reply.press('Control+Enter');
      await p.getByRole('listitem', { name: /^Turn/ }).nth(1).locator('.turn-meta .status', { hasText: 'Done' }).waitFor();
      // The thread from its top: both turns, the second one's run below.
      await p.locator('.conversation').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    },
  },
  { name: 'runs-unknown-agent', token: AGENTS, path: '/runs/no-such-agent', act: (p) => p.getByRole('alert').first().waitFor() },
  {
    name: 'run-chart',
    token: AGENTS,
    path: '/runs/firehose',
    act: async (p) => {
      await p.getByRole('spinbutton', { name: 'Events', exact: true }).fill('20000');
      await p.getByRole('button', { name: 'Run and stream' }).click();
      await p.locator('section.run-output [role="status"]', { hasText: 'Done' }).waitFor({ timeout: 30_000 });
      const chart = p.getByTestId('stream-chart');
      await chart.evaluate((el) => el.scrollIntoView({ block: 'center' }));
      const box = await chart.boundingBox();
      if (box) await p.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2);
    },
  },
  {
    name: 'comparison',
    token: AGENTS,
    path: '/runs/echo-assistant',
    act: async (p) => {
      await p.getByRole('radio', { name: /^Legacy/ }).check();
      await p.getByLabel('Message 1 text').fill('Does the replacement answer the same?');
      await p.getByRole('button', { name: 'Compare with the replacement (runs both)' }).click();
      await p.getByRole('status', { name: 'Verdict' }).filter({ hasText: /The answers (match|differ)/ }).waitFor({ timeout: 15_000 });
    },
  },
  {
    name: 'comparison-lower',
    token: AGENTS,
    path: '/runs/echo-assistant',
    act: async (p) => {
      await p.getByRole('radio', { name: /^Current/ }).check();
      await p.getByLabel('Message 1 text').fill('Stream or wait?');
      await p.getByText('Run on both: compare with another API, mode, profile or agent').click();
      await p.getByRole('radio', { name: /^as wait/ }).check();
      await p.getByRole('button', { name: 'Run on both' }).click();
      await p.getByRole('status', { name: 'Verdict' }).filter({ hasText: /The answers (match|differ)/ }).waitFor({ timeout: 15_000 });
      await p.getByRole('heading', { name: 'Figures' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    },
  },
  {
    name: 'comparison-agents',
    token: AGENTS,
    path: '/runs/echo-assistant',
    act: async (p) => {
      await p.getByLabel('Message 1 text').fill('Two agents, one question about parental leave');
      await p.getByText('Run on both: compare with another API, mode, profile or agent').click();
      await p.getByRole('radio', { name: 'to another agent' }).check();
      await p.getByLabel('Agent id for B').fill('flaky-reporter');
      await p.getByRole('button', { name: 'Run on both' }).click();
      // The flaky reporter ends failed: the verdict says B gave no answer.
      await p.getByRole('status', { name: 'Verdict' }).filter({ hasText: /did not end with an answer/ }).waitFor({ timeout: 15_000 });
      // Both sides' titles, then (on a phone) B's and the figures.
      await p.getByRole('heading', { name: 'B: Flaky Reporter' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    },
  },
  {
    name: 'durable-required',
    token: AGENTS,
    path: '/runs/expense-filer',
    // A stream refused with the reference service's own 409, the lens's verdict expanded.
    act: async (p) => {
      // Its tools ask for approval, so it starts in Durable mode: Stream is chosen here on purpose.
      await p.getByRole('note', { name: 'Approval' }).waitFor();
      await p.getByRole('radio', { name: /^Stream/ }).check();
      await p.getByLabel('Message 1 text').fill('File my expenses');
      await p.getByRole('button', { name: 'Run and stream' }).click();
      const badge = p.getByRole('button', { name: /reference-service code/ });
      await badge.click();
      await badge.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    },
  },
  {
    name: 'durable-lens',
    token: AGENTS,
    path: '/runs/expense-filer',
    // A durable run's read, checked against the official client's models, expanded.
    act: async (p) => {
      await p.getByRole('radio', { name: /^Durable/ }).check();
      await p.getByLabel('Message 1 text').fill('File my expenses');
      await p.getByRole('button', { name: 'Start durable run' }).click();
      await p.getByRole('status', { name: 'Run state' }).filter({ hasText: 'Waiting for your approval' }).waitFor({ timeout: 15_000 });
      const badge = p.getByRole('button', { name: 'matches the official client’s model' });
      await badge.click();
      await badge.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    },
  },
  {
    name: 'conversation-branch',
    token: AGENTS,
    path: '/runs/echo-assistant',
    // Two branches, the first shown: the head tells its run.
    act: async (p) => {
      await p.getByLabel('Message 1 text').fill('Hi');
      await p.getByRole('button', { name: 'Run and stream' }).click();
      await p.locator('.turn-meta .status', { hasText: 'Done' }).waitFor();
      await p.getByRole('button', { name: 'Edit', exact: true }).click();
      await p.getByLabel(/^Edit the question/).fill('Hello, a longer question this time, with many more words in it');
      await p.getByRole('button', { name: 'Send as a new branch' }).click();
      await p.getByText('Branch 2 of 2').waitFor();
      await p.locator('.turn-meta .status', { hasText: 'Done' }).waitFor();
      await p.getByRole('button', { name: 'Previous branch' }).click();
      await p.getByText('Branch 1 of 2').waitFor();
    },
  },
  {
    name: 'schema-editor',
    token: GLOBAL,
    path: '/schemas/sales',
    act: async (p) => {
      await p.getByRole('button', { name: 'Edit schema' }).click();
      await p.getByRole('button', { name: 'Add key' }).click();
      await p.getByRole('heading', { name: /^Edit schema of/ }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    },
  },
  {
    name: 'connection-summary-open',
    token: AGENTS,
    path: '/runs',
    // The scopes field's hint; on a phone, the summary opened over the page.
    act: async (p) => {
      const summary = p.getByRole('complementary', { name: 'Connection' }).locator('summary');
      if (await summary.count()) await summary.click();
      await p.getByLabel('Scopes this token has').scrollIntoViewIfNeeded();
    },
  },
  {
    name: 'another-token',
    token: 'sandbox-everything-7e2a5c8d1b4f9063',
    path: '/runs/expense-filer',
    // A durable run started with one token, read with another: the page offers the ways on.
    act: async (p) => {
      const started = await p.request.post('/api/agents/expense-filer/runs', {
        headers: { Authorization: `Bearer ${AGENTS}` },
        data: { execution_mode: 'DURABLE', messages: [{ role: 'USER', content: [{ type: 'text', text: 'File my expenses' }] }] },
      });
      const { run } = (await started.json()) as { run: { run_id: string } };
      await p.goto(`/runs/expense-filer/${run.run_id}`);
      await p.getByRole('button', { name: 'Use another token' }).click();
      await p.getByRole('heading', { name: 'Another token for this page' }).waitFor();
    },
  },
  { name: 'suites', token: AGENTS, path: '/suites', act: async (p) => {
      await importSuite(p);
      await p.goto('/suites');
      await p.getByRole('link', { name: 'Release checks' }).waitFor();
    } },
  { name: 'suite-run', token: AGENTS, path: '/suites', act: async (p) => {
      await runSuite(p);
      await p.getByRole('region', { name: 'Results by case' }).getByRole('button', { name: 'Echo, answer changed' }).click();
      await p.getByRole('heading', { name: 'Run suite' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    } },
  { name: 'suite-case-run', token: AGENTS, path: '/suites', act: async (p) => {
      await runSuite(p);
      const results = p.getByRole('region', { name: 'Results by case' });
      await results.getByRole('button', { name: 'Echo, answer changed' }).click();
      await results.getByRole('button', { name: 'Open its run' }).click();
      await results.getByRole('listbox', { name: /^\d+ events$/ }).waitFor();
      await p.getByRole('heading', { name: 'Results' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    } },
  { name: 'suite-editor', token: AGENTS, path: '/suites', act: async (p) => {
      await importSuite(p);
      await p.getByRole('button', { name: 'Edit HR policy by topic' }).click();
      await p.getByRole('form', { name: /^Edit case/ }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    } },
  {
    name: 'agent-tools',
    token: AGENTS,
    path: '/runs/trip-planner',
    // Its tools, and the approval it may ask for said before any run (it starts in Durable mode).
    act: async (p) => {
      await p.getByRole('note', { name: 'Approval' }).waitFor();
      await p.getByRole('region', { name: 'Tools' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    },
  },
  {
    name: 'tools-unauthorized',
    mint: true,
    path: '/runs/calendar-helper',
    act: async (p) => {
      await refuseForTools(p);
      await p.getByRole('region', { name: 'Tool servers to authorize' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    },
  },
  {
    name: 'tool-consent',
    mint: true,
    path: '/runs/calendar-helper',
    // The reference service's own consent page, where Authorize sends the browser.
    act: async (p) => {
      await refuseForTools(p);
      await p.getByRole('button', { name: 'Authorize Google Calendar' }).click();
      await p.getByRole('button', { name: 'Allow' }).waitFor();
    },
  },
  {
    name: 'tools-authorized',
    mint: true,
    path: '/runs/calendar-helper',
    // Back from both consent pages: every server authorized, Run again offered.
    act: async (p) => {
      await refuseForTools(p);
      for (const server of ['Google Calendar', 'Outlook Mail']) {
        await p.getByRole('button', { name: `Authorize ${server}` }).click();
        await p.getByRole('button', { name: 'Allow' }).click();
        await p.getByRole('listitem', { name: server }).getByText('Authorized', { exact: true }).waitFor();
      }
      // Centred: on a phone the Run bar sits at the bottom of the screen, over whatever ends there.
      await p.getByRole('button', { name: 'Run again', exact: true }).evaluate((el) => el.scrollIntoView({ block: 'center' }));
    },
  },
  {
    // History: a conversation pinned, Clear history asking first.
    name: 'history-clear',
    token: AGENTS,
    path: '/runs/echo-assistant',
    act: async (p) => {
      await p.getByLabel('Message 1 text').fill('Keep this one');
      await p.getByRole('button', { name: 'Run and stream' }).click();
      const history = p.getByRole('region', { name: 'History' });
      await history.getByText('Keep this one · conversation, 1 turn', { exact: false }).waitFor();
      await history.getByRole('button', { name: 'Pin' }).first().click();
      await history.getByRole('button', { name: 'Clear history…' }).click();
      await history.getByRole('alertdialog').evaluate((el) => el.scrollIntoView({ block: 'center' }));
    },
  },
  {
    // History cleared: Undo offered.
    name: 'history-undo',
    token: AGENTS,
    path: '/runs/echo-assistant',
    act: async (p) => {
      await p.getByLabel('Message 1 text').fill('Clear me');
      await p.getByRole('button', { name: 'Run and stream' }).click();
      const history = p.getByRole('region', { name: 'History' });
      await history.getByText('Clear me · conversation, 1 turn', { exact: false }).waitFor();
      await history.getByRole('button', { name: 'Clear history…' }).click();
      await history.getByRole('alertdialog').getByRole('button', { name: 'Clear history' }).click();
      await history.getByRole('button', { name: 'Undo' }).evaluate((el) => el.scrollIntoView({ block: 'center' }));
    },
  },
];

/** A Calendar Helper run refused for its two unauthorized tool servers, their statuses read. */
async function refuseForTools(p: Page): Promise<void> {
  await p.getByLabel('Message 1 text').fill('When am I free this week?');
  await p.getByRole('button', { name: 'Run and stream' }).click();
  await p.getByRole('listitem', { name: 'Outlook Mail' }).getByText('Awaiting your authorization').waitFor();
}

async function mintAgentsToken(origin: string): Promise<string> {
  const res = await fetch(`${origin}/sandbox/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scopes: ['agents.run'], label: 'Screenshots' }) });
  if (res.status !== 201) throw new Error(`minting a token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/** A suite of three cases (one fails: its expected answer is not the echo's), with rows on the second. */
const SUITE_FILE = {
  format: 'metadata-agents-console/suite',
  version: 1,
  suite: { name: 'Release checks' },
  cases: [
    { id: 'echo', name: 'Echo greets', agent: { id: 'echo-assistant', name: 'Echo Assistant' }, api: 'platform', mode: 'stream', messages: [{ role: 'USER', content: [{ type: 'text', text: 'Hello' }] }], assertions: [{ kind: 'outcome', expect: 'success' }, { kind: 'answer-contains', text: 'Hello' }, { kind: 'first-event-within', ms: 2000 }, { kind: 'spec-lens' }, { kind: 'header', name: 'Deprecation', present: false }] },
    { id: 'hr', name: 'HR policy by topic', agent: { id: 'hr-policy-form', name: 'HR Policy Agent' }, api: 'platform', mode: 'wait', input: { topic: 'Leave', region: 'emea', audience: '', tone: '', maxPoints: '', includeLinks: false }, rows: [{ topic: 'Leave' }, { topic: 'Travel' }], assertions: [{ kind: 'outcome', expect: 'success' }, { kind: 'answer-contains', text: '{{topic}}' }] },
    { id: 'changed', name: 'Echo, answer changed', agent: { id: 'echo-assistant', name: 'Echo Assistant' }, api: 'platform', mode: 'stream', messages: [{ role: 'USER', content: [{ type: 'text', text: 'Bonjour' }] }], assertions: [{ kind: 'answer-equals', text: 'You said: "Bonjour".' }, { kind: 'events-at-most', count: 5 }] },
    { id: 'expense', name: 'Expense filed, approved by policy', agent: { id: 'expense-filer', name: 'Expense Filer' }, api: 'platform', mode: 'durable', messages: [{ role: 'USER', content: [{ type: 'text', text: 'File my expenses' }] }], policy: { kind: 'approve-all' }, assertions: [{ kind: 'outcome', expect: 'success' }] },
  ],
};

async function importSuite(p: Page): Promise<void> {
  await p.getByLabel('Suite file to import').setInputFiles({ name: 'release-checks.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(SUITE_FILE)) });
  await p.getByRole('button', { name: 'Run suite' }).waitFor();
}

async function runSuite(p: Page): Promise<void> {
  await importSuite(p);
  await p.getByRole('button', { name: 'Run suite' }).click();
  await p.getByText(/Finished: 5 of 5/).waitFor({ timeout: 30_000 });
}

async function main(): Promise<void> {
  const missing = chromiumMissingMessage();
  if (missing) throw new Error(missing);
  const unknown = only.filter((n) => !SHOTS.some((s) => s.name === n));
  if (unknown.length) throw new Error(`no shot named ${unknown.join(', ')}; the shots are: ${SHOTS.map((s) => s.name).join(', ')}`);
  // `npm run screenshots -- name …` takes only those shots, beside the ones already there.
  if (only.length === 0) rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const server = await startConsoleServer([], () => console.log('Building the console first (sources changed)…'));
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-gpu'] });
  let count = 0;
  try {
    for (const vp of VIEWPORTS) {
      for (const scheme of SCHEMES) {
        for (const shot of SHOTS.filter((s) => only.length === 0 || only.includes(s.name))) {
          const context = await browser.newContext({ baseURL: server.origin, viewport: { width: vp.width, height: vp.height }, colorScheme: scheme });
          const token = shot.mint ? await mintAgentsToken(server.origin) : shot.token;
          if (token) await context.addInitScript(`sessionStorage.setItem('mac.token.reference', ${JSON.stringify(JSON.stringify(token))})`);
          const page = await context.newPage();
          await page.goto(`${server.origin}${shot.path}`);
          await page.locator('main').waitFor();
          await shot.act?.(page);
          await page.waitForTimeout(300);
          const file = `${OUT}/${shot.name}-${vp.name}-${scheme}.png`;
          await page.screenshot({ path: file, fullPage: false });
          count++;
          await context.close();
        }
      }
    }
  } finally {
    await browser.close();
    server.stop();
  }
  console.log(`${count} screenshots in ${OUT}`);
}

main().catch((e: unknown) => {
  console.error(`screenshots: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
