/**
 * Retention as a pure function, property-tested: it reaches the limits whenever dropping
 * unprotected items can, never drops a pinned or protected item, drops nothing it need not,
 * and says why each item went.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retention, withinLimits, type RetainedItem, type RetentionLimits } from './retention';

const item = (id: string, lastAt: number, bytes = 1, patch: Partial<RetainedItem> = {}): RetainedItem => ({ id, kind: 'run', title: id, lastAt, bytes, ...patch });
const ids = (r: ReturnType<typeof retention>) => r.dropped.map((d) => d.id);

describe('retention, by example', () => {
  it('lets go of the oldest past the count, a conversation as one item', () => {
    const items = [item('c', 10, 30, { kind: 'thread' }), ...Array.from({ length: 52 }, (_, i) => item(`r${i}`, 100 + i))];
    expect(ids(retention(items, new Set(), { items: 50, bytes: Infinity }))).toEqual(['c', 'r0', 'r1']);
  });

  it('never lets go of an item protected or pinned: the next oldest goes instead', () => {
    const items = Array.from({ length: 51 }, (_, i) => item(`r${i}`, 100 + i, 1, { pinned: i === 1 }));
    // r1 is pinned, so it does not count: 50 counted items, and nothing goes.
    expect(ids(retention(items, new Set(['r0']), { items: 50, bytes: Infinity }))).toEqual([]);
    expect(ids(retention([...items, item('r99', 999)], new Set(['r0']), { items: 50, bytes: Infinity }))).toEqual(['r2']);
  });

  it('a run larger than the size limit on its own goes alone, said as too large; the smaller ones stay', () => {
    const items = [0, 1, 2, 3].map((i) => item(`small_${i}`, i, 1_000)).concat(item('big', 10, 280_000));
    expect(retention(items, new Set(), { items: 50, bytes: 100_000 }).dropped).toEqual([{ id: 'big', kind: 'run', title: 'big', bytes: 280_000, reason: 'too-large' }]);
  });

  it('an item with a request open neither counts nor goes: a new run in a full history pushes nothing out yet', () => {
    const items = [...Array.from({ length: 50 }, (_, i) => item(`old${i}`, i)), item('new', 100)];
    expect(retention(items, new Set(['new']), { items: 50, bytes: Infinity }, new Set(['new'])).dropped).toEqual([]);
    expect(ids(retention(items, new Set(), { items: 50, bytes: Infinity }))).toEqual(['old0']);
  });

  it('lets nothing go for a limit what is protected is over by itself, and says it stays over', () => {
    const items = [item('shown', 1, 150), item('old', 0, 10), item('new', 5, 10)];
    expect(retention(items, new Set(['shown']), { items: 50, bytes: 100 })).toEqual({ dropped: [], over: ['size'] });
  });
});

const limitsArb = fc.record({ items: fc.integer({ min: 0, max: 12 }), bytes: fc.integer({ min: 0, max: 2_000 }) });
const itemsArb = fc
  .array(fc.record({ lastAt: fc.integer({ min: 0, max: 50 }), bytes: fc.integer({ min: 0, max: 800 }), pinned: fc.boolean(), protect: fc.boolean(), pending: fc.boolean() }), { maxLength: 25 })
  .map((rows) => rows.map((r, i) => ({ ...item(`i${i}`, r.lastAt, r.bytes, { pinned: r.pinned && i % 3 === 0 }), protect: r.protect && i % 2 === 0, pending: r.pending && i % 5 === 0 })));

type Row = RetainedItem & { protect: boolean; pending: boolean };

const run = (rows: Row[], limits: RetentionLimits) => {
  // An item with a request open is protected too (a run going on), and counts not.
  const pending = new Set(rows.filter((r) => r.pending).map((r) => r.id));
  const protect = new Set(rows.filter((r) => r.protect || r.pending).map((r) => r.id));
  const result = retention(rows, protect, limits, pending);
  const gone = new Set(ids(result));
  return { protect, pending, result, gone, kept: rows.filter((r) => !gone.has(r.id)) };
};

describe('retention, as properties', () => {
  it('never drops a pinned or protected item, nor one with a request open, and drops each item at most once', () => {
    fc.assert(
      fc.property(itemsArb, limitsArb, (rows, limits) => {
        const { protect, result, gone } = run(rows, limits);
        expect(gone.size).toBe(result.dropped.length);
        for (const r of rows) if (r.pinned || protect.has(r.id)) expect(gone.has(r.id)).toBe(false);
      }),
    );
  });

  it('reaches the limits whenever dropping unprotected items can', () => {
    fc.assert(
      fc.property(itemsArb, limitsArb, (rows, limits) => {
        const { protect, pending, kept, result } = run(rows, limits);
        const floor = rows.filter((r) => !r.pinned && !pending.has(r.id) && protect.has(r.id));
        const reachable = floor.length <= limits.items && floor.reduce((n, r) => n + r.bytes, 0) <= limits.bytes;
        if (reachable) {
          expect(withinLimits(kept, limits, pending)).toBe(true);
          expect(result.over).toEqual([]);
        }
      }),
    );
  });

  it('drops nothing when history is within its limits, and nothing more than it needs', () => {
    fc.assert(
      fc.property(itemsArb, limitsArb, (rows, limits) => {
        const { kept, pending, result } = run(rows, limits);
        if (withinLimits(rows, limits, pending)) expect(result.dropped).toEqual([]);
        // Every item too large for the limit on its own is said so; putting back the last item
        // dropped for the count or the size would take history over that limit again.
        for (const d of result.dropped) expect(d.reason === 'too-large').toBe(d.bytes > limits.bytes);
        const last = result.dropped.filter((d) => d.reason !== 'too-large').at(-1);
        if (last) {
          const back = [...kept, rows.find((r) => r.id === last.id)!];
          const counted = back.filter((r) => !r.pinned && !pending.has(r.id));
          const over = last.reason === 'count' ? counted.length > limits.items : counted.reduce((n, r) => n + r.bytes, 0) > limits.bytes;
          expect(over).toBe(true);
        }
      }),
    );
  });

  it('lets the oldest go first: no item kept (unprotected, unpinned, within the size limit) is older than one dropped for the count or size', () => {
    fc.assert(
      fc.property(itemsArb, limitsArb, (rows, limits) => {
        const { protect, kept, result } = run(rows, limits);
        const newestGone = Math.max(-1, ...result.dropped.filter((d) => d.reason !== 'too-large').map((d) => rows.find((r) => r.id === d.id)!.lastAt));
        for (const k of kept) if (!k.pinned && !protect.has(k.id)) expect(k.lastAt).toBeGreaterThanOrEqual(newestGone);
      }),
    );
  });

  it('is settled: retention of what it kept lets nothing more go', () => {
    fc.assert(
      fc.property(itemsArb, limitsArb, (rows, limits) => {
        const { protect, pending, kept } = run(rows, limits);
        expect(retention(kept, protect, limits, pending).dropped).toEqual([]);
      }),
    );
  });
});
