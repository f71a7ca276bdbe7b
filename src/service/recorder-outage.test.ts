/**
 * A recording directory that cannot be written is said on stderr; exchanges are still forwarded.
 * Said once per outage, not once per process: after writing works again, the next outage is said too.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test, vi } from 'vitest';
import { Recorder } from './recorder.ts';
import type { Recording } from './recording.ts';

const recording = { request: { method: 'GET', path: '/rest/api/index/custom-metadata/schema/sales' } } as unknown as Recording;

afterEach(() => vi.restoreAllMocks());

test('a second outage of the recording directory, after writing worked again, is said as the first was', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'mac-record-')), 'dir');
  const recorder = new Recorder(dir);
  const said: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void said.push(args.join(' ')));
  const cannot = () => said.filter((s) => /Cannot write/.test(s)).length;

  rmSync(dir, { recursive: true });
  recorder.write(recording);
  await vi.waitFor(() => expect(cannot()).toBe(1));

  mkdirSync(dir);
  recorder.write(recording);
  await vi.waitFor(() => expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toHaveLength(1));

  rmSync(dir, { recursive: true });
  recorder.write(recording);
  await vi.waitFor(() => expect(cannot(), said.join('\n')).toBe(2));
  expect(said.some((s) => /works again/.test(s))).toBe(true);
  rmSync(join(dir, '..'), { recursive: true, force: true });
});
