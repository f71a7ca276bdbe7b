// Runs in Node (Vitest's node project), while tsconfig.app.json types src/ for the browser.
/// <reference types="node" />
/**
 * The snippets do what they say: each curl, fetch and official-client snippet is written to
 * a file and run as a user would run it (bash, node), with the token only in the
 * environment, against the reference service on a free port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../../test-support/reference-service';
import { snippet, type Language } from './index';
import { metadataCalls, runCalls, type NamedCall } from './test-calls';

const ROOT = resolve(import.meta.dirname, '../../..');
const DIR = join(ROOT, 'node_modules/.cache/snippet-run');
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
const LANGS: Language[] = ['curl', 'javascript', 'typescript'];

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string>): Promise<Outcome> {
  return new Promise((done, fail) => {
    // Only what a shell needs, plus the token variable: nothing of this process's environment leaks in.
    const child = spawn(command, args, { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, cwd: DIR });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

let service: ChildProcess | undefined;
let serverUrl = '';

beforeAll(async () => {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  // The reference service as `npm run service -- --memory --port 0` starts it.
  service = spawn(process.execPath, [TSX, join(ROOT, 'src/service/cli.ts'), 'service', '--memory', '--port', '0', '--rate-limit', '0'], { cwd: ROOT, env: { ...process.env, PORT: '' } });
  serverUrl = await new Promise<string>((done, fail) => {
    let out = '';
    service!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /Reference service on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) done(url);
    });
    service!.on('exit', (code) => fail(new Error(`The service exited (${code}): ${out}`)));
  });
}, 30_000);

afterAll(() => {
  service?.kill();
});

async function runSnippet(language: Language, { name, call }: NamedCall, env: Record<string, string>): Promise<Outcome> {
  const code = snippet(language, call, { serverUrl, token: 'never-used', includeToken: false });
  const base = `${language}-${name.replace(/\W+/g, '-')}`;
  if (language === 'curl') {
    writeFileSync(join(DIR, `${base}.sh`), `set -e\n${code}\n`);
    return run('bash', [`${base}.sh`], env.GLEAN_TOKEN ? { TOKEN: env.GLEAN_TOKEN } : {});
  }
  if (language === 'javascript') {
    writeFileSync(join(DIR, `${base}.mjs`), code);
    return run(process.execPath, [`${base}.mjs`], env);
  }
  // Type-checked in typecheck.test.ts; here compiled as tsc would and run by Node (tsx would
  // cost seconds per snippet in loading its loader).
  writeFileSync(join(DIR, `${base}.mts`), code);
  const js = ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  writeFileSync(join(DIR, `${base}.ts.mjs`), js);
  return run(process.execPath, [`${base}.ts.mjs`], env);
}

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
  'platform durable': [/SUCCEEDED/, /echo/],
};

describe.concurrent.each(LANGS)('%s', (language) => {
  // Each language works on its own group, so the three sequences never meet.
  it.each([{ group: `snippet${language}` }])('metadata: create $group, read it, set and remove values, delete it', async ({ group }) => {
    for (const named of metadataCalls(group)) {
      const outcome = await runSnippet(language, named, { GLEAN_TOKEN: DEMO.global });
      expect(outcome.code, `${named.name}: ${outcome.stderr}`).toBe(0);
      for (const pattern of EXPECTED[named.name]!) expect(outcome.stdout, named.name).toMatch(pattern);
    }
  }, 30_000);

  it.each(runCalls().filter((c) => c.call.op === 'run'))('agent run: $name', async (named) => {
    const outcome = await runSnippet(language, named, { GLEAN_TOKEN: DEMO.agents });
    expect(outcome.code, outcome.stderr).toBe(0);
    // curl creates a durable run, keeps its id and reads it once; following it to the end is the reader's loop.
    const expected = language === 'curl' && named.name === 'platform durable' ? [/^run_id: run_\w+$/m, /"state":\s*"(QUEUED|RUNNING|SUCCEEDED)"/] : EXPECTED[named.name]!;
    for (const pattern of expected) expect(outcome.stdout).toMatch(pattern);
  }, 30_000);
});

it('without GLEAN_TOKEN the fetch and client snippets fail, saying 401', async () => {
  const get = metadataCalls('sales').find((c) => c.name === 'schema GET')!;
  for (const language of ['javascript', 'typescript'] as const) {
    const outcome = await runSnippet(language, get, {});
    expect(outcome.code, language).not.toBe(0);
    expect(outcome.stderr, language).toMatch(/401/);
  }
}, 30_000);
