import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { HISTORY_BYTES_LIMIT, type Eviction } from '../../../db/history';
import { EvictionNotice } from './eviction-notice';

afterEach(cleanup);

const limits = { items: 50, bytes: 100_000_000 };
const thread = (n: number) => ({ id: `thread_${n}`, kind: 'thread' as const, title: `Question ${n}`, bytes: 1_000, reason: 'count' as const });

it('counts every item let go since the last dismissal, though it names only the newest', () => {
  const eviction: Eviction = { at: 1, limits, items: [thread(399), thread(398), thread(397), thread(396), thread(395), thread(394)], counts: { count: 399, size: 0, 'too-large': 0 } };
  render(<EvictionNotice eviction={eviction} />);
  const text = screen.getByRole('status').textContent ?? '';
  expect(text).toContain('History let go of 399 older items to stay within 50 items');
  expect(text).toContain('conversation “Question 399”');
  expect(text).toContain('conversation “Question 395”, and 394 more.');
  expect(text).not.toContain('Question 394');
});

it('says history\'s size limit as the README does: 100 MB', () => {
  render(<EvictionNotice eviction={{ at: 1, limits: { items: 50, bytes: HISTORY_BYTES_LIMIT }, items: [{ ...thread(1), reason: 'size' }] }} />);
  expect(screen.getByRole('status').textContent).toContain('to stay within 100 MB');
});

it('a notice kept before the counts were (names only) still counts what it names', () => {
  const big = { id: 'big', kind: 'run' as const, title: 'Echo Assistant (stream)', bytes: 280_000, reason: 'too-large' as const };
  render(<EvictionNotice eviction={{ at: 1, limits: { items: 50, bytes: 100_000 }, items: [big, thread(1)] }} />);
  const text = screen.getByRole('status').textContent ?? '';
  expect(text).toMatch(/History let go of run “Echo Assistant \(stream\)” \(2\d\d(\.\d)? kB\): it was too large/);
  expect(text).toContain('History let go of an older item to stay within 50 items');
});
