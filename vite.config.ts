import react from '@vitejs/plugin-react';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { defineConfig } from 'vite';
import { pageSecurity, referenceService, specLensValidators } from './src/service/vite-plugin.ts';

/** The framework every page runs on. */
const FRAMEWORK = /node_modules[\\/](react|react-dom|scheduler|react-router|@tanstack[\\/](react-query|query-core))[\\/]/;

/**
 * The console's own modules the first page loads: those `src/main.tsx` imports statically, and
 * theirs (type-only imports and `import()` aside, which load nothing now).
 */
function firstPageModules(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm)) {
      const base = resolve(dirname(file), m[1]!);
      const found = [base, `${base}.ts`, `${base}.tsx`].find((f) => /\.tsx?$/.test(f) && existsSync(f));
      if (found) visit(found);
    }
  };
  visit(resolve(import.meta.dirname, entry));
  return seen;
}

export default defineConfig(({ command }) => {
  const firstPage = command === 'build' ? firstPageModules('src/main.tsx') : new Set<string>();
  return {
    plugins: [react(), referenceService(), pageSecurity(), specLensValidators()],
    // cors: false, because Vite's default lets any localhost origin call the mounted API;
    // the service applies its own policy, none unless --cors-origin is given.
    server: { host: '127.0.0.1', port: 5173, strictPort: true, cors: false },
    preview: { host: '127.0.0.1', port: 5173, strictPort: true, cors: false },
    // The spec lens's validators (a virtual module) import Ajv's format checks, a CommonJS file the
    // dev server's first scan cannot see: pre-bundled up front, not on first use with a page reload.
    optimizeDeps: { include: ['ajv-formats/dist/formats'] },
    build: {
      target: 'es2022',
      sourcemap: true,
      manifest: true,
      rolldownOptions: {
        // Rolldown's report of its plugins' time says nothing a user of `npm start` can act on.
        checks: { pluginTimings: false },
        output: {
          // What the first page loads, in one chunk: split by where each piece is also shared with a
          // later page, it came as a dozen small files, each compressed apart (two kilobytes more).
          codeSplitting: { groups: [{ name: 'shell', test: (id: string) => FRAMEWORK.test(id) || firstPage.has(id.split('?')[0]!) }] },
        },
      },
    },
  };
});
