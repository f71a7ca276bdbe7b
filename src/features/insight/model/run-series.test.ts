import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../../lib/format';
import { describeSeries, eventIndexAt, peakRate, SeriesBuilder, seriesOf, type SeriesEvent } from './run-series';

/** Events at the given times (ms), `bytes` each, gaps computed as the stream log does. */
function eventsAt(times: number[], bytes = 10): SeriesEvent[] {
  return times.map((at, i) => ({ at, bytes, gap: i === 0 ? at : at - times[i - 1]!, seq: i + 1 }));
}

describe('run series', () => {
  it('reduces a 1,000,000-event run to at most the bounded number of points, counting every event and byte', () => {
    const b = new SeriesBuilder(400);
    let bytes = 0;
    for (let i = 0; i < 1_000_000; i++) {
      const size = 20 + (i % 7);
      bytes += size;
      // 1,000,000 events over about 50 s, with a 3 s silence in the middle.
      const at = i * 0.05 + (i >= 500_000 ? 3_000 : 0);
      b.add({ at, bytes: size, gap: i === 0 ? at : i === 500_000 ? 3_000.05 : 0.05, seq: i + 1 });
    }
    const v = b.view();
    expect(v.counts.length).toBeLessThanOrEqual(400);
    expect(v.counts.length).toBeGreaterThan(100);
    expect(v.counts.reduce((a, c) => a + c, 0)).toBe(1_000_000);
    expect(v.events).toBe(1_000_000);
    expect(v.bytes).toBe(bytes);
    expect(v.cumulativeBytes.at(-1)).toBe(bytes);
    expect(v.gaps).toEqual([{ from: 500_000 * 0.05 - 0.05, to: 500_000 * 0.05 + 3_000, seq: 500_001 }].map((g) => ({ ...g, from: expect.closeTo(g.from, 3) as unknown as number, to: expect.closeTo(g.to, 3) as unknown as number })));
  });

  it('a live log is added from where it was left, and gives the same series as the whole log at once', () => {
    const events = eventsAt([5, 20, 40, 1_500, 1_510, 9_000]);
    const live = new SeriesBuilder(50);
    live.addFrom(events.slice(0, 3));
    live.addFrom(events.slice(0, 3)); // nothing new: nothing counted twice
    live.addFrom(events);
    expect(live.view()).toEqual(seriesOf(events, 50));
    expect(live.view().events).toBe(6);
  });

  it('marks the first event and the silences over the threshold, not the wait before the first event', () => {
    const v = seriesOf(eventsAt([2_500, 2_600, 4_000, 4_100, 6_200]), 400, 1_000);
    expect(v.firstEventMs).toBe(2_500);
    expect(v.gaps).toEqual([
      { from: 2_600, to: 4_000, seq: 3 },
      { from: 4_100, to: 6_200, seq: 5 },
    ]);
  });

  it('keeps the longest 50 silences when there are more, and says how many more there were', () => {
    const times: number[] = [];
    for (let i = 0; i < 120; i++) times.push((times.at(-1) ?? 0) + 1_001 + i); // each silence longer than the last
    const v = seriesOf(eventsAt(times), 400, 1_000);
    expect(v.gaps).toHaveLength(50);
    expect(v.moreGaps).toBe(69);
    expect(Math.min(...v.gaps.map((g) => g.to - g.from))).toBe(1_001 + 70);
  });

  it('cumulative bytes only grow; the peak rate is events per second of the busiest second, or of the whole run when shorter', () => {
    const v = seriesOf(eventsAt([0, 1, 2, 3, 500, 900]), 400);
    for (let i = 1; i < v.cumulativeBytes.length; i++) expect(v.cumulativeBytes[i]).toBeGreaterThanOrEqual(v.cumulativeBytes[i - 1]!);
    // Six events in 0.91 s.
    expect(peakRate(v)).toEqual({ perSecond: Math.round((6 * 1000) / (v.counts.length * v.bucketMs)), atMs: 0 });
    // A slow stream (an event every 400 ms) peaks near 2.5 a second, not at one event per bucket.
    const slow = seriesOf(eventsAt(Array.from({ length: 50 }, (_, i) => 400 + i * 400)), 400);
    expect(peakRate(slow)!.perSecond).toBeLessThanOrEqual(3);
    // A burst inside a long run is found where it is.
    const burst = seriesOf(eventsAt([100, 5_000, ...Array.from({ length: 40 }, (_, i) => 8_000 + i * 10), 12_000]), 400);
    expect(peakRate(burst)!.atMs).toBeGreaterThan(7_000);
    expect(peakRate(burst)!.atMs).toBeLessThanOrEqual(8_000);
    expect(peakRate(burst)!.perSecond).toBeGreaterThanOrEqual(40);
  });

  it('finds the event nearest a time, by binary search', () => {
    const events = eventsAt([10, 20, 100, 105]);
    expect(eventIndexAt(events, 0)).toBe(0);
    expect(eventIndexAt(events, 14)).toBe(0);
    expect(eventIndexAt(events, 16)).toBe(1);
    expect(eventIndexAt(events, 90)).toBe(2);
    expect(eventIndexAt(events, 10_000)).toBe(3);
    expect(eventIndexAt([], 5)).toBeUndefined();
  });

  it('says the chart in words', () => {
    const v = seriesOf(eventsAt([40, 50, 1_600]), 400, 1_000);
    expect(describeSeries(v, 1_700)).toBe(
      `3 events, ${formatBytes(30)} in 1.70 s; first event after 40 ms; peak 2 events per second at 0.04 s; 1 silence over 1,000 ms, the longest 1,550 ms before event 3 at 1.60 s.`,
    );
    expect(describeSeries(seriesOf([]), undefined)).toBe('No event yet.');
    // A run shorter than a second whose events began late: the peak is when they came.
    expect(describeSeries(seriesOf(eventsAt([491, 500, 510]), 400, 1_000), 600)).toMatch(/peak \d+ events per second at 0\.49 s;/);
  });
});
