import { playwright } from '@vitest/browser-playwright';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import { chromiumPath } from './scripts/chromium.mjs';
import { referenceService, specLensValidators } from './src/service/vite-plugin.ts';

// Separate from vite.config.ts so tests never start the reference service on the
// default data directory through the Vite plugin.
export default defineConfig({
  test: {
    // A limit only a hung test reaches: the suite must pass while another process keeps both
    // cores of a 2-core machine busy.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        plugins: [specLensValidators()],
        test: {
          // A project takes none of the root's test options unless it extends them.
          testTimeout: 60_000,
          hookTimeout: 60_000,
          name: 'node',
          include: ['src/**/*.test.ts', 'scripts/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['src/test-support/setup-node.ts'],
        },
      },
      {
        // Components and hooks, in the system Chromium, against a real reference service on
        // the test page's own origin (a throw-away database): real fetch, streams, IndexedDB.
        // Every test shares this service and its demo tokens: durable runs a test leaves waiting for
        // approval must not fill a token's durable-run cap for the tests after it (the cap is tested
        // in the node project, against a service of its own).
        plugins: [react(), referenceService({ memory: true, rateLimitPerMinute: 0, maxDurableRunsPerToken: 0 }, []), specLensValidators()],
        // Pre-bundled up front: a dependency found mid-run makes Vite reload the page, and a
        // test then sees two copies of React.
        optimizeDeps: {
          include: [
            'react', 'react/jsx-dev-runtime', 'react-dom', 'react-dom/client', 'react-router', '@tanstack/react-query', '@tanstack/react-virtual',
            'react-hook-form', 'idb-keyval', 'dexie', 'dexie-react-hooks', '@cfworker/json-schema', 're2js', 'ajv-formats/dist/formats', 'ajv/dist/runtime/ucs2length', '@microsoft/fetch-event-source', '@testing-library/react', '@testing-library/user-event',
            '@testing-library/dom',
          ],
        },
        test: {
          testTimeout: 60_000,
          hookTimeout: 60_000,
          name: 'browser',
          include: ['src/**/*.test.tsx'],
          setupFiles: ['src/test-support/setup-browser.ts'],
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({
              launchOptions: {
                executablePath: chromiumPath(),
                // --expose-gc: the memory test of the run form's validator asks for a full collection.
                args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--js-flags=--expose-gc'],
              },
            }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
    ],
  },
});
