import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { ServiceOptions } from './app.ts';
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
} as const;

export class UsageError extends Error {}

type FlagSpec = NonNullable<ParseArgsConfig['options']>;

export function parseFlags<const T extends FlagSpec>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: false as const, strict: true as const }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function portOf(value: string | undefined, fallback: number): number {
  const raw = value ?? process.env.PORT;
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`Port "${raw}" is not a number from 0 to 65535.`);
  return n;
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
}): ServiceOptions {
  if (values.data && values.memory) throw new UsageError('Give --data DIR or --memory, not both.');
  const origins = values['cors-origin'] ?? [];
  for (const o of origins) {
    if (!URL.canParse(o) || new URL(o).origin !== o) throw new UsageError(`--cors-origin "${o}" is not an origin such as https://console.example.com (no path, no trailing slash).`);
  }
  let rateLimitPerMinute: number | undefined;
  if (values['rate-limit'] !== undefined) {
    rateLimitPerMinute = Number(values['rate-limit']);
    if (!Number.isInteger(rateLimitPerMinute) || rateLimitPerMinute < 0) {
      throw new UsageError('--rate-limit takes requests per minute per token, 0 for none.');
    }
  }
  const allowed = parseAllowedHosts(values['allowed-host'] ?? []);
  if (allowed.problem) throw new UsageError(allowed.problem);
  const maxRunsPerToken = countOf(values['max-runs'], '--max-runs takes the runs one token may have going at once, 0 for no limit.');
  const maxDurableRunsPerToken = countOf(
    values['max-durable-runs'],
    '--max-durable-runs takes the durable runs not yet over one token may have at once, 0 for no limit.',
  );
  return {
    dataDir: values.data,
    allowedHosts: allowed.hosts,
    memory: values.memory,
    corsOrigins: origins,
    rateLimitPerMinute,
    maxRunsPerToken,
    ...(maxDurableRunsPerToken !== undefined && { maxDurableRunsPerToken }),
    agentsFile: values.agents,
    ...durableOptionsOf(values),
  };
}

function countOf(raw: string | undefined, usage: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < 0) throw new UsageError(usage);
  return n;
}

const UNITS_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `1d`, `12h`, `30m`, `90s` or `500ms`; a bare number is milliseconds. */
export function durationMs(flag: string, raw: string): number {
  const m = /^\s*(\d+)\s*(ms|s|m|h|d)?\s*$/.exec(raw);
  const ms = m ? Number(m[1]) * UNITS_MS[m[2] ?? 'ms']! : NaN;
  if (!Number.isSafeInteger(ms) || ms < 1) {
    throw new UsageError(`--${flag} takes a duration such as 1d, 12h, 30m, 90s or 500ms (a bare number is milliseconds), at least 1 ms.`);
  }
  return ms;
}

function positiveMs(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} takes a whole number of milliseconds, at least 1.`);
  return n;
}

/** Shorter durable-run deadlines, so the expiry of a run can be seen without waiting 40 minutes; how long ended runs are kept. */
function durableOptionsOf(values: {
  'durable-timeout-ms'?: string;
  'durable-grace-ms'?: string;
  'durable-retention'?: string;
}): Pick<ServiceOptions, 'durableTimeoutMs' | 'durableGraceMs' | 'durableRetentionMs'> {
  const timeout = positiveMs('durable-timeout-ms', values['durable-timeout-ms']);
  const grace = positiveMs('durable-grace-ms', values['durable-grace-ms']);
  const retention = values['durable-retention'] === undefined ? undefined : durationMs('durable-retention', values['durable-retention']);
  return {
    ...(timeout !== undefined && { durableTimeoutMs: timeout }),
    ...(grace !== undefined && { durableGraceMs: grace }),
    ...(retention !== undefined && { durableRetentionMs: retention }),
  };
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
  return raw ? { timeoutMs: Number(raw) } : {};
}

/** `--upstream-timeout-ms`: how long an upstream may send nothing. */
export function upstreamTimeoutOf(raw: string | undefined): number | undefined {
  return positiveMs('upstream-timeout-ms', raw);
}
