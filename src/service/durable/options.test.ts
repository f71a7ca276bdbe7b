import { describe, expect, test } from 'vitest';
import { parseFlags, SERVICE_FLAGS, serviceOptionsOf, UsageError } from '../options.ts';

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
