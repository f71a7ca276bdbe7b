import { defineConfig } from 'vitest/config';

// Separate from vite.config.ts so tests never start the reference service on the
// default data directory through the Vite plugin.
export default defineConfig({
  test: {
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
