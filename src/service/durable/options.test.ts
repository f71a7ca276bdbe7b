import { describe, expect, test } from 'vitest';
import { parseFlags, UsageError } from '../flags.ts';
import { SERVICE_FLAGS, serviceOptionsOf } from '../options.ts';

describe('durable deadline flags of `npm run service` and `npm start`', () => {
  test('become the service options that shorten durable runs\' deadlines', () => {
    const flags = parseFlags(['--memory', '--durable-timeout-ms', '1500', '--durable-grace-ms', '250'], SERVICE_FLAGS);
    expect(serviceOptionsOf(flags)).toMatchObject({ durableTimeoutMs: 1500, durableGraceMs: 250 });
    expect(serviceOptionsOf(parseFlags(['--memory'], SERVICE_FLAGS))).not.toHaveProperty('durableTimeoutMs');
  });

  test('refuse what is not a whole number of milliseconds', () => {
    for (const bad of ['0', '-5', '1.5', 'soon', '']) {
      expect(() => serviceOptionsOf(parseFlags(['--durable-grace-ms', bad], SERVICE_FLAGS)), bad).toThrow(UsageError);
    }
  });
});

describe('durable limit flags', () => {
  test('--max-durable-runs caps durable runs apart; without it they take --max-runs\' value', () => {
    expect(serviceOptionsOf(parseFlags(['--max-durable-runs', '5'], SERVICE_FLAGS))).toMatchObject({ maxDurableRunsPerToken: 5 });
    expect(serviceOptionsOf(parseFlags(['--max-durable-runs', '0'], SERVICE_FLAGS))).toMatchObject({ maxDurableRunsPerToken: 0 });
    for (const bad of ['-1', '2.5', 'many', '']) {
      expect(() => serviceOptionsOf(parseFlags(['--max-durable-runs', bad], SERVICE_FLAGS)), bad).toThrow(UsageError);
    }
  });

  test('--durable-retention takes a duration with a unit, or milliseconds', () => {
    const retention = (v: string) => serviceOptionsOf(parseFlags(['--durable-retention', v], SERVICE_FLAGS)).durableRetentionMs;
    expect(retention('1d')).toBe(86_400_000);
    expect(retention('12h')).toBe(43_200_000);
    expect(retention('30m')).toBe(1_800_000);
    expect(retention('90s')).toBe(90_000);
    expect(retention('500ms')).toBe(500);
    expect(retention('2500')).toBe(2_500);
    for (const bad of ['0', '-1d', '1w', 'a day', '1.5h', '']) expect(() => retention(bad), bad).toThrow(UsageError);
  });
});
