/**
 * Command-line flags of the project's tools (`npm start`, `npm run service`, `npm run token`,
 * and later CLIs under scripts/): `node:util` parseArgs, and one parser for every number a
 * flag takes. Node only; imports nothing of the project, so any tool can import it.
 *
 * A number flag takes plain decimal digits and nothing else, in a range each flag states:
 * `Number()` would take `0x10`, `1e4`, ` 5 ` or `1e20`, and a timer given more than
 * 2^31−1 ms fires after 1 ms instead (Node's setTimeout), so a "day-long" timeout would
 * fail every request at once.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake on the command line: the message says which flag and what it takes. */
export class UsageError extends Error {}

/** The longest wait a Node timer honours: 2,147,483,647 ms (24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export type FlagSpec = NonNullable<ParseArgsConfig['options']>;

/** What a flag value looks like when it is shown back in a message: cut, so a pasted blob stays a line. */
function shown(raw: string): string {
  return JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
}

/**
 * parseArgs, strict, with two additions: a value that starts with '-' is taken as the value
 * of the string flag before it (`--max-runs -1` is then refused by that flag's own rule,
 * not as an "ambiguous argument"), unless it is itself one of the flags, which means the
 * value was forgotten; and every failure is a UsageError.
 */
export function parseFlags<const T extends FlagSpec>(args: readonly string[], options: T) {
  return parseFlagsAndArguments(args, options, false).values;
}

/** parseFlags, with arguments that are not flags (a file to read) allowed when `positionals` says so. */
export function parseFlagsAndArguments<const T extends FlagSpec>(args: readonly string[], options: T, positionals = true) {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    const spec = name !== undefined && Object.hasOwn(options, name) ? options[name] : undefined;
    const next = args[i + 1];
    if (spec?.type === 'string' && next !== undefined && next.startsWith('-') && next !== '--') {
      const nextName = next.startsWith('--') ? next.slice(2).split('=')[0]! : undefined;
      const isFlag = nextName !== undefined ? Object.hasOwn(options, nextName) : Object.values(options).some((o) => o.short === next.slice(1));
      if (isFlag) throw new UsageError(`--${name} needs a value; it was followed by the flag ${next}.`);
      joined.push(`${arg}=${next}`);
      i++;
      continue;
    }
    joined.push(arg);
  }
  try {
    return parseArgs({ args: joined, options, allowPositionals: positionals, strict: true as const });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export interface IntegerRule {
  min: number;
  max: number;
  /** What the number is, for the message: "requests a minute per token, 0 for none". */
  meaning: string;
}

const DECIMAL = /^[0-9]+$/;

const grouped = (n: number) => n.toLocaleString('en-US');

/**
 * The value of flag `name` (shown as `--name`, or as given when it starts otherwise, e.g. the
 * PORT variable) as a whole number within `rule`; undefined when the flag was not given.
 */
export function integerFlag(name: string, raw: string | undefined, rule: IntegerRule): number | undefined {
  if (raw === undefined) return undefined;
  const n = DECIMAL.test(raw) ? Number(raw) : NaN;
  if (!(n >= rule.min && n <= rule.max)) {
    const label = /^[A-Z]/.test(name) ? name : `--${name}`;
    throw new UsageError(`${label} takes ${rule.meaning}: a whole number from ${grouped(rule.min)} to ${grouped(rule.max)} in plain digits; not ${shown(raw)}.`);
  }
  return n;
}

const UNITS_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** How a bound in ms reads in a message: the largest unit that divides it. */
function durationText(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) if (ms % UNITS_MS[unit]! === 0) return `${grouped(ms / UNITS_MS[unit]!)}${unit}`;
  return `${grouped(ms)}ms`;
}

/**
 * The value of flag `name`, a duration such as `1d`, `12h`, `30m`, `90s` or `500ms` (plain
 * digits are milliseconds), in milliseconds within [min, max]; undefined when not given.
 */
export function durationFlag(name: string, raw: string | undefined, rule: { min: number; max: number }): number | undefined {
  if (raw === undefined) return undefined;
  const m = /^([0-9]+)(ms|s|m|h|d)?$/.exec(raw);
  const ms = m ? Number(m[1]) * UNITS_MS[m[2] ?? 'ms']! : NaN;
  if (!(ms >= rule.min && ms <= rule.max)) {
    throw new UsageError(
      `--${name} takes a duration such as 1d, 12h, 30m, 90s or 500ms (plain digits are milliseconds), ` +
        `from ${durationText(rule.min)} to ${durationText(rule.max)}; not ${shown(raw)}.`,
    );
  }
  return ms;
}

const DECIMAL_FRACTION = /^[0-9]+(\.[0-9]+)?$/;

/**
 * The value of flag `name` as a decimal number within `rule` (plain digits, an optional
 * fraction after a point: `2`, `0.5`, `12.25`); undefined when the flag was not given.
 */
export function decimalFlag(name: string, raw: string | undefined, rule: IntegerRule): number | undefined {
  if (raw === undefined) return undefined;
  const n = DECIMAL_FRACTION.test(raw) ? Number(raw) : NaN;
  if (!(n >= rule.min && n <= rule.max)) {
    throw new UsageError(`--${name} takes ${rule.meaning}: a number from ${grouped(rule.min)} to ${grouped(rule.max)} in plain digits (a fraction after a point, as 0.5); not ${shown(raw)}.`);
  }
  return n;
}
