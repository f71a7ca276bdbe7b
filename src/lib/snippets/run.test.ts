// Runs in Node (Vitest's node project), while tsconfig.app.json types src/ for the browser.
/// <reference types="node" />
/**
 * The snippets do what they say: each curl, fetch and official-client snippet is written to
 * a file and run as a user would run it (sh, node), with the token only in the environment,
 * as TOKEN (README: `export TOKEN=$(npm run --silent token -- --scope …)`), against the
 * reference service on a free port. The durable ones run against real runs of the scripted
 * durable agents: paused, running, failing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DurableRun, DurableRunAnswer } from '../../contract/durable-runs';
import { platformRunPath, platformRunsPath } from '../../contract/run-paths';
import { DEMO } from '../../test-support/reference-service';
import { respondCall, snippet, type ApiCall, type Language } from './index';
import { faultCalls, metadataCalls, runCalls, toolCalls, type NamedCall } from './test-calls';

const ROOT = resolve(import.meta.dirname, '../../..');
const DIR = join(ROOT, 'node_modules/.cache/snippet-run');
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
const LANGS: Language[] = ['curl', 'javascript', 'typescript'];
/**
 * A snippet takes a second or a few (a durable one reads every second); the margin is for a
 * loaded machine, where loading the official client alone costs a Node process over a second
 * of CPU. A test's budget is this per snippet it runs one after the other.
 */
const PER_SNIPPET = 60_000;
const TIMEOUT = 2 * PER_SNIPPET;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Running {
  /** Resolves once the output so far matches, with that output. */
  output(pattern: RegExp, timeoutMs?: number): Promise<string>;
  done: Promise<Outcome>;
}

function start(command: string, args: string[], env: Record<string, string>, budgetMs: number): Running {
  // Only what a shell needs, plus the token variable: nothing of this process's environment leaks in.
  const child = spawn(command, args, { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, cwd: DIR });
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    for (const w of watchers) w();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // A snippet that never ends (a follow loop that misses its end) is stopped, not left polling.
  const stop = setTimeout(() => child.kill(), budgetMs);
  const done = new Promise<Outcome>((ok, fail) => {
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(stop);
      ok({ code, stdout, stderr });
    });
  });
  const output = (pattern: RegExp, timeoutMs = PER_SNIPPET) =>
    new Promise<string>((ok, fail) => {
      const timer = setTimeout(() => {
        watchers.delete(check);
        child.kill();
        fail(new Error(`No ${pattern} in ${timeoutMs} ms; stdout:\n${stdout}\nstderr:\n${stderr}`));
      }, timeoutMs);
      const check = () => {
        if (!pattern.test(stdout)) return;
        clearTimeout(timer);
        watchers.delete(check);
        ok(stdout);
      };
      watchers.add(check);
      check();
      void done.then(() => {
        if (!watchers.has(check)) return;
        clearTimeout(timer);
        watchers.delete(check);
        fail(new Error(`Ended without ${pattern}; stdout:\n${stdout}\nstderr:\n${stderr}`));
      });
    });
  return { output, done };
}

let service: ChildProcess | undefined;
let serverUrl = '';

beforeAll(async () => {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  // The reference service as `npm run service -- --memory --port 0` starts it.
  service = spawn(process.execPath, [TSX, join(ROOT, 'src/service/cli.ts'), 'service', '--memory', '--port', '0', '--rate-limit', '0', '--max-runs', '0'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '' },
  });
  serverUrl = await new Promise<string>((done, fail) => {
    let out = '';
    service!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /Reference service on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) done(url);
    });
    service!.on('exit', (code) => fail(new Error(`The service exited (${code}): ${out}`)));
  });
}, TIMEOUT);

afterAll(() => {
  service?.kill();
});

/** The snippet of a call, written to a file and started as a user would: sh (POSIX, dash on Debian) or node. */
function startSnippet(language: Language, { name, call }: NamedCall, env: Record<string, string>, budgetMs = PER_SNIPPET): Running {
  const code = snippet(language, call, { serverUrl, token: 'never-used', includeToken: false });
  const base = `${language}-${name.replace(/\W+/g, '-')}-${Math.random().toString(36).slice(2, 8)}`;
  if (language === 'curl') {
    writeFileSync(join(DIR, `${base}.sh`), `set -e\n${code}\n`);
    return start('sh', [`${base}.sh`], env, budgetMs);
  }
  if (language === 'javascript') {
    writeFileSync(join(DIR, `${base}.mjs`), code);
    return start(process.execPath, [`${base}.mjs`], env, budgetMs);
  }
  // Type-checked in typecheck.test.ts; here compiled as tsc would and run by Node (tsx would
  // cost seconds per snippet in loading its loader).
  writeFileSync(join(DIR, `${base}.mts`), code);
  const js = ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  writeFileSync(join(DIR, `${base}.ts.mjs`), js);
  return start(process.execPath, [`${base}.ts.mjs`], env, budgetMs);
}

const runSnippet = (language: Language, named: NamedCall, env: Record<string, string>) => startSnippet(language, named, env).done;

// The service answers {} to a write; the official client reads that as { success: true }.
const WRITTEN = /^(\{\}|\{\s*"success":\s*true\s*\})\s*$/;

/** What each call's output shows when it worked. */
const EXPECTED: Record<string, RegExp[]> = {
  'schema PUT': [WRITTEN],
  'schema GET': [/"name":\s*"status"/, /"propertyType":\s*"MULTIPICKLIST"/],
  'values PUT': [WRITTEN],
  'values DELETE': [WRITTEN],
  'schema DELETE': [WRITTEN],
  'legacy stream': [/message/, /echo/],
  'legacy wait': [/Policy summary on parental leave for region emea/],
  'platform stream': [/message/, /echo/],
  'platform wait': [/Policy summary on parental leave for region emea/],
  // Created, then read until it ended: the echo agent's answer, from the same run.
  'platform durable': [/^state: SUCCEEDED$/m, /echo/],
};

/** The token, as the README sets it: TOKEN, whatever the language. */
const withToken = (token: string) => ({ TOKEN: token });

// --- Real durable runs, made over plain HTTP, for the snippets to act on ----------------------

async function api(path: string, body?: unknown): Promise<DurableRun> {
  const res = await fetch(`${serverUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${DEMO.agents}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as DurableRunAnswer).run;
}

/** A new durable run of an agent, read until `ready` holds. */
async function durableRun(agentId: string, ready: (run: DurableRun) => boolean = () => true): Promise<DurableRun> {
  let run = await api(platformRunsPath(agentId), { messages: [{ role: 'USER', content: [{ type: 'text', text: 'Please go ahead' }] }], execution_mode: 'DURABLE' });
  for (let i = 0; !ready(run); i++) {
    if (i > 200) throw new Error(`${agentId} never got ready: ${JSON.stringify(run)}`);
    await new Promise((r) => setTimeout(r, 50));
    run = await api(platformRunPath(agentId, run.run_id));
  }
  return run;
}

const paused = (run: DurableRun) => run.state === 'REQUIRES_INPUT';
const pendingIds = (run: DurableRun) => run.pending_interactions.map((i) => i.interaction_id);
const named = (name: string, call: ApiCall): NamedCall => ({ name, call });

/** The states a snippet printed, in order. */
const states = (stdout: string) => [...stdout.matchAll(/^state: (\w+)$/gm)].map((m) => m[1]);

function expectClean(language: Language, outcome: Outcome) {
  expect(outcome.code, outcome.stderr).toBe(0);
  // The shell's curls are quiet (-sS): no progress meter among the states, only errors on stderr.
  if (language === 'curl') expect(outcome.stderr).toBe('');
}

describe.concurrent.each(LANGS)('%s', (language) => {
  // Each language works on its own group, so the three sequences never meet.
  it.each([{ group: `snippet${language}` }])('metadata with only TOKEN set: create $group, read it, set and remove values, delete it', async ({ group }) => {
    for (const call of metadataCalls(group)) {
      const outcome = await runSnippet(language, call, withToken(DEMO.global));
      expect(outcome.code, `${call.name}: ${outcome.stderr}`).toBe(0);
      for (const pattern of EXPECTED[call.name]!) expect(outcome.stdout, call.name).toMatch(pattern);
    }
  }, metadataCalls('x').length * PER_SNIPPET);

  it.each(runCalls())('agent run with only TOKEN set: $name', async (call) => {
    const outcome = await runSnippet(language, call, withToken(DEMO.agents));
    expect(outcome.code, outcome.stderr).toBe(0);
    for (const pattern of EXPECTED[call.name]!) expect(outcome.stdout).toMatch(pattern);
    if (call.name === 'platform durable') {
      expectClean(language, outcome);
      // Each new state once, the last one terminal.
      const seen = states(outcome.stdout);
      expect(seen.at(-1)).toBe('SUCCEEDED');
      expect(new Set(seen).size).toBe(seen.length);
    }
  }, TIMEOUT);

  it.each(faultCalls())('a run with X-Sandbox-Fault sends the header: $name answers the 503 it asks for', async (call) => {
    const outcome = await runSnippet(language, call, withToken(DEMO.agents));
    expect(outcome.code, outcome.stdout).not.toBe(0);
    expect(`${outcome.stdout}\n${outcome.stderr}`).toMatch(/503|Sandbox fault/);
  }, TIMEOUT);

  it('durable: a created run is followed through its pause, which says what to do; the approve snippet answers it and both end SUCCEEDED', async () => {
    const create = runCalls().find((c) => c.name === 'platform durable')!.call as Extract<ApiCall, { op: 'run' }>;
    const creating = startSnippet(language, named('create expense', { ...create, agentId: 'expense-filer', path: platformRunsPath('expense-filer') }), withToken(DEMO.agents), TIMEOUT);
    const soFar = await creating.output(/pending: int_\w+/);
    expect(soFar).toMatch(/^state: REQUIRES_INPUT$/m);
    expect(soFar).toContain(`POST ${serverUrl}/api/agents/expense-filer/responses`);
    const runId = /^run_id: (run_\w+)$/m.exec(soFar)![1]!;
    const interaction = /pending: (int_\w+)/.exec(soFar)![1]!;

    const approving = await runSnippet(language, named('approve', respondCall('expense-filer', runId, [interaction], 'all')), withToken(DEMO.agents));
    expectClean(language, approving);
    expect(states(approving.stdout).at(-1)).toBe('SUCCEEDED');
    expect(approving.stdout).toContain('The finance system accepted EXP-1042');

    const created = await creating.done;
    expectClean(language, created);
    expect(states(created.stdout)).toEqual(expect.arrayContaining(['REQUIRES_INPUT', 'SUCCEEDED']));
    expect(states(created.stdout).at(-1)).toBe('SUCCEEDED');
    expect(created.stdout).toContain('The finance system accepted EXP-1042');
  }, TIMEOUT);

  it('durable: approve one of two (trip-planner), the other rejected in the same batch', async () => {
    const run = await durableRun('trip-planner', paused);
    const [flight, hotel] = run.pending_interactions;
    expect([flight?.display_name, hotel?.display_name]).toEqual(['Book flight', 'Book hotel']);
    const outcome = await runSnippet(language, named('approve one', respondCall('trip-planner', run.run_id, pendingIds(run), flight!.interaction_id)), withToken(DEMO.agents));
    expectClean(language, outcome);
    expect(states(outcome.stdout).at(-1)).toBe('SUCCEEDED');
    expect(outcome.stdout).toContain('Flight LH 2033 booked');
    expect(outcome.stdout).toContain('Hotel not reserved, as you asked.');
  }, TIMEOUT);

  it('durable: reject all (trip-planner)', async () => {
    const run = await durableRun('trip-planner', paused);
    const outcome = await runSnippet(language, named('reject all', respondCall('trip-planner', run.run_id, pendingIds(run), 'none')), withToken(DEMO.agents));
    expectClean(language, outcome);
    expect(states(outcome.stdout).at(-1)).toBe('SUCCEEDED');
    expect(outcome.stdout).toContain('Flight not booked, as you asked.');
    expect(outcome.stdout).toContain('Hotel not reserved, as you asked.');
  }, TIMEOUT);

  it('durable: cancel a running long-runner, followed through CANCELLING to CANCELLED', async () => {
    const run = await durableRun('long-runner', (r) => r.state === 'RUNNING');
    const outcome = await runSnippet(language, named('cancel', { op: 'cancel', agentId: 'long-runner', runId: run.run_id }), withToken(DEMO.agents));
    expectClean(language, outcome);
    expect(states(outcome.stdout)).toEqual(['CANCELLING', 'CANCELLED']);
  }, TIMEOUT);

  it('durable: follow a failing-job to FAILED, with its error', async () => {
    const run = await durableRun('failing-job');
    const outcome = await runSnippet(language, named('follow', { op: 'follow', agentId: 'failing-job', runId: run.run_id }), withToken(DEMO.agents));
    expectClean(language, outcome);
    expect(states(outcome.stdout).at(-1)).toBe('FAILED');
    expect(outcome.stdout).toContain('tool_execution_failed');
  }, TIMEOUT);
});

/** A token of its own, minted as `npm run token` asks a running service to: authorizations are per token. */
async function mintedToken(): Promise<string> {
  const res = await fetch(`${serverUrl}/sandbox/tokens`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ scopes: ['agents.run'] }) });
  if (res.status !== 201) throw new Error(`minting: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

describe.concurrent.each(LANGS)('%s, tools', (language) => {
  it('reads the agent’s tools, the server’s status, a consent link that works, then the status again as AUTHORIZED, and tool definitions', async () => {
    const token = await mintedToken();
    const [tools, status, authorize, definitions] = toolCalls(`${serverUrl}/runs/calendar-helper`);
    const listed = await runSnippet(language, tools!, withToken(token));
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/"tool_id":\s*"gcal\.list_events"/);
    expect((await runSnippet(language, status!, withToken(token))).stdout).toMatch(/"authStatus":\s*"AWAITING_AUTH"/);

    const asked = await runSnippet(language, authorize!, withToken(token));
    expect(asked.code, asked.stderr).toBe(0);
    const link = new RegExp(`${serverUrl.replace(/[.]/g, '\\.')}/sandbox/oauth/consent\\?state=st_[\\w-]+`).exec(asked.stdout)?.[0];
    expect(link, asked.stdout).toBeDefined();
    // What the user's browser does there: Allow, from the page itself.
    const posted = await fetch(`${serverUrl}/sandbox/oauth/consent`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ state: new URL(link!).searchParams.get('state')!, decision: 'allow' }),
      redirect: 'manual',
    });
    expect(posted.headers.get('location')).toBe(`${serverUrl}/runs/calendar-helper?glean_tool_auth=success&serverId=srv_gcal_01`);
    expect((await runSnippet(language, status!, withToken(token))).stdout).toMatch(/"authStatus":\s*"AUTHORIZED"/);

    const described = await runSnippet(language, definitions!, withToken(token));
    expect(described.code, described.stderr).toBe(0);
    expect(described.stdout).toMatch(/"serverId":\s*"srv_gcal_01"/);
    expect(described.stdout).toMatch(/"name":\s*"find_free_time"/);
  }, 6 * PER_SNIPPET);
});

it.each(LANGS)('without TOKEN the %s snippets fail, saying 401', async (language) => {
  const get = metadataCalls('sales').find((c) => c.name === 'schema GET')!;
  const outcome = await runSnippet(language, get, {});
  expect(outcome.code).not.toBe(0);
  expect(outcome.stdout + outcome.stderr).toMatch(/401/);
}, TIMEOUT);
