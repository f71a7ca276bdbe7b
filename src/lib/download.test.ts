import { expect, it } from 'vitest';
import { exportFileName } from './download';

it('an export is named by what it holds, its agent and when it ran, with nothing a file system refuses', () => {
  const at = new Date(2026, 10, 25, 9, 5).getTime();
  expect(exportFileName('run', 'echo-assistant', at, 'run_abc_123')).toBe('run-echo-assistant-2026-11-25-0905-run_abc_123.json');
  expect(exportFileName('conversation', 'a/b c:d', at, 'thread_1')).toBe('conversation-a_b_c_d-2026-11-25-0905-thread_1.json');
});
