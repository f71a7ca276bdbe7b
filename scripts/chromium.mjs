// The system Chromium the tests drive: CHROMIUM_PATH, else Debian's /usr/bin/chromium.
// Plain JS so scripts/test.mjs (no tsx) and playwright.config.ts share it.
import { existsSync } from 'node:fs';

/** @returns {string} */
export function chromiumPath() {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}

/** @returns {string | undefined} how to install one, when there is none */
export function chromiumMissingMessage() {
  const path = chromiumPath();
  if (existsSync(path)) return undefined;
  return [
    `No Chromium at ${path}. The end-to-end tests drive a system Chromium and never download one.`,
    'Install it, then run the tests again:',
    '  Debian/Ubuntu:  sudo apt-get update && sudo apt-get install -y chromium',
    '  elsewhere:      install Chromium or Chrome and set CHROMIUM_PATH=/path/to/chromium',
  ].join('\n');
}
