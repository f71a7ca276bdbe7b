/**
 * The project's commands as real processes (`npm start`, `npm run service`), for tests that
 * check what a user runs: each on a free port, stopped with its whole process group.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');

export interface CliProcess {
  url: string;
  /** Everything it printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Runs `src/service/cli.ts <args>` under tsx and waits until it prints where it listens:
 * `Console and reference service: URL` (start) or `Reference service on URL` (service).
 */
export function startCli(args: string[], timeoutMs = 60_000): Promise<CliProcess> {
  const child = spawn(process.execPath, [resolve(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'src/service/cli.ts', ...args], {
    cwd: ROOT,
    // Its own process group: tsx runs the CLI in a child of its own, and both must stop.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      child.kill('SIGTERM');
    }
    await exited;
  };
  return new Promise<CliProcess>((ok, fail) => {
    const timer = setTimeout(() => {
      void stop();
      fail(new Error(`cli.ts ${args.join(' ')} did not listen within ${timeoutMs / 1000} s:\n${output}`));
    }, timeoutMs);
    const onData = (b: Buffer) => {
      output += b.toString();
      const m = /(?:Console and reference service: |Reference service on )(http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        ok({ url: m[1]!, output: () => output, stop });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`cli.ts ${args.join(' ')} exited (${code ?? signal}) before it listened:\n${output}`));
    });
  });
}

/** Runs `src/service/cli.ts <args>` to its end: its exit code and what it printed. */
export function runCli(args: string[], timeoutMs = 60_000): Promise<{ code: number | null; output: string }> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [resolve(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'src/service/cli.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`cli.ts ${args.join(' ')} did not end within ${timeoutMs / 1000} s:\n${output}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      ok({ code, output });
    });
  });
}
