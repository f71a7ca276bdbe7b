// `npm run test:node24`: the service and CLI tests on Node 24 LTS, beside the machine's Node
// (`npm test` runs it too). With arguments, runs that command instead, on Node 24 as the pass
// sets it up: `node scripts/node24/run.mjs npm run service -- --memory`.
// Exits non-zero saying what went wrong when Node 24 cannot be prepared: a pass that did not
// run is a failure, never a skip.
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { NODE24_VERSION, PrepareError, prepareNode24 } from './prepare.mjs';

/**
 * What runs on Node 24: every test of the reference service (its HTTP server, store, streams,
 * proxy, recorder, durable runs, and the `npm run service`, `start` and `token` processes some
 * of them start) and of the suite CLI. The console's pure models are the same JavaScript on any
 * Node, and the browser's tests run in Chromium.
 */
export const NODE24_TESTS = ['src/service/', 'scripts/suite.test.ts'];

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const [command, ...rest] = args.length ? args : ['npx', 'vitest', 'run', '--project', 'node', ...NODE24_TESTS];
  let env;
  try {
    console.error(`Node ${NODE24_VERSION}: preparing (the first time, installing it and building better-sqlite3 for it takes a minute or two)…`);
    env = { ...process.env, ...prepareNode24() };
  } catch (e) {
    if (!(e instanceof PrepareError)) throw e;
    console.error(`Node ${NODE24_VERSION} could not be prepared, so nothing ran on it:\n${e.message}`);
    process.exit(1);
  }
  const child = spawn(command, rest, { stdio: 'inherit', env });
  child.on('error', (e) => {
    console.error(`Could not start ${command} on Node ${NODE24_VERSION}: ${e.message}`);
    process.exit(1);
  });
  child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  // Stopped by a signal sent to it alone (a terminal's Ctrl-C reaches both), it stops the command too.
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
}
