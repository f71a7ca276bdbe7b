/**
 * Starts the console with its reference service as `npm start` does (building dist first
 * when sources changed), on a free port of 127.0.0.1 and a throw-away database, for the
 * benchmarks, the screenshot script and end-to-end tests that need a server of their own;
 * and the reference service alone, as `npm run service` does.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 90_000;

export interface ConsoleServer {
  origin: string;
  stop(): void;
}

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = net.createServer();
    s.once('error', fail);
    s.listen(0, HOST, () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => ok(port));
    });
  });
}

export async function startConsoleServer(extraArgs: string[] = [], onBuild?: () => void, port?: number): Promise<ConsoleServer> {
  return startCli(['start', '--memory', '--port', String(port ?? (await freePort())), '--host', HOST, ...extraArgs], /Console and reference service: (http:\/\/\S+)/, 'console server', onBuild);
}

/** The reference service alone (`npm run service -- --memory`), on a free port unless given one. */
export async function startReferenceService(extraArgs: string[] = [], port?: number): Promise<ConsoleServer> {
  return startCli(['service', '--memory', '--port', String(port ?? (await freePort())), '--host', HOST, ...extraArgs], /Reference service on (http:\/\/\S+)/, 'reference service');
}

async function startCli(args: string[], ready: RegExp, what: string, onBuild?: () => void): Promise<ConsoleServer> {
  const child = spawn(
    process.execPath,
    [resolve(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'src/service/cli.ts', ...args],
    // Its own process group: tsx runs the CLI in a child of its own, and both must stop.
    { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stop = () => {
    if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      child.kill('SIGTERM');
    }
  };
  let output = '';
  let building = false;
  const origin = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`The ${what} did not start within ${START_TIMEOUT_MS / 1000} s:\n${output}`)), START_TIMEOUT_MS);
    const onData = (b: Buffer) => {
      output += b.toString();
      if (!building && output.includes('Building the console')) {
        building = true;
        onBuild?.();
      }
      const m = ready.exec(output);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`The ${what} exited (${code ?? signal}) before it listened:\n${output}`));
    });
  }).catch((e: unknown) => {
    stop();
    throw e;
  });
  return { origin, stop };
}
