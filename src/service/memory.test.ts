/**
 * After large bodies, the garbage they left in V8's old generation is collected once the
 * service is quiet, instead of keeping its RSS up until V8 decides to (bench:load's hostile
 * phase measures the RSS itself).
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, test } from 'vitest';
import { LARGE_BODY_BYTES, LargeBodyCollector } from './memory.ts';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

/** Tens of MB of objects that live long enough to reach the old generation, then become garbage. */
async function oldGarbage(): Promise<void> {
  const held: { items?: unknown[] } = { items: Array.from({ length: 400_000 }, (_, i) => ({ i, text: `value ${i}` })) };
  // A few turns with allocation in between, so that scavenges promote them.
  for (let k = 0; k < 5; k++) {
    Array.from({ length: 200_000 }, (_, i) => ({ i }));
    await new Promise((r) => setImmediate(r));
  }
  expect(held.items).toHaveLength(400_000);
  delete held.items;
}

const heapMb = () => process.memoryUsage().heapUsed / 2 ** 20;

describe('the collection after large bodies', () => {
  test('runs once the service has been quiet after a large body, and frees its garbage', async () => {
    const collector = new LargeBodyCollector(50);
    await oldGarbage();
    const before = heapMb();
    collector.answered(request({ 'content-length': String(LARGE_BODY_BYTES) }));
    await new Promise((r) => setTimeout(r, 300));
    expect(heapMb()).toBeLessThan(before - 10);
  });

  test('runs once after a burst of large bodies, not once per body; small bodies do not ask for it', async () => {
    let runs = 0;
    const collector = new LargeBodyCollector(100, () => runs++);
    for (let i = 0; i < 5; i++) {
      collector.answered(request({ 'content-length': String(LARGE_BODY_BYTES + i) }));
      collector.answered(request({ 'content-length': '1000' }));
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(runs).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(runs).toBe(1);
    collector.answered(request({ 'content-length': '1000' }));
    collector.answered(request({}));
    await new Promise((r) => setTimeout(r, 300));
    expect(runs).toBe(1);
  });
});
