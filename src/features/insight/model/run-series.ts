/**
 * A streamed run over time, reduced to a bounded number of points whatever its length: events
 * fall into buckets of equal width, and when the run outgrows them, neighbours merge and the
 * width doubles. Adding an event is O(1) (amortized), so a chart can follow a live stream by
 * adding only what arrived since it last looked.
 */

import { formatBytes, formatCount } from '../../../lib/format';

export interface SeriesEvent {
  /** ms since the POST was sent */
  at: number;
  bytes: number;
  /** ms since the previous event (the first: since the POST) */
  gap: number;
  seq: number;
}

export interface Gap {
  /** When the silence began and ended (ms since the POST). */
  from: number;
  to: number;
  /** The event that ended it. */
  seq: number;
}

export interface SeriesView {
  /** Width of each bucket in ms. */
  bucketMs: number;
  /** Events in each bucket (bucket i covers [i·bucketMs, (i+1)·bucketMs)). */
  counts: readonly number[];
  /** Bytes received by the end of each bucket (cumulative). */
  cumulativeBytes: readonly number[];
  events: number;
  bytes: number;
  firstEventMs?: number;
  lastEventMs?: number;
  /** The longest silences over the threshold, in time order (at most `maxGaps`). */
  gaps: readonly Gap[];
  /** More silences over the threshold than kept. */
  moreGaps: number;
  gapThresholdMs: number;
}

export const DEFAULT_MAX_POINTS = 400;
export const DEFAULT_GAP_MS = 1_000;
const MAX_GAPS = 50;

export class SeriesBuilder {
  private bucketMs: number;
  private counts: number[] = [];
  private bytesIn: number[] = [];
  private gaps: Gap[] = [];
  private moreGaps = 0;
  private events = 0;
  private bytes = 0;
  private firstEventMs: number | undefined;
  private lastEventMs: number | undefined;
  /** How many of a log's events were added: a live log is read from here on. */
  added = 0;

  constructor(
    readonly maxPoints = DEFAULT_MAX_POINTS,
    readonly gapThresholdMs = DEFAULT_GAP_MS,
    initialBucketMs = 10,
  ) {
    this.bucketMs = initialBucketMs;
  }

  add(e: SeriesEvent): void {
    const at = Math.max(0, e.at);
    while (at >= this.bucketMs * this.maxPoints) this.widen();
    const i = Math.floor(at / this.bucketMs);
    while (this.counts.length <= i) {
      this.counts.push(0);
      this.bytesIn.push(0);
    }
    this.counts[i]! += 1;
    this.bytesIn[i]! += e.bytes;
    this.events++;
    this.bytes += e.bytes;
    this.firstEventMs ??= at;
    this.lastEventMs = at;
    // The first event's wait is the first-event latency, marked on its own; gaps are silences between events.
    if (this.events > 1 && e.gap > this.gapThresholdMs) this.keepGap({ from: at - e.gap, to: at, seq: e.seq });
    this.added++;
  }

  /** Adds the events of `log` not added yet (a live log only grows). */
  addFrom(events: readonly SeriesEvent[]): void {
    for (let i = this.added; i < events.length; i++) this.add(events[i]!);
  }

  view(): SeriesView {
    const cumulativeBytes: number[] = [];
    let sum = 0;
    for (const b of this.bytesIn) cumulativeBytes.push((sum += b));
    return {
      bucketMs: this.bucketMs,
      counts: [...this.counts],
      cumulativeBytes,
      events: this.events,
      bytes: this.bytes,
      firstEventMs: this.firstEventMs,
      lastEventMs: this.lastEventMs,
      gaps: [...this.gaps].sort((a, b) => a.from - b.from),
      moreGaps: this.moreGaps,
      gapThresholdMs: this.gapThresholdMs,
    };
  }

  private widen(): void {
    const counts: number[] = [];
    const bytes: number[] = [];
    for (let i = 0; i < this.counts.length; i += 2) {
      counts.push(this.counts[i]! + (this.counts[i + 1] ?? 0));
      bytes.push(this.bytesIn[i]! + (this.bytesIn[i + 1] ?? 0));
    }
    this.counts = counts;
    this.bytesIn = bytes;
    this.bucketMs *= 2;
  }

  private keepGap(g: Gap): void {
    if (this.gaps.length < MAX_GAPS) return void this.gaps.push(g);
    this.moreGaps++;
    let shortest = 0;
    for (let i = 1; i < this.gaps.length; i++) if (len(this.gaps[i]!) < len(this.gaps[shortest]!)) shortest = i;
    if (len(g) > len(this.gaps[shortest]!)) this.gaps[shortest] = g;
  }
}

const len = (g: Gap) => g.to - g.from;

/** The series of a finished run's events, in one go. */
export function seriesOf(events: readonly SeriesEvent[], maxPoints = DEFAULT_MAX_POINTS, gapThresholdMs = DEFAULT_GAP_MS): SeriesView {
  const b = new SeriesBuilder(maxPoints, gapThresholdMs);
  b.addFrom(events);
  return b.view();
}

/**
 * Peak events per second, and when (its window's first event, not the window's start: a run
 * whose events began at 491 ms read "at 0.00 s"): the busiest second of the run (or the whole
 * run, when shorter), not the busiest bucket: one event in a 10 ms bucket is not "100 events
 * per second".
 */
export function peakRate(v: SeriesView): { perSecond: number; atMs: number } | undefined {
  const n = v.counts.length;
  if (n === 0) return undefined;
  const width = Math.max(1, Math.min(n, Math.round(1_000 / v.bucketMs)));
  let sum = 0;
  for (let i = 0; i < width; i++) sum += v.counts[i]!;
  let best = sum;
  let at = 0;
  for (let i = width; i < n; i++) {
    sum += v.counts[i]! - v.counts[i - width]!;
    if (sum > best) [best, at] = [sum, i - width + 1];
  }
  while (at < n - 1 && v.counts[at] === 0) at++;
  return { perSecond: Math.round((best * 1000) / (width * v.bucketMs)), atMs: Math.max(at * v.bucketMs, v.firstEventMs ?? 0) };
}

/** The index of the event received at (or last before) `atMs`, by binary search over events in time order. */
export function eventIndexAt(events: readonly { at: number }[], atMs: number): number | undefined {
  if (events.length === 0) return undefined;
  let lo = 0;
  let hi = events.length - 1;
  if (atMs <= events[0]!.at) return 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (events[mid]!.at <= atMs) lo = mid;
    else hi = mid - 1;
  }
  // The nearer of the event before and the one after.
  const next = events[lo + 1];
  return next && next.at - atMs < atMs - events[lo]!.at ? lo + 1 : lo;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

/** The chart in words, for screen readers and for anyone who would rather read the numbers. */
export function describeSeries(v: SeriesView, durationMs: number | undefined): string {
  if (v.events === 0) return durationMs === undefined ? 'No event yet.' : `No event in ${seconds(durationMs)}.`;
  const parts = [
    `${formatCount(v.events)} ${v.events === 1 ? 'event' : 'events'}, ${formatBytes(v.bytes)}${durationMs === undefined ? ' so far' : ` in ${seconds(durationMs)}`}`,
    `first event after ${formatCount(v.firstEventMs ?? 0)} ms`,
  ];
  const peak = peakRate(v);
  if (peak && v.events > 1) parts.push(`peak ${formatCount(peak.perSecond)} events per second at ${seconds(peak.atMs)}`);
  const n = v.gaps.length + v.moreGaps;
  if (n === 0) parts.push(`no silence over ${formatCount(v.gapThresholdMs)} ms`);
  else {
    const longest = v.gaps.reduce((a, b) => (b.to - b.from > a.to - a.from ? b : a));
    parts.push(
      `${n} ${n === 1 ? 'silence' : 'silences'} over ${formatCount(v.gapThresholdMs)} ms, the longest ${formatCount(longest.to - longest.from)} ms before event ${longest.seq} at ${seconds(longest.to)}`,
    );
  }
  return `${parts.join('; ')}.`;
}
