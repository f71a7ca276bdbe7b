/**
 * The measure hostile.spec.ts holds the page to: a task of the page's own that holds its thread
 * for over a second is seen in the trace, in CPU time, whatever else the machine runs.
 */
import { expect, test, type Page } from '@playwright/test';
import { Heartbeat } from './pages/heartbeat';

/** Starts a task in the page that spins for `ms` of wall clock; resolves when it ends, or at once when `wait` is false. */
function spin(page: Page, ms: number, wait = true): Promise<void> {
  return page.evaluate(
    ([ms, wait]) =>
      new Promise<void>((done) => {
        setTimeout(() => {
          const t = performance.now();
          while (performance.now() - t < ms);
          done();
        }, 0);
        if (!wait) done();
      }),
    [ms, wait] as const,
  );
}

test('the heartbeat’s trace sees a task of the page that holds its thread for 1.2 s, and a short one as short', async ({ page }) => {
  const heartbeat = new Heartbeat(page);
  await heartbeat.install();
  await page.goto('/connection');
  await heartbeat.reset();
  await spin(page, 50);
  const short = await heartbeat.longestTask();
  expect(short.tasks).toBeGreaterThan(0);
  expect(short.cpuMs).toBeLessThan(1_000);
  // A loop of 1.2 s of wall clock is the page's longest task; on a quiet machine nearly all of it
  // is the thread's CPU, and even with every core busy elsewhere a good part of it.
  await spin(page, 1_200);
  const long = await heartbeat.longestTask();
  expect(long.wallMs).toBeGreaterThanOrEqual(1_200);
  expect(long.cpuMs).toBeLessThanOrEqual(long.wallMs);
  expect(long.cpuMs).toBeGreaterThan(Math.max(short.cpuMs, long.wallMs / 4));
  await heartbeat.stop();
});

test('a freeze of the page still going on when the check comes is read whole', async ({ page }) => {
  const heartbeat = new Heartbeat(page);
  await heartbeat.install();
  await page.goto('/connection');
  await heartbeat.reset();
  // The page starts 3 s of its own work; the check comes while it runs.
  await spin(page, 3_000, false);
  const task = await heartbeat.longestTask();
  await heartbeat.stop();
  expect(task.wallMs).toBeGreaterThanOrEqual(3_000);
  expect(task.cpuMs).toBeGreaterThan(task.wallMs / 4);
});
