/**
 * Importing a suite file at the limits leaves the page answering: every pattern of a file is
 * compiled for linear-time matching, and 20,000 long ones held the page 43 s (attack review).
 * The file is now read off the page's thread, with "Checking …" said meanwhile.
 */
import { cleanup, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect, it } from 'vitest';
import { consoleDb } from '../db/console-db';
import { DEMO, freshBrowser, renderConsole, settleConsole } from './test-console';

afterEach(async () => {
  await settleConsole();
  cleanup();
});

/** A long pattern RE2 takes, distinct per assertion (a repeated one is compiled once). */
function longPattern(n: number, chars: number): string {
  let s = `^(?:case${n}|`;
  for (let k = 0; s.length < chars - 4; k++) s += `[a-z]{1,9}w${(n * 31 + k) % 9973}|`;
  return `${s}x)+$`;
}

it('a suite of 3,000 long patterns imports while the page goes on answering, and says it is checking the file meanwhile', async () => {
  freshBrowser(DEMO.agents);
  const user = userEvent.setup();
  const scase = (i: number) => ({
    id: `case_${i}`,
    name: `Case ${i}`,
    agent: { id: 'echo-assistant' },
    api: 'platform',
    mode: 'stream',
    messages: [{ role: 'USER', content: [{ type: 'text', text: 'Hello' }] }],
    assertions: Array.from({ length: 100 }, (_, j) => ({ kind: 'answer-matches', pattern: longPattern(i * 100 + j, 990) })),
  });
  const file = new File([JSON.stringify({ format: 'metadata-agents-console/suite', version: 1, suite: { name: 'Many patterns' }, cases: Array.from({ length: 30 }, (_, i) => scase(i)) })], 'patterns.json', { type: 'application/json' });
  renderConsole('/suites');
  const input = await screen.findByLabelText('Suite file to import');

  // A timer of the page: its longest gap is the longest the page could not answer.
  let last = performance.now();
  let longestGap = 0;
  const beat = setInterval(() => {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - last);
    last = now;
  }, 50);
  try {
    await user.upload(input, file);
    await screen.findByText('Checking patterns.json…');
    expect(await screen.findByLabelText<HTMLInputElement>('Suite name', undefined, { timeout: 50_000 })).toHaveProperty('value', 'Many patterns');
  } finally {
    clearInterval(beat);
  }
  // Compiled in the page, these 3,000 patterns held it 6.5 s on a quiet machine, and longer on a
  // loaded one; 5 s is past what a loaded machine adds to the page's own short tasks (e2e's FROZEN_MS).
  expect(longestGap, `the page's timer waited ${Math.round(longestGap)} ms at most`).toBeLessThan(5_000);
  const saved = await consoleDb().suites.filter((s) => s.name === 'Many patterns').first();
  expect(saved?.cases.flatMap((c) => c.assertions)).toHaveLength(3_000);
  await consoleDb().suites.delete(saved!.id);
});
