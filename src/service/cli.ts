import { existsSync, readdirSync, statSync } from 'node:fs';
import { Server } from 'node:http';
import { constants as osConstants } from 'node:os';
import { join, resolve } from 'node:path';
import { createService } from './app.ts';
import { parseFlags, UsageError } from './flags.ts';
import { acceptAsTheService, ACCEPT_COPIES, listen } from './node.ts';
import { OPTIONS_ENV, portOf, RECORD_ENV, replayOptionsOf, SERVICE_FLAGS, serviceOptionsOf, UPSTREAM_TIMEOUT_ENV, UPSTREAMS_ENV, upstreamTimeoutOf } from './options.ts';
import { printable } from './printable.ts';
import { ReplayRefusal } from './replay-load.ts';
import { isLoopbackHost } from './request-guard.ts';
import { upstreamProblem } from './upstream-proxy.ts';
import { DEMO_TOKENS } from './seed.ts';
import { tokenCommand } from './token-command.ts';

const USAGE = `Usage:
  npm start -- [--port N] [--host H] [--allowed-host NAME ...] [--data DIR | --memory] [--cors-origin ORIGIN ...]
               [--allowed-return-origin ORIGIN ...] [--upstream ORIGIN ...] [--upstream-timeout-ms N] [--record DIR] [--rate-limit N]
               [--max-runs N] [--max-durable-runs N] [--durable-timeout-ms N] [--durable-grace-ms N] [--durable-retention DURATION]
      Builds the console if needed and serves it with the reference service on one origin;
      --upstream lets the console's server forward API requests to that instance;
      --upstream-timeout-ms: how long an upstream may send nothing, before its answer (then 502) or
      within it (then the connection is broken) (default 300000);
      --record DIR: writes every API exchange forwarded to an upstream into DIR, one JSON file each
      (docs/recording.md); never a token, a cookie or an Authorization header. Ctrl+C writes the
      last exchanges first (5 s at most).
  npm run service -- [--port N] [--host H] [--allowed-host NAME ...] [--data DIR | --memory] [--cors-origin ORIGIN ...]
                     [--allowed-return-origin ORIGIN ...] [--rate-limit N] [--max-runs N] [--max-durable-runs N] [--agents FILE]
                     [--durable-timeout-ms N] [--durable-grace-ms N] [--durable-retention DURATION]
                     [--replay DIR [--replay-speed N]]
      The reference service alone. --replay DIR: API requests are answered from the recordings in DIR
      (matched by method, path, query and body; paced as recorded, N times faster with --replay-speed,
      0.1 to 1000); the service's tokens and scopes still apply. DIR holds 10,000 recordings and
      256 MB at most, and no symbolic link; a file it cannot answer from stops the start (exit 2). --rate-limit: requests a minute per token (default 600, 0 for none);
      --max-runs: stream and wait runs one token may have going at once (default 20, 0 for none);
      --max-durable-runs: durable runs not yet over (queued, running, cancelling or waiting for
      approval) one token may have, a count of their own (default: --max-runs' value, 0 for none).
  --allowed-host NAME (repeatable, or a comma list): a Host name answered besides localhost,
      127.0.0.1 and [::1]; needed to reach the service by another name, e.g. with --host 0.0.0.0.
  --allowed-return-origin ORIGIN (repeatable, or a comma list): a console origin the tool-server
      consent page may send the browser back to (returnUrl), besides the service's own (the address
      and port it listens on, and the --allowed-host names; never what a request says).
  --durable-timeout-ms, --durable-grace-ms: durable runs' execution deadline (default 1800000) and the
      grace after it before a read marks an active run FAILED (default 600000), in ms.
  --durable-retention DURATION: how long an ended durable run is kept before it is deleted, e.g. 1d,
      12h, 30m, 90s, 500ms or plain milliseconds, up to 365d (default 1d).
  Numbers are plain decimal digits within each flag's range: --port 0-65535, --rate-limit 0-1000000,
      --max-runs and --max-durable-runs 0-10000, the *-ms flags 1-2147483647 (the longest a timer waits).
  npm run token -- --scope SCOPE [--scope SCOPE ...] [--label TEXT] [--url URL | --data DIR]
      Mints a token with those scopes and prints it alone on stdout. --url: the reference service
      running there mints it; --data: written into that data directory. With neither, a reference
      service answering on 127.0.0.1:5173 or :8787 (or PORT) mints it, else it goes into .data.
PORT overrides the default port (5173 for start, 8787 for service).`;

const ROOT = resolve(import.meta.dirname, '../..');

/** The demo tokens, under the console's URL when `url` is given (`start`; `service` serves no console). */
function printTokens(url?: string): void {
  const lines = [...(url ? [`\n  Console and reference service: ${url}\n`] : ['']), '  Demo tokens (sandbox only, they mean nothing elsewhere):'];
  for (const t of DEMO_TOKENS) lines.push(`    ${t.token.padEnd(38)} ${t.scopes.join(' ')}`);
  lines.push('');
  console.log(lines.join('\n'));
}

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  let newest = s.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function needsBuild(): boolean {
  const built = join(ROOT, 'dist', 'index.html');
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  const inputs = ['src', 'public', 'index.html', 'vite.config.ts', 'package-lock.json'].map((p) => join(ROOT, p));
  return inputs.some((p) => newestMtime(p) > builtAt);
}

async function start(args: string[]): Promise<void> {
  const flags = parseFlags(args, {
    ...SERVICE_FLAGS,
    'no-build': { type: 'boolean' },
    upstream: { type: 'string', multiple: true },
    'upstream-timeout-ms': { type: 'string' },
    record: { type: 'string' },
  });
  const port = portOf(flags.port, 5173);
  const host = flags.host ?? '127.0.0.1';
  const upstreams = (flags.upstream ?? []).map((u) => u.replace(/\/+$/, ''));
  for (const u of upstreams) {
    const problem = upstreamProblem(u);
    if (problem) throw new UsageError(problem);
  }
  const options = serviceOptionsOf(flags);
  if (flags.record !== undefined && !upstreams.length) {
    throw new UsageError("--record DIR writes what the console's server forwards to an upstream: give --upstream ORIGIN too.");
  }
  if (flags.record === '') throw new UsageError('--record takes a directory.');
  process.env[OPTIONS_ENV] = JSON.stringify(options);
  process.env[UPSTREAMS_ENV] = JSON.stringify(upstreams);
  if (flags.record !== undefined) process.env[RECORD_ENV] = resolve(flags.record);
  const upstreamTimeout = upstreamTimeoutOf(flags['upstream-timeout-ms']);
  if (upstreamTimeout !== undefined) process.env[UPSTREAM_TIMEOUT_ENV] = String(upstreamTimeout);
  const vite = await import('vite');
  if (!flags['no-build'] && needsBuild()) {
    console.log('Building the console (first start, or sources changed)…');
    await vite.build({ root: ROOT, logLevel: 'warn' });
  }
  const server = await vite.preview({
    root: ROOT,
    // Vite checks Host for the pages as the service does for its routes: the same names pass both.
    preview: { port, host, strictPort: true, open: false, allowedHosts: options.allowedHosts ?? [] },
    logLevel: 'warn',
  });
  // The console's server takes in a burst of connections as the service alone does (node.ts);
  // listening on the copies sets its backlog to the service's (Vite listens with Node's 511).
  if (server.httpServer instanceof Server) await acceptAsTheService(server.httpServer);
  stopOnSignals(() => server.close());
  const address = server.httpServer.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  printTokens(`http://${host.includes(':') ? `[${host}]` : host}:${actual}`);
  if (upstreams.length) console.log(`  Forwarding API requests to: ${upstreams.join(', ')} (choose "Instance, via this console's server" under Connect to)\n`);
  if (flags.record !== undefined) console.log(`  Recording every exchange forwarded into ${resolve(flags.record)} (no token, cookie or Authorization header is written)\n`);
  hintAllowedHosts(host, options.allowedHosts ?? []);
}

/** The longest a stop takes before the process exits regardless (the recordings' own wait is shorter: recorder.ts). */
const STOP_DEADLINE_MS = 10_000;

/**
 * SIGTERM and Ctrl+C (SIGINT) close the server before the process exits: Vite's own SIGTERM
 * handler did, but Ctrl+C ended the process at once, and a recording being written (`--record`)
 * was lost as a hidden .tmp. Closing finishes those writes (a few seconds at most); the exit
 * code is then the signal's usual one (130, 143). The handler stays installed: tsx's runner
 * sends the signal again when the first was not taken within 30 ms, and with no handler left
 * that second one ended the process at once.
 */
function stopOnSignals(close: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: 'SIGINT' | 'SIGTERM') => {
    if (stopping) return;
    stopping = true;
    const code = 128 + osConstants.signals[signal];
    setTimeout(() => process.exit(code), STOP_DEADLINE_MS).unref();
    void close()
      .catch((err: unknown) => console.error(`Stopping: ${(err as Error).message}`))
      .finally(() => process.exit(code));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** Bound beyond loopback, yet answering only loopback names: say why other names get 403. */
function hintAllowedHosts(host: string, allowed: readonly string[]): void {
  if (isLoopbackHost(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host) || allowed.length) return;
  console.log(`  Listening on ${host}, but only requests naming localhost, 127.0.0.1 or [::1] are answered;`);
  console.log('  add --allowed-host <name> for each name clients use to reach this machine.\n');
}

async function service(args: string[]): Promise<void> {
  const flags = parseFlags(args, { ...SERVICE_FLAGS, replay: { type: 'string' }, 'replay-speed': { type: 'string' } });
  const replay = replayOptionsOf(flags.replay, flags['replay-speed']);
  const options = { ...serviceOptionsOf(flags), ...(replay && { replay }) };
  const svc = createService(options);
  const host = flags.host ?? '127.0.0.1';
  const { url } = await listen(svc, portOf(flags.port, 8787), host, {}, { acceptCopies: ACCEPT_COPIES });
  console.log(`Reference service on ${url} (data: ${flags.memory ? 'in memory' : resolve(flags.data ?? '.data')})`);
  if (replay) {
    console.log(`Replaying ${replay.set.recordings.length} recordings from ${printable(resolve(replay.set.dir))}${replay.speed !== 1 ? `, ${replay.speed} times as fast as recorded` : ''}; other API requests answer 404.`);
  }
  printTokens();
  hintAllowedHosts(host, options.allowedHosts ?? []);
}

async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'start') return start(args);
  if (command === 'service') return service(args);
  if (command === 'token') return tokenCommand(args);
  throw new UsageError(command ? `Unknown command "${command}".` : 'No command given.');
}

main().catch((err: unknown) => {
  if (err instanceof UsageError) {
    console.error(`${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  // A directory it cannot replay is said alone: the usage would bury the file it names.
  if (err instanceof ReplayRefusal) {
    console.error(err.message);
    process.exit(2);
  }
  console.error((err as Error).message);
  process.exit(1);
});
