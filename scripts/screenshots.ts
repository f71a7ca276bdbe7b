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

interface Shot {
  name: string;
  token?: string;
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
];

async function main(): Promise<void> {
  const missing = chromiumMissingMessage();
  if (missing) throw new Error(missing);
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const server = await startConsoleServer([], () => console.log('Building the console first (sources changed)…'));
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-gpu'] });
  let count = 0;
  try {
    for (const vp of VIEWPORTS) {
      for (const scheme of SCHEMES) {
        for (const shot of SHOTS) {
          const context = await browser.newContext({ viewport: { width: vp.width, height: vp.height }, colorScheme: scheme });
          if (shot.token) await context.addInitScript(`sessionStorage.setItem('mac.token.reference', ${JSON.stringify(JSON.stringify(shot.token))})`);
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
