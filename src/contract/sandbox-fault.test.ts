import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FAULT_SETTINGS, formatSandboxFault, parseSandboxFault, type SandboxFault } from './sandbox-fault';

const problemOf = (value: string) => {
  const r = parseSandboxFault(value);
  if (r.ok) throw new Error(`"${value}" was taken as ${JSON.stringify(r.fault)}`);
  return r.problem;
};

describe('X-Sandbox-Fault values', () => {
  it('reads every setting, combined with ";" and spaces around them', () => {
    expect(parseSandboxFault('status=429; retry-after=7')).toEqual({ ok: true, fault: { status: 429, retryAfter: 7 } });
    expect(parseSandboxFault('drop-after=3')).toEqual({ ok: true, fault: { dropAfter: 3 } });
    expect(parseSandboxFault(' delay-first=1500 ;slow-bytes=64; stall-after=0 ;')).toEqual({ ok: true, fault: { delayFirst: 1500, slowBytes: 64, stallAfter: 0 } });
    expect(parseSandboxFault('status=503;retry-after=0;delay-first=10')).toEqual({ ok: true, fault: { status: 503, retryAfter: 0, delayFirst: 10 } });
  });

  it('refuses a malformed value, saying which setting and why', () => {
    expect(problemOf('')).toMatch(/the value is empty/);
    expect(problemOf('drop-after')).toMatch(/"drop-after" has no "="/);
    expect(problemOf('drop-after=3;;status=500')).toMatch(/empty setting/);
    expect(problemOf('explode=1')).toMatch(/"explode" is not a setting/);
    expect(problemOf('Status=500')).toMatch(/"Status" is not a setting/);
    expect(problemOf('drop-after=1; drop-after=2')).toMatch(/drop-after is given twice/);
    expect(problemOf('drop-after=-1')).toMatch(/drop-after takes events.*not "-1"/);
    expect(problemOf('drop-after=1e3')).toMatch(/plain digits; not "1e3"/);
    expect(problemOf('drop-after=0x10')).toMatch(/not "0x10"/);
    expect(problemOf('drop-after=')).toMatch(/not ""/);
    expect(problemOf('status=200')).toMatch(/status takes an HTTP error status, a whole number from 400 to 599/);
    expect(problemOf('status=600')).toMatch(/from 400 to 599/);
    expect(problemOf('slow-bytes=0')).toMatch(/slow-bytes takes bytes a second, a whole number from 1/);
    expect(problemOf('delay-first=600001')).toMatch(/delay-first takes milliseconds.*to 600,000/);
    expect(problemOf('retry-after=5')).toMatch(/retry-after goes with status=429 or status=503/);
    expect(problemOf('status=500; retry-after=5')).toMatch(/retry-after goes with status=429 or status=503/);
    expect(problemOf('status=500; drop-after=1')).toMatch(/cannot go with drop-after or stall-after/);
    expect(problemOf('drop-after=1; stall-after=2')).toMatch(/drop-after or stall-after, not both/);
    expect(problemOf('x'.repeat(201))).toMatch(/longer than 200 characters/);
    // Every refusal says what the header takes.
    expect(problemOf('nope')).toMatch(/^X-Sandbox-Fault: .*drop-after=N, delay-first=MS, status=CODE/);
  });

  it('a value written from settings reads back as the same settings', () => {
    const setting = (min: number, max: number) => fc.option(fc.integer({ min, max }), { nil: undefined });
    const [status, retry, delay, drop, stall, slow] = FAULT_SETTINGS.map((s) => setting(s.min, s.max));
    const faults = fc
      .record({ status: status!, retryAfter: retry!, delayFirst: delay!, dropAfter: drop!, stallAfter: stall!, slowBytes: slow! })
      .map((f) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as SandboxFault)
      .filter((f) => Object.keys(f).length > 0 && parseSandboxFault(formatSandboxFault(f)).ok);
    fc.assert(
      fc.property(faults, (f) => {
        expect(parseSandboxFault(formatSandboxFault(f))).toEqual({ ok: true, fault: f });
      }),
    );
    expect(formatSandboxFault({ retryAfter: 7, status: 429 })).toBe('status=429; retry-after=7');
  });
});
