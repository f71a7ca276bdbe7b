// `npm run bench:bundle`: builds the console and prints the gzip size of every JS and CSS
// chunk, then the initial JS (the entry and what it imports statically) against the
// 105 kB gzip budget (issue 34). Lazy chunks (every page but the first, the engine, the browser database) are listed but not counted.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');
const BUDGET_KB = 105;

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

await build({ root: ROOT, logLevel: 'warn' });
const manifest = JSON.parse(readFileSync(join(DIST, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;

const gz = (file: string) => gzipSync(readFileSync(join(DIST, file)), { level: 9 }).length;
const kb = (bytes: number) => (bytes / 1024).toFixed(1);

const initial = new Set<string>();
const visit = (key: string) => {
  const chunk = manifest[key];
  if (!chunk || initial.has(chunk.file)) return;
  initial.add(chunk.file);
  for (const dep of chunk.imports ?? []) visit(dep);
};
for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) visit(key);

const rows = new Map<string, { raw: number; gzip: number; initial: boolean }>();
for (const chunk of Object.values(manifest)) {
  for (const file of [chunk.file, ...(chunk.css ?? [])]) {
    if (rows.has(file)) continue;
    rows.set(file, { raw: readFileSync(join(DIST, file)).length, gzip: gz(file), initial: initial.has(file) });
  }
}

console.log('\nchunk'.padEnd(52) + 'raw kB'.padStart(10) + 'gzip kB'.padStart(10) + '  loaded');
for (const [file, r] of [...rows].sort((a, b) => b[1].gzip - a[1].gzip)) {
  console.log(file.padEnd(51) + kb(r.raw).padStart(10) + kb(r.gzip).padStart(10) + `  ${r.initial ? 'initial' : file.endsWith('.css') ? 'with its chunk' : 'lazily'}`);
}
const initialJs = [...rows].filter(([f, r]) => r.initial && f.endsWith('.js')).reduce((sum, [, r]) => sum + r.gzip, 0);
const verdict = initialJs / 1024 <= BUDGET_KB ? 'met' : `missed by ${kb(initialJs - BUDGET_KB * 1024)} kB`;
console.log(`\ninitial JS: ${kb(initialJs)} kB gzip; budget ${BUDGET_KB} kB: ${verdict}`);
console.log('for scale: Swagger UI bundle ~458 kB gzip, Scalar standalone ~989 kB gzip');
