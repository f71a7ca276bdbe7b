import { defaultRangeExtractor, useVirtualizer, type Range } from '@tanstack/react-virtual';
import { useCallback, useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { formatCount } from '../../../lib/format';
import { previewOf, type TimelineEntry } from '../../../engine/stream-event';
import type { StreamLog } from '../../../engine/stream-log';
import { EventDetail } from './event-detail';
import { useFollowEnd } from './use-follow-end';

const ROW_HEIGHT = 30;

/**
 * What a screen reader says of a row: the columns with their units, then the preview. Not
 * "Event N", which names the event's detail below.
 */
function rowLabel(e: TimelineEntry): string {
  return `${e.seq}. ${e.event}, +${formatCount(e.at)} ms, ${formatCount(e.bytes)} bytes${e.warning ? ', with a warning' : ''}${e.cut ? ', cut' : ''}: ${previewOf(e)}`;
}

/**
 * Every event of the run, one row each. A long timeline stays cheap: only the rows on screen
 * exist in the DOM. It is one listbox, one Tab stop: focus stays on the list and
 * aria-activedescendant names the active row, which the arrow keys, Page Up/Down, Home and
 * End move and keep in view; Enter, Space or a click opens the row's event below.
 */
export function Timeline({ log, selected: picked, onSelect, reveal }: {
  log: StreamLog;
  /** The event opened below, when the caller holds it (the chart opens events too). */
  selected?: number | null;
  onSelect?(index: number): void;
  /** An event opened from outside the list, to bring into view: a new object each time it is asked, even for the same event. */
  reveal?: { index: number };
}) {
  const parent = useRef<HTMLDivElement>(null);
  const idBase = useId();
  const rowId = (index: number) => `${idBase}-event-${index}`;
  const [own, setOwn] = useState<number | null>(null);
  const selected = picked !== undefined ? picked : own;
  const setSelected = (index: number) => (onSelect ? onSelect(index) : setOwn(index));
  const [active, setActive] = useState<number | null>(null);
  const { follow, setFollow, onScroll, onWheel } = useFollowEnd(parent);
  const count = log.events.length;
  // The active row stays rendered wherever the list is scrolled: aria-activedescendant must
  // name an element that exists.
  const rangeExtractor = useCallback(
    (range: Range) => {
      const rows = defaultRangeExtractor(range);
      if (active === null || active >= range.count || rows.length === 0) return rows;
      if (active < rows[0]!) return [active, ...rows];
      if (active > rows[rows.length - 1]!) return [...rows, active];
      return rows;
    },
    [active],
  );
  // The project does not use the React Compiler, so its memoization warning does not apply.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({ count, getScrollElement: () => parent.current, estimateSize: () => ROW_HEIGHT, overscan: 10, rangeExtractor });
  // Following: the end in view with one scroll write, which the browser clamps, and no read.
  // scrollToIndex(count - 1) read the layout back (to clamp to the end) and then re-read it
  // every frame until the position settled, several forced layouts per render. The virtualizer
  // treats this write like a user's scroll and renders the rows there.
  useLayoutEffect(() => {
    if (follow && count > 0 && parent.current) parent.current.scrollTop = virtualizer.getTotalSize();
  }, [count, follow, virtualizer]);

  // An event opened from outside (the chart) is brought into view, and the list stops following.
  useLayoutEffect(() => {
    if (!reveal) return;
    setFollow(false);
    virtualizer.scrollToIndex(reveal.index, { align: 'center' });
    // Each time it is asked (the same event again too); not on every new event.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [reveal]);

  const firstInView = () => Math.min(count - 1, Math.ceil((virtualizer.scrollOffset ?? 0) / ROW_HEIGHT));
  const moveTo = (index: number) => {
    setActive(index);
    virtualizer.scrollToIndex(index, { align: 'auto' });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (count === 0 || e.altKey || e.ctrlKey || e.metaKey) return;
    const from = active ?? firstInView();
    const page = Math.max(1, Math.floor((parent.current?.clientHeight ?? ROW_HEIGHT) / ROW_HEIGHT) - 1);
    let to: number;
    switch (e.key) {
      case 'ArrowDown':
        to = active === null ? from : from + 1;
        break;
      case 'ArrowUp':
        to = active === null ? from : from - 1;
        break;
      case 'PageDown':
        to = from + page;
        break;
      case 'PageUp':
        to = from - page;
        break;
      case 'Home':
        to = 0;
        break;
      case 'End':
        to = count - 1;
        break;
      case 'Enter':
      case ' ':
        e.preventDefault();
        if (active !== null) setSelected(active);
        return;
      default:
        return;
    }
    e.preventDefault();
    // Reading rows up the list: new events must not pull the view back to the end. End may follow on.
    if (e.key !== 'End') setFollow(false);
    moveTo(Math.max(0, Math.min(count - 1, to)));
  };

  const entry = selected !== null ? log.events[selected] : undefined;
  const rows = virtualizer.getVirtualItems();
  return (
    <section className="stream-timeline" aria-labelledby={`${idBase}-heading`}>
      <div className="toolbar">
        <h3 id={`${idBase}-heading`}>Timeline</h3>
        <label className="field checkbox">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow new events
        </label>
      </div>
      <div className="timeline-head" aria-hidden="true">
        <span>#</span>
        <span>id</span>
        <span>event</span>
        <span>+ms</span>
        <span>Δms</span>
        <span>bytes</span>
        <span>data</span>
      </div>
      <div
        ref={parent}
        className="timeline"
        role="listbox"
        aria-label={`${count} events`}
        aria-activedescendant={active !== null && active < count ? rowId(active) : undefined}
        tabIndex={0}
        onKeyDown={onKeyDown}
        onFocus={(e) => {
          if (e.target === e.currentTarget && active === null && count > 0) setActive(selected ?? firstInView());
        }}
        onScroll={onScroll}
        onWheel={onWheel}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {rows.map((row) => {
            const e = log.events[row.index]!;
            return (
              <div
                // Keyed by slot, not index: the other rows on screen lie within rows.length
                // consecutive indexes, so index % rows.length is unique among them, and a row
                // that scrolls off is reused for the one scrolling in instead of being removed
                // and created again on every frame of a followed stream.
                key={row.index === active ? 'active' : row.index % rows.length}
                id={rowId(row.index)}
                role="option"
                aria-selected={selected === row.index}
                aria-posinset={row.index + 1}
                aria-setsize={count}
                aria-label={rowLabel(e)}
                className={`timeline-row${e.warning ? ' warned' : ''}${row.index === active ? ' active' : ''}`}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${row.start}px)` }}
                // Opened at the press: focusing the list may re-key the row it lands on (the active
                // row keeps its own key), and a click whose press and release hit two elements is lost.
                onMouseDown={(ev) => {
                  if (ev.button !== 0) return;
                  ev.preventDefault();
                  parent.current?.focus({ preventScroll: true });
                  setActive(row.index);
                  setSelected(row.index);
                }}
                // A click without a press (assistive technologies) opens it too.
                onClick={() => {
                  setActive(row.index);
                  setSelected(row.index);
                }}
              >
                <span>{e.seq}</span>
                <span>{e.id}</span>
                <span>{e.event}</span>
                <span>{e.at}</span>
                <span>{e.gap}</span>
                <span>{e.bytes}</span>
                <span className="data-preview">
                  {e.warning ? '⚠ ' : ''}
                  {e.cut ? '✂ ' : ''}
                  {previewOf(e)}
                </span>
              </div>
            );
          })}
        </div>
      </div>
      {entry && <EventDetail entry={entry} stream={log.meta} />}
    </section>
  );
}
