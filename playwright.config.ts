import { defineConfig, devices } from '@playwright/test';
import { chromiumPath } from './scripts/chromium.mjs';
import { CONSOLE_PORT as PORT, DURABLE_GRACE_MS, DURABLE_PORT, DURABLE_TIMEOUT_MS, UPSTREAM_ORIGIN, UPSTREAM_PORT, UPSTREAM_RATE_LIMIT } from './e2e/servers';

export default defineConfig({
  testDir: './e2e',
  // Generous: a limit only a hung test reaches. The suite must pass on a 2-core machine whose
  // cores another process keeps busy, where a long multi-turn flow took 32 s.
  timeout: 90_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: process.env.CI ? [['list'], ['json', { outputFile: '.reports/playwright.json' }]] : 'list',
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    // Off unless asked (E2E_TRACE=1): recording every test cost about a tenth of the suite's time, and
    // only a kept trace of a failure is ever read.
    trace: process.env.E2E_TRACE ? 'retain-on-failure' : 'off',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: {
          executablePath: chromiumPath(),
          // Debian's Chromium as root needs --no-sandbox; a container's /dev/shm may hold only 64 MB
          // (--disable-dev-shm-usage uses /tmp); the rest stop it calling home on a closed network.
          args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
        },
      },
    },
  ],
  webServer: [
    {
      command: `npx tsx src/service/cli.ts service --memory --port ${UPSTREAM_PORT} --rate-limit ${UPSTREAM_RATE_LIMIT}`,
      url: `${UPSTREAM_ORIGIN}/sandbox/info`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore',
    },
    {
      // Durable runs expire after seconds here, not 40 minutes; the expiry test connects to it directly.
      command: `npx tsx src/service/cli.ts service --memory --port ${DURABLE_PORT} --cors-origin http://127.0.0.1:${PORT} --durable-timeout-ms ${DURABLE_TIMEOUT_MS} --durable-grace-ms ${DURABLE_GRACE_MS}`,
      url: `http://127.0.0.1:${DURABLE_PORT}/sandbox/info`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore',
    },
    {
      // The built console with the service mounted, as `npm start` serves it, on a throw-away database,
      // forwarding to the upstream above; its own service keeps the default rate limit.
      command: `npx tsx src/service/cli.ts start --memory --port ${PORT} --upstream ${UPSTREAM_ORIGIN}`,
      url: `http://127.0.0.1:${PORT}/sandbox/info`,
      reuseExistingServer: false,
      timeout: 180_000,
      stdout: 'ignore',
    },
  ],
});
