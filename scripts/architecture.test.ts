/**
 * The shape the lint rules cannot see: no import cycle among the project's modules (type-only
 * imports included: a cycle of types still ties two modules into one), and files that do one
 * job, which past about 350 lines they rarely do. The import direction itself is ESLint's
 * (eslint-plugin-boundaries, eslint.config.js).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const SOURCE = /\.(ts|tsx|mjs)$/;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** A relative specifier as the bundler resolves it: the file itself, with .ts or .tsx, or its index. */
function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec.split('?')[0]!);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) if (existsSync(candidate) && statSync(candidate).isFile() && SOURCE.test(candidate)) return candidate;
  return undefined;
}

/** Every module's imports of other modules of the project, type-only and dynamic ones included. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles.map((f) => resolveImport(file, f.fileName)).filter((t): t is string => t !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components of more than one module, or a module importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.map((f) => relative(ROOT, f)).sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) visit(v);
  return found;
}

describe('the project’s shape', () => {
  const files = ['src', 'scripts', 'bench', 'e2e'].flatMap((d) => filesUnder(join(ROOT, d)));

  it('has no import cycle, type-only imports included', () => {
    expect(cycles(importGraph(files))).toEqual([]);
  });

  it('finds a cycle where there is one (the check itself)', () => {
    const a = join(ROOT, 'a.ts');
    const b = join(ROOT, 'b.ts');
    expect(cycles(new Map([[a, [b]], [b, [a]]]))).toEqual([['a.ts', 'b.ts']]);
  });

  it('keeps the console’s modules to one job each: none past 350 lines (tests and the service aside)', () => {
    const console = files.filter((f) => /\/src\/(engine|db|hooks|components|features|app|lib|contract)\//.test(f) && !/\.test\.tsx?$/.test(f));
    const lines = (f: string) => readFileSync(f, 'utf8').replace(/\n$/, '').split('\n').length;
    const long = console.map((f) => [relative(ROOT, f), lines(f)] as const).filter(([, n]) => n > 350);
    expect(long).toEqual([]);
  });
});
