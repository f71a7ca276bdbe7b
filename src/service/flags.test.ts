/**
 * Every number a command takes goes through one parser: plain decimal digits within the
 * flag's documented range, refused at start with a message naming the flag otherwise.
 * The commands themselves are run for the cases a user types (`--max-runs -1`).
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, test } from 'vitest';
import { DurableRuns, sweepPeriodMs } from './durable/executor.ts';
import { DurableRunStore } from './durable/store.ts';
import { ManualClock } from './durable/test-support.ts';
import { decimalFlag, durationFlag, integerFlag, MAX_TIMER_MS, parseFlags, UsageError } from './flags.ts';
import { REPLAY_SPEED } from './replay.ts';
import { NUMBER_FLAGS, portOf, replayOptionsOf, SERVICE_FLAGS, serviceOptionsOf, UPSTREAM_TIMEOUT_ENV, upstreamProxyOptionsFromEnv, upstreamTimeoutOf } from './options.ts';
import { Store } from './store.ts';

const START_FLAGS = { ...SERVICE_FLAGS, 'upstream-timeout-ms': { type: 'string' } } as const;

/** What `npm start -- <args>` makes of them, up to the service options and the upstream timeout. */
function startOptions(args: string[]) {
  const flags = parseFlags(args, START_FLAGS);
  return { port: portOf(flags.port, 5173), options: serviceOptionsOf(flags), upstreamTimeoutMs: upstreamTimeoutOf(flags['upstream-timeout-ms']) };
}

function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('no UsageError was thrown');
}

const NUMBER_FLAG_NAMES = Object.keys(NUMBER_FLAGS) as (keyof typeof NUMBER_FLAGS)[];

describe('number flags', () => {
  const savedPort = process.env.PORT;
  afterEach(() => {
    if (savedPort === undefined) delete process.env.PORT;
    else process.env.PORT = savedPort;
  });

  it.each(NUMBER_FLAG_NAMES)('--%s refuses hex, exponents, signs, fractions, spaces and blanks, naming itself', (flag) => {
    for (const bad of ['0x10', '1e4', '1e20', '-1', '+5', '1.5', '5.0', ' 5', '5 ', '', 'ten', 'Infinity', '1_000', '٣']) {
      for (const args of [[`--${flag}`, bad], [`--${flag}=${bad}`]]) {
        const message = usageMessage(() => startOptions(args));
        expect(message, `${args.join(' ')}`).toMatch(new RegExp(`^--${flag} takes .*whole number from`));
        expect(message).not.toMatch(/ambiguous/);
      }
    }
  });

  it.each(NUMBER_FLAG_NAMES)('--%s takes its bounds and refuses one past them', (flag) => {
    const { min, max } = NUMBER_FLAGS[flag];
    const value = (raw: string) => {
      const o = startOptions([`--${flag}`, raw]);
      return { port: o.port, ...o.options, upstream: o.upstreamTimeoutMs };
    };
    const key = {
      port: 'port',
      'rate-limit': 'rateLimitPerMinute',
      'max-runs': 'maxRunsPerToken',
      'max-durable-runs': 'maxDurableRunsPerToken',
      'durable-timeout-ms': 'durableTimeoutMs',
      'durable-grace-ms': 'durableGraceMs',
      'upstream-timeout-ms': 'upstream',
    }[flag] as keyof ReturnType<typeof value>;
    expect(value(String(min))[key]).toBe(min);
    expect(value(String(max))[key]).toBe(max);
    expect(value(`00${max}`)[key]).toBe(max);
    expect(usageMessage(() => value(String(max + 1)))).toContain(`--${flag}`);
    if (min > 0) expect(usageMessage(() => value(String(min - 1)))).toContain(`--${flag}`);
  });

  test('no timer flag takes more than 2^31−1 ms, past which setTimeout fires after 1 ms', () => {
    for (const flag of ['durable-timeout-ms', 'durable-grace-ms', 'upstream-timeout-ms'] as const) {
      expect(NUMBER_FLAGS[flag].max).toBe(MAX_TIMER_MS);
      expect(usageMessage(() => startOptions([`--${flag}`, String(2 ** 31)]))).toMatch(/2,147,483,647/);
    }
  });

  test('`--max-runs -1` says what --max-runs takes, not "argument is ambiguous"', () => {
    const message = usageMessage(() => startOptions(['--max-runs', '-1']));
    expect(message).toBe('--max-runs takes the stream and wait runs one token may have going at once, 0 for no limit: a whole number from 0 to 10,000 in plain digits; not "-1".');
  });

  test('a flag followed by another flag instead of its value says the value is missing', () => {
    expect(usageMessage(() => startOptions(['--max-runs', '--memory']))).toBe('--max-runs needs a value; it was followed by the flag --memory.');
    expect(usageMessage(() => startOptions(['--port']))).toMatch(/--port/);
  });

  test('a value starting with a dash that is not a flag is taken as the value of a text flag too', () => {
    expect(parseFlags(['--host', '-weird'], SERVICE_FLAGS).host).toBe('-weird');
  });

  test('PORT goes through the same parser, named as the variable', () => {
    process.env.PORT = '0x10';
    expect(usageMessage(() => portOf(undefined, 5173))).toMatch(/^PORT \(environment variable\) takes .* not "0x10"\.$/);
    process.env.PORT = '8080';
    expect(portOf(undefined, 5173)).toBe(8080);
    expect(portOf('9090', 5173)).toBe(9090);
  });

  test('the upstream timeout handed to the console server through its variable is bounded too', () => {
    const saved = process.env[UPSTREAM_TIMEOUT_ENV];
    try {
      process.env[UPSTREAM_TIMEOUT_ENV] = '1e20';
      expect(usageMessage(() => upstreamProxyOptionsFromEnv())).toMatch(/^CONSOLE_UPSTREAM_TIMEOUT_MS takes .* to 2,147,483,647 /);
      process.env[UPSTREAM_TIMEOUT_ENV] = '1500';
      expect(upstreamProxyOptionsFromEnv()).toEqual({ timeoutMs: 1500 });
    } finally {
      if (saved === undefined) delete process.env[UPSTREAM_TIMEOUT_ENV];
      else process.env[UPSTREAM_TIMEOUT_ENV] = saved;
    }
  });

  test('a long bad value is cut in the message', () => {
    const message = usageMessage(() => integerFlag('max-runs', '9'.repeat(10_000), NUMBER_FLAGS['max-runs']));
    expect(message.length).toBeLessThan(300);
  });
});

describe('--durable-retention', () => {
  const retention = (raw: string) => durationFlag('durable-retention', raw, { min: 1, max: 365 * 86_400_000 });

  it.each([
    ['1d', 86_400_000],
    ['365d', 365 * 86_400_000],
    ['12h', 43_200_000],
    ['90s', 90_000],
    ['500ms', 500],
    ['2500', 2_500],
    ['1', 1],
  ])('%s is %d ms', (raw, ms) => {
    expect(retention(raw)).toBe(ms);
    expect(serviceOptionsOf(parseFlags(['--durable-retention', raw], SERVICE_FLAGS)).durableRetentionMs).toBe(ms);
  });

  it.each(['0', '366d', '0x10', '1e3', '1e3s', '-1d', '1.5h', ' 1d', '1 d', '1w', ''])('%j is refused, naming the flag and its range', (raw) => {
    const message = usageMessage(() => serviceOptionsOf(parseFlags(['--durable-retention', raw], SERVICE_FLAGS)));
    expect(message).toMatch(/^--durable-retention takes a duration .* from 1ms to 365d; not /);
  });
});

describe('--allowed-return-origin', () => {
  const origins = (...args: string[]) => serviceOptionsOf(parseFlags(args, START_FLAGS)).allowedReturnOrigins;

  it('takes origins, repeated or as a comma list, for npm start and npm run service alike', () => {
    expect(origins('--allowed-return-origin', 'http://127.0.0.1:4831', '--allowed-return-origin=https://console.example.com,http://localhost:5173')).toEqual([
      'http://127.0.0.1:4831',
      'https://console.example.com',
      'http://localhost:5173',
    ]);
    expect(serviceOptionsOf(parseFlags(['--allowed-return-origin', 'http://127.0.0.1:4831'], SERVICE_FLAGS)).allowedReturnOrigins).toEqual(['http://127.0.0.1:4831']);
    expect(origins()).toBeUndefined();
  });

  it.each(['http://127.0.0.1:4831/', 'https://console.example.com/runs', 'ftp://files.example.com', 'console.example.com', 'https://user:pw@console.example.com', ''])(
    '%j is refused, saying what an origin is',
    (raw) => {
      expect(usageMessage(() => origins('--allowed-return-origin', raw))).toBe(
        `--allowed-return-origin "${raw}" is not an origin such as https://console.example.com (http or https, no path, no trailing slash).`,
      );
    },
  );
});

describe('--replay-speed', () => {
  const speed = (raw: string) => decimalFlag('replay-speed', raw, REPLAY_SPEED);

  it.each([
    ['1', 1],
    ['4', 4],
    ['0.5', 0.5],
    ['0.1', 0.1],
    ['1000', 1000],
    ['12.25', 12.25],
  ])('%s plays %d times as fast', (raw, n) => {
    expect(speed(raw)).toBe(n);
  });

  it.each(['0', '0.05', '1001', '-2', '+2', '1e2', '0x10', '.5', '5.', '1,5', ' 2', '2x', '', 'Infinity', 'NaN'])('%j is refused, naming the flag and its range', (raw) => {
    expect(usageMessage(() => speed(raw))).toMatch(/^--replay-speed takes how many times faster than recorded a replay answers: a number from 0\.1 to 1,000 .*; not /);
  });

  it('goes with --replay only', () => {
    expect(usageMessage(() => replayOptionsOf(undefined, '2'))).toBe('--replay-speed goes with --replay DIR.');
  });
});

describe('the clean-up sweep of ended durable runs', () => {
  it.each([
    [1, 1_000],
    [500, 1_000],
    [30_000, 30_000],
    [86_400_000, 60_000],
  ])('with a retention of %d ms runs every %d ms', (retention, period) => {
    expect(sweepPeriodMs(retention)).toBe(period);
  });

  test('a 1 ms retention sweeps about once a second, not a thousand times', async () => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const store = new Store({ memory: true });
    const runs = new DurableRunStore(store.database);
    let sweeps = 0;
    const sweep = runs.sweep.bind(runs);
    runs.sweep = (before: number) => {
      sweeps++;
      return sweep(before);
    };
    const durable = new DurableRuns(runs, { retentionMs: 1, clock });
    await clock.advance(10_000, async () => {});
    durable.stop();
    store.close();
    // One at start, then one a second.
    expect(sweeps).toBe(11);
  });
});

describe('the commands refuse bad numbers at start', () => {
  const ROOT = resolve(import.meta.dirname, '../..');
  const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
  const cli = join(ROOT, 'src', 'service', 'cli.ts');
  const run = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(tsx, [cli, ...args], { cwd: ROOT, timeout: 60_000, env: { ...process.env, PORT: '' } }, (err, stdout, stderr) => {
        done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      });
    });

  it.each([
    [['service', '--memory', '--max-runs', '-1'], /^--max-runs takes .* not "-1"\./],
    [['service', '--memory', '--port', '1e4'], /^--port takes .* not "1e4"\./],
    [['service', '--memory', '--max-runs', '0x10'], /^--max-runs takes .* not "0x10"\./],
    [['start', '--memory', '--durable-timeout-ms', '1e20'], /^--durable-timeout-ms takes .* not "1e20"\./],
    [['start', '--memory', '--upstream-timeout-ms', '2147483648'], /^--upstream-timeout-ms takes .* to 2,147,483,647 /],
  ])('%j exits 2 with the flag\'s own message, before listening or building', async (args, message) => {
    const out = await run(args);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(message);
    expect(out.stderr).not.toMatch(/ambiguous/);
    // A process of its own (tsx compiling the CLI): on a loaded machine its start alone took over 20 s.
  }, 90_000);
});
