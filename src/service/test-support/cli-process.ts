/**
 * The project's commands as real processes (`npm start`, `npm run service`), for tests that
 * check what a user runs: each on a free port, stopped with its whole process group. Run as
 * the npm scripts run them, `node --import tsx src/service/cli.ts …`: one process, which a
 * signal reaches itself (tsx's runner would stand between, and kill it 60 ms after relaying a
 * signal it had not yet taken).
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');

/** How a process ended: its exit code, or the signal that ended it. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CliProcess {
  url: string;
  /** Everything it printed so far. */
  output(): string;
  /** Sends `signal` (SIGTERM unless said) to its whole process group, as a terminal's Ctrl+C does with SIGINT, and waits for its end. */
  stop(signal?: NodeJS.Signals): Promise<ExitStatus>;
}

/**
 * Runs `src/service/cli.ts <args>` under tsx and waits until it prints where it listens:
 * `Console and reference service: URL` (start) or `Reference service on URL` (service).
 */
export function startCli(args: string[], timeoutMs = 60_000): Promise<CliProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/service/cli.ts', ...args], {
    cwd: ROOT,
    // Its own process group, as a terminal gives it: a signal reaches it and what it started (the accept copier).
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<ExitStatus>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        child.kill(signal);
      }
    }
    return exited;
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
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/service/cli.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
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
