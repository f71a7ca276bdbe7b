import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { expect, test } from './fixtures';
import { DurableRunPage } from './pages/durable';
import { AGENT_TOKENS } from './pages/runs';
import { CONSOLE_PORT } from './servers';

const dir = mkdtempSync(join(tmpdir(), 'suites-e2e-'));
const children: ChildProcess[] = [];

test.afterAll(() => {
  // Each service is the head of its own process group: npx, tsx and node under it all go
  // (killing npx alone left the service running after the suite).
  for (const c of children) {
    try {
      if (c.pid) process.kill(-c.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
});

/** A reference service of its own, with an agents file of the test's; answers its URL. */
async function serviceWith(agents: unknown): Promise<string> {
  const file = join(dir, `agents-${children.length}.json`);
  writeFileSync(file, JSON.stringify(agents));
  const child = spawn('npx', ['tsx', 'src/service/cli.ts', 'service', '--memory', '--port', '0', '--agents', file], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /Reference service on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.on('exit', (code) => reject(new Error(`the service exited (${code}): ${out}`)));
  });
}

/** `npm run suite`, as CI runs it: answers its exit code and output. */
function suite(args: string[], token: string = AGENT_TOKENS.agents): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', 'suite', '--', ...args], { env: { ...process.env, TOKEN: token }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('a suite built from a stream, a form waited for and a durable run approved by policy runs in the console, exports, and runs in CI with npm run suite', async ({ runs, connection, page, shell }) => {
  test.setTimeout(180_000);
  await runs.open();
  await connection.setToken(AGENT_TOKENS.agents);

  // Three runs: a stream, a wait with an input form, a durable run whose approval is given.
  await runs.chooseAgent('Echo Assistant');
  await runs.answerBy('stream');
  await runs.writeMessage('Hello suite');
  await runs.run.click();
  await expect(runs.status).toHaveText('Done');
  await runs.chooseAgent('HR Policy Agent');
  await runs.answerBy('wait');
  await runs.field('Topic').fill('parental leave');
  await runs.field('Region').selectOption('emea');
  await runs.run.click();
  await expect(runs.status).toHaveText('Done');
  await runs.chooseAgent('Expense Filer');
  await runs.answerBy('durable');
  await runs.writeMessage('File my expenses');
  await runs.run.click();
  const inline = new DurableRunPage(page, runs.output);
  await inline.decideNow('Submit expense report', 'Approve');
  await inline.expectState('Succeeded');

  // Each saved as a test case from History (newest first): the first into a new suite.
  const save = async (n: number, newSuite?: string) => {
    const item = runs.historyItem(n);
    await item.getByRole('button', { name: 'Save as test case' }).click();
    if (newSuite) {
      await item.getByLabel('Suite', { exact: true }).selectOption({ label: 'New suite…' });
      await item.getByLabel('Name of the new suite').fill(newSuite);
    }
    await item.getByRole('button', { name: 'Save case' }).click();
    await expect(item.getByRole('status').filter({ hasText: /^Saved to / })).toBeVisible();
  };
  await expect(runs.historyItems).toHaveCount(3);
  await save(3, 'Release checks');
  await save(2);
  await expect(runs.historyItem(1).getByText(/Approvals the run asks for/)).toHaveCount(0);
  await runs.historyItem(1).getByRole('button', { name: 'Save as test case' }).click();
  // The durable run was approved: the policy offered approves all.
  await expect(runs.historyItem(1).getByRole('radio', { name: 'Approve all' })).toBeChecked();
  await runs.historyItem(1).getByRole('button', { name: 'Save case' }).click();
  await expect(runs.historyItem(1).getByRole('status').filter({ hasText: /^Saved to Release checks with \d+ assertions/ })).toBeVisible();

  // Run it in the console.
  await shell.nav().getByRole('link', { name: 'Suites' }).click();
  const main = page.getByRole('main');
  await expect(main.getByRole('heading', { name: 'Agent test suites', level: 1 })).toBeVisible();
  await main.getByRole('link', { name: 'Release checks' }).click();
  await expect(main.getByRole('region', { name: 'Cases of the suite' })).toContainText('expense-filer');
  await main.getByRole('button', { name: 'Run suite' }).click();
  await expect(main.getByRole('status').filter({ hasText: /Finished: 3 of 3 · 3 passed · 0 failed/ })).toBeVisible({ timeout: 60_000 });
  await expect(main.locator('.suite-summary').first()).toContainText('3 passed');
  await shell.expectNoAxeViolations();
  // A case's assertions with their actual values, and its run with timeline and chart.
  const results = main.getByRole('region', { name: 'Results by case' });
  await results.getByRole('button', { name: /^Echo Assistant stream/ }).click();
  await expect(results.getByRole('listitem').filter({ hasText: 'the answer equals “You asked: "Hello suite".' })).toContainText('actual: “You asked: "Hello suite".');
  await results.getByRole('button', { name: 'Open its run' }).click();
  await expect(results.getByRole('listbox', { name: /^\d+ events$/ })).toBeVisible();
  await expect(results.locator('figure.run-chart')).toBeVisible();
  await shell.expectNoAxeViolations();

  // Export it.
  const download = page.waitForEvent('download');
  await main.getByRole('button', { name: 'Export suite' }).click();
  const file = join(dir, 'release-checks.json');
  await (await download).saveAs(file);
  const text = readFileSync(file, 'utf8');
  expect(text).not.toContain(AGENT_TOKENS.agents);
  expect(JSON.parse(text)).toMatchObject({ format: 'metadata-agents-console/suite', suite: { name: 'Release checks' }, cases: [{ mode: 'stream' }, { mode: 'wait' }, { mode: 'durable', policy: { kind: 'approve-all' } }] });

  // In CI: against the reference service, every case passes.
  const base = `http://127.0.0.1:${CONSOLE_PORT}`;
  const ok = await suite([file, '--base-url', base, '--junit', join(dir, 'ok.xml')]);
  expect(ok.stderr).toBe('');
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain('passed 3, failed 0');

  // Against a service whose echo agent answers differently: exit 1, and the failure says both answers.
  const agents = JSON.parse(readFileSync('src/service/agents.json', 'utf8')) as { agents: { agent_id: string; behaviour: { text?: string } }[] };
  const changed = structuredClone(agents);
  changed.agents.find((a) => a.agent_id === 'echo-assistant')!.behaviour.text = 'You said: "{{lastUserMessage}}".';
  const gone = { ...agents, agents: agents.agents.filter((a) => a.agent_id !== 'echo-assistant') };
  const [changedUrl, goneUrl] = await Promise.all([serviceWith(changed), serviceWith(gone)]);
  const junit = join(dir, 'changed.xml');
  const differs = await suite([file, '--base-url', changedUrl, '--junit', junit]);
  expect(differs.code).toBe(1);
  const report = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => ['testcase', 'failure'].includes(n) }).parse(readFileSync(junit, 'utf8'));
  const echo = report.testsuites.testsuite.testcase.find((t: { name: string }) => t.name.startsWith('Echo Assistant'));
  expect(echo.failure[0]).toMatchObject({ type: 'answer-equals' });
  expect(echo.failure[0]['#text']).toContain('expected: the answer equals “You asked: "Hello suite".');
  expect(echo.failure[0]['#text']).toContain('actual: “You said: "Hello suite".”');

  // Against one where the agent is gone: exit 1.
  const missing = await suite([file, '--base-url', goneUrl]);
  expect(missing.code).toBe(1);
  expect(missing.stdout).toMatch(/FAIL {2}Echo Assistant stream.*\n +✗ Done or Succeeded: got Refused/);

  // A broken file: exit 2, naming the place.
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, text.replace('"mode": "wait"', '"mode": "wiat"'));
  const refused = await suite([broken, '--base-url', base]);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/broken\.json:\d+:\d+: cases\[1\] “HR Policy Agent wait.*” › mode: must be equal to one of the allowed values/);
});
