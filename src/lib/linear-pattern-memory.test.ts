/**
 * Attack on suite import: a pattern RE2 takes, within the suite file's 10,000 characters, can
 * compile to a program of about 35 MB, and every compiled pattern is kept (512 at most). A suite
 * file of 100 such patterns (1 MB, far inside every limit) then holds 3.5 GB in the worker that
 * checks it, past what a tab's heap may hold; each also takes about 1.5 s to compile.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { linearPattern } from './linear-pattern';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

it('checking heavy patterns does not keep tens of MB per pattern', { timeout: 120_000 }, () => {
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 4; i++) {
    const p = linearPattern(`(?:[a-z]{1000}|b${i})`.repeat(500));
    expect(p.ok).toBe(true);
  }
  gc();
  const keptMb = (process.memoryUsage().heapUsed - before) / 2 ** 20;
  expect(keptMb, `${Math.round(keptMb)} MB kept after checking 4 patterns of 9,000 characters`).toBeLessThan(40);
});
