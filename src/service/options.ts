import type { ServiceOptions } from './app.ts';
import { decimalFlag, durationFlag, integerFlag, MAX_TIMER_MS, UsageError } from './flags.ts';
import { loadRecordings } from './replay-load.ts';
import { REPLAY_SPEED, type ReplayOptions } from './replay.ts';
import { parseAllowedHosts } from './request-guard.ts';

/** Flags the `service` and `start` commands share, turned into service options. */
export const SERVICE_FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  data: { type: 'string' },
  memory: { type: 'boolean' },
  'cors-origin': { type: 'string', multiple: true },
  'rate-limit': { type: 'string' },
  'max-runs': { type: 'string' },
  agents: { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'durable-timeout-ms': { type: 'string' },
  'durable-grace-ms': { type: 'string' },
  'max-durable-runs': { type: 'string' },
  'durable-retention': { type: 'string' },
  'allowed-return-origin': { type: 'string', multiple: true },
} as const;

/**
 * The range of every number flag (README, Commands). Timers stay within what Node honours
 * (MAX_TIMER_MS); counts are far above any real use and far below what would overflow.
 */
export const NUMBER_FLAGS = {
  port: { min: 0, max: 65_535, meaning: 'the port to listen on, 0 for any free one' },
  'rate-limit': { min: 0, max: 1_000_000, meaning: 'requests a minute per token, 0 for no limit' },
  'max-runs': { min: 0, max: 10_000, meaning: 'the stream and wait runs one token may have going at once, 0 for no limit' },
  'max-durable-runs': { min: 0, max: 10_000, meaning: 'the durable runs not yet over one token may have at once, 0 for no limit' },
  'durable-timeout-ms': { min: 1, max: MAX_TIMER_MS, meaning: "milliseconds of a durable turn's execution deadline" },
  'durable-grace-ms': { min: 1, max: MAX_TIMER_MS, meaning: 'milliseconds of grace after that deadline' },
  'upstream-timeout-ms': { min: 1, max: MAX_TIMER_MS, meaning: 'milliseconds an upstream may send nothing' },
} as const;

/** `--durable-retention`: from 1 ms to a year. */
export const RETENTION_RANGE = { min: 1, max: 365 * 86_400_000 } as const;

/** `--port`, else the PORT variable, else `fallback`. */
export function portOf(value: string | undefined, fallback: number): number {
  if (value !== undefined) return integerFlag('port', value, NUMBER_FLAGS.port)!;
  const env = process.env.PORT;
  if (env === undefined || env === '') return fallback;
  return integerFlag('PORT (environment variable)', env, NUMBER_FLAGS.port)!;
}

export function serviceOptionsOf(values: {
  data?: string;
  memory?: boolean;
  'cors-origin'?: string[];
  'rate-limit'?: string;
  'max-runs'?: string;
  agents?: string;
  'allowed-host'?: string[];
  'durable-timeout-ms'?: string;
  'durable-grace-ms'?: string;
  'max-durable-runs'?: string;
  'durable-retention'?: string;
  'allowed-return-origin'?: string[];
}): ServiceOptions {
  if (values.data && values.memory) throw new UsageError('Give --data DIR or --memory, not both.');
  const origins = originsFlag('cors-origin', values['cors-origin']);
  const returnOrigins = originsFlag('allowed-return-origin', values['allowed-return-origin']);
  const rateLimitPerMinute = integerFlag('rate-limit', values['rate-limit'], NUMBER_FLAGS['rate-limit']);
  const allowed = parseAllowedHosts(values['allowed-host'] ?? []);
  if (allowed.problem) throw new UsageError(allowed.problem);
  const maxRunsPerToken = integerFlag('max-runs', values['max-runs'], NUMBER_FLAGS['max-runs']);
  const maxDurableRunsPerToken = integerFlag('max-durable-runs', values['max-durable-runs'], NUMBER_FLAGS['max-durable-runs']);
  return {
    dataDir: values.data,
    allowedHosts: allowed.hosts,
    memory: values.memory,
    corsOrigins: origins,
    rateLimitPerMinute,
    maxRunsPerToken,
    ...(maxDurableRunsPerToken !== undefined && { maxDurableRunsPerToken }),
    agentsFile: values.agents,
    ...(returnOrigins.length > 0 && { allowedReturnOrigins: returnOrigins }),
    ...durableOptionsOf(values),
  };
}

/** An origin flag's values (repeatable, or comma lists): each an http(s) origin as a browser writes it, nothing after it. */
function originsFlag(name: string, values: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const o of (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim())) {
    const url = URL.canParse(o) ? new URL(o) : undefined;
    if (!url || url.origin !== o || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new UsageError(`--${name} "${o}" is not an origin such as https://console.example.com (http or https, no path, no trailing slash).`);
    }
    out.push(o);
  }
  return out;
}

/** Shorter durable-run deadlines, so the expiry of a run can be seen without waiting 40 minutes; how long ended runs are kept. */
function durableOptionsOf(values: {
  'durable-timeout-ms'?: string;
  'durable-grace-ms'?: string;
  'durable-retention'?: string;
}): Pick<ServiceOptions, 'durableTimeoutMs' | 'durableGraceMs' | 'durableRetentionMs'> {
  const timeout = integerFlag('durable-timeout-ms', values['durable-timeout-ms'], NUMBER_FLAGS['durable-timeout-ms']);
  const grace = integerFlag('durable-grace-ms', values['durable-grace-ms'], NUMBER_FLAGS['durable-grace-ms']);
  const retention = durationFlag('durable-retention', values['durable-retention'], RETENTION_RANGE);
  return {
    ...(timeout !== undefined && { durableTimeoutMs: timeout }),
    ...(grace !== undefined && { durableGraceMs: grace }),
    ...(retention !== undefined && { durableRetentionMs: retention }),
  };
}

/** `--replay DIR [--replay-speed N]`: the recordings, read and checked at start, and the speed. */
export function replayOptionsOf(dir: string | undefined, speed: string | undefined): ReplayOptions | undefined {
  if (dir === undefined) {
    if (speed !== undefined) throw new UsageError('--replay-speed goes with --replay DIR.');
    return undefined;
  }
  if (dir === '') throw new UsageError('--replay takes a directory of recordings.');
  const n = decimalFlag('replay-speed', speed, REPLAY_SPEED) ?? 1;
  return { set: loadRecordings(dir), speed: n };
}

/** `npm start --record DIR`: where the console's server writes what it forwards (an absolute path). */
export const RECORD_ENV = 'CONSOLE_RECORD_DIR';

export function recordDirFromEnv(): string | undefined {
  return process.env[RECORD_ENV] || undefined;
}

/** The Vite plugin is configured through the environment, so `vite`, `vite preview` and `npm start` agree. */
export const OPTIONS_ENV = 'CONSOLE_SERVICE_OPTIONS';

export const UPSTREAMS_ENV = 'CONSOLE_UPSTREAMS';

export const UPSTREAM_TIMEOUT_ENV = 'CONSOLE_UPSTREAM_TIMEOUT_MS';

export function serviceOptionsFromEnv(): ServiceOptions {
  const raw = process.env[OPTIONS_ENV];
  return raw ? (JSON.parse(raw) as ServiceOptions) : {};
}

export function upstreamsFromEnv(): string[] {
  const raw = process.env[UPSTREAMS_ENV];
  return raw ? (JSON.parse(raw) as string[]) : [];
}

export function upstreamProxyOptionsFromEnv(): { timeoutMs?: number } {
  const raw = process.env[UPSTREAM_TIMEOUT_ENV];
  // Set by `npm start` from a checked flag; checked again, as anyone may set it for `npm run dev`.
  return raw ? { timeoutMs: integerFlag(UPSTREAM_TIMEOUT_ENV, raw, NUMBER_FLAGS['upstream-timeout-ms']) } : {};
}

/** `--upstream-timeout-ms`: how long an upstream may send nothing. */
export function upstreamTimeoutOf(raw: string | undefined): number | undefined {
  return integerFlag('upstream-timeout-ms', raw, NUMBER_FLAGS['upstream-timeout-ms']);
}
