// Runs in Node (Vitest's node project), while tsconfig.app.json types src/ for the browser.
/// <reference types="node" />
/**
 * Every TypeScript snippet compiles against the installed official client: a method that
 * does not exist, a wrong argument order or a body the client's types refuse is a diagnostic.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { snippet } from './index';
import { everyCall } from './test-calls';

const ROOT = resolve(import.meta.dirname, '../../..');

it('every TypeScript snippet type-checks against @gleanwork/api-client with zero diagnostics', () => {
  // Under the repository's node_modules, so the snippets resolve the client and @types/node from it.
  const dir = join(ROOT, 'node_modules/.cache/snippet-typecheck');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  for (const { name, call } of everyCall('sales')) {
    for (const includeToken of [false, true]) {
      const file = join(dir, `${name.replace(/\W+/g, '-')}${includeToken ? '-token' : ''}.ts`);
      writeFileSync(file, snippet('typescript', call, { serverUrl: 'http://127.0.0.1:8787', token: 'sandbox-x', includeToken }));
      files.push(file);
    }
  }
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts'],
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules/@types')],
    skipLibCheck: true,
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
  expect(diagnostics).toEqual([]);
  // The program really read the client: a snippet's import resolved to its declarations.
  expect(program.getSourceFiles().some((f) => f.fileName.includes('@gleanwork/api-client/dist/esm/sdk/agents.d.ts'))).toBe(true);
}, 60_000);
