import type { Page } from '@playwright/test';

/**
 * A timer in the page that notes how late it runs: the largest gap between its ticks is how
 * long the page could not answer anything (input, paint, timers). Installed before any page
 * script; read over CDP, which the page's policy does not restrict (no eval in the page).
 */
const INIT = `(() => {
  const beat = (window.__heartbeat = { last: performance.now(), maxGap: 0, at: 0, gaps: [] });
  setInterval(() => {
    const now = performance.now();
    const gap = now - beat.last;
    if (gap > 250 && beat.gaps.length < 50) beat.gaps.push([Math.round(beat.last), Math.round(gap)]);
    if (gap > beat.maxGap) { beat.maxGap = gap; beat.at = now; }
    beat.last = now;
  }, 50);
})();`;

export class Heartbeat {
  constructor(readonly page: Page) {}

  async install() {
    await this.page.addInitScript(INIT);
  }

  /** Forgets the gaps so far (the page's own start-up, say). */
  async reset() {
    await this.page.evaluate('window.__heartbeat.maxGap = 0; window.__heartbeat.gaps = []; window.__heartbeat.last = performance.now()');
  }

  /** The largest gap since the page started or the last reset, the one going on included, in ms. */
  async maxGap(): Promise<number> {
    return this.page.evaluate<number>('Math.max(window.__heartbeat.maxGap, performance.now() - window.__heartbeat.last)');
  }

  /** The gaps over 250 ms so far, as `[start ms, length ms]` pairs, for a failure's message. */
  async gaps(): Promise<string> {
    return this.page.evaluate<string>('JSON.stringify(window.__heartbeat.gaps)');
  }

  /** The page's JS heap after a full collection, in MB. */
  async heapMb(): Promise<number> {
    const cdp = await this.page.context().newCDPSession(this.page);
    try {
      await cdp.send('HeapProfiler.collectGarbage');
      const { usedSize } = await cdp.send('Runtime.getHeapUsage');
      return usedSize / 2 ** 20;
    } finally {
      await cdp.detach();
    }
  }
}
