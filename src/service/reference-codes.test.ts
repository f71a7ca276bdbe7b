/**
 * The spec lens marks the reference service's own problem codes apart from an instance's
 * differences (contract/problem.ts, REFERENCE_ONLY_CODES). That list must be what the service
 * and the console's server send beyond the public code list, and nothing the list has.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROBLEM_CODES, REFERENCE_ONLY_CODES } from '../contract/problem.ts';
import { SPEC_DIR } from './test-support/spec.ts';
import { SANDBOX_FAULT_CODE } from './faults.ts';
import { REFUSALS } from './upstream-proxy.ts';

const platform = JSON.parse(readFileSync(path.join(SPEC_DIR, 'platform.json'), 'utf8')) as { components: { schemas: { ProblemDetailCode: { enum: string[] } } } };

const publicCodes = new Set<string>(platform.components.schemas.ProblemDetailCode.enum);
const sent = new Set<string>([...Object.keys(PROBLEM_CODES), ...Object.values(REFUSALS).map((r) => r.code), SANDBOX_FAULT_CODE]);

describe('the reference service’s own problem codes', () => {
  it('every code the service or the console’s server sends beyond the public list is listed as its own', () => {
    expect([...sent].filter((code) => !publicCodes.has(code) && !REFERENCE_ONLY_CODES.has(code))).toEqual([]);
  });

  it('no public code is listed as the reference service’s own', () => {
    expect([...REFERENCE_ONLY_CODES.keys()].filter((code) => publicCodes.has(code))).toEqual([]);
    expect(REFERENCE_ONLY_CODES.has('durable_run_required')).toBe(true);
  });
});
