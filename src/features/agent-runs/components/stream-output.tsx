import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useLayoutEffect, useRef, useState, useSyncExternalStore } from 'react';
import { ResponseMetaView } from '../../../components/response-meta';
import { SpecEventBadge } from '../../../components/spec-badge';
import { isActive, type RunState } from '../model/run-machine';
import type { StreamLog, TimelineEntry } from '../model/stream-log';
import { formatBytes, formatCount } from '../../../lib/format';
import { CopyButton } from '../../../components/copy-button';

const ROW_HEIGHT = 30;

/**
 * A block, so that text arriving in the last chunk does not re-lay out the others; skipped
 * by layout and paint while scrolled out of view (content-visibility), with a height guessed
 * from its length until it has been shown once. Text, find-in-page and the accessibility tree
 * keep all of it.
 */
const TranscriptChunk = memo(function TranscriptChunk({ text }: { text: string }) {
  return <div style={{ contentVisibility: 'auto', containIntrinsicSize: `auto ${Math.max(1, Math.round(text.length / 100))}lh` }}>{text}</div>;
});

function pretty(data: string): string {
  try {
    return JSON.stringify(JSON.parse(data), null, 2);
  } catch {
    return data;
  }
}

function EventDetail({ entry, stream }: { entry: TimelineEntry; stream: StreamLog['meta'] }) {
  const [raw, setRaw] = useState(false);
  return (
    <div className="event-detail" aria-label={`Event ${entry.seq}`}>
      <div className="toolbar">
        <strong>
          Event {entry.seq}: <code>{entry.event}</code>
          {entry.id && (
            <>
              {' '}
              id <code>{entry.id}</code>
            </>
          )}
        </strong>
        <span className="muted">
          +{formatCount(entry.at)} ms · Δ {formatCount(entry.gap)} ms · {formatBytes(entry.bytes)}
        </span>
        <label className="field checkbox">
          <input type="checkbox" checked={raw} onChange={(e) => setRaw(e.target.checked)} /> Raw data
        </label>
        <CopyButton text={entry.data} label="Copy event data" />
      </div>
      {entry.warning && <p className="warn">⚠ {entry.warning}</p>}
      {stream && <SpecEventBadge stream={stream} event={entry.event} data={entry.data} />}
      <pre className="raw">{raw ? entry.data : pretty(entry.data)}</pre>
    </div>
  );
}

/** A long timeline stays cheap: only the rows on screen exist in the DOM. */
function Timeline({ log }: { log: StreamLog }) {
  const parent = useRef<HTMLDivElement>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [follow, setFollow] = useState(true);
  const count = log.events.length;
  // The project does not use the React Compiler, so its memoization warning does not apply.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({ count, getScrollElement: () => parent.current, estimateSize: () => ROW_HEIGHT, overscan: 10 });
  // Following: the end in view with one scroll write, which the browser clamps, and no read.
  // scrollToIndex(count - 1) read the layout back (to clamp to the end) and then re-read it
  // every frame until the position settled, several forced layouts per render. The virtualizer
  // treats this write like a user's scroll and renders the rows there.
  useLayoutEffect(() => {
    if (follow && count > 0 && parent.current) parent.current.scrollTop = virtualizer.getTotalSize();
  }, [count, follow, virtualizer]);
  const entry = selected !== null ? log.events[selected] : undefined;
  const rows = virtualizer.getVirtualItems();
  return (
    <section aria-labelledby="timeline-heading">
      <div className="toolbar">
        <h3 id="timeline-heading">Timeline</h3>
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
      <div ref={parent} className="timeline" role="list" aria-label={`${count} events`} tabIndex={0}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {rows.map((row) => {
            const e = log.events[row.index]!;
            return (
              // Keyed by slot, not index: rows on screen are consecutive, so index % rows.length
              // is unique, and a row that scrolls off is reused for the one scrolling in
              // instead of being removed and created again on every frame of a followed stream.
              <div key={row.index % rows.length} role="listitem" style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${row.start}px)` }}>
                <button type="button" className={`timeline-row${e.warning ? ' warned' : ''}`} aria-pressed={selected === row.index} onClick={() => setSelected(row.index)}>
                  <span>{e.seq}</span>
                  <span>{e.id}</span>
                  <span>{e.event}</span>
                  <span>{e.at}</span>
                  <span>{e.gap}</span>
                  <span>{e.bytes}</span>
                  <span className="data-preview">
                    {e.warning ? '⚠ ' : ''}
                    {e.data.slice(0, 160)}
                  </span>
                </button>
              </div>
            );
          })}
        </div>
      </div>
      {entry && <EventDetail entry={entry} stream={log.meta} />}
    </section>
  );
}

/**
 * What a stream delivered: counters, transcript and timeline. It re-renders on the log's
 * per-frame notifications; the page and its form around it do not.
 */
export function StreamOutput({ log, state }: { log: StreamLog; state: RunState }) {
  useSyncExternalStore(log.subscribe, log.getVersion);
  const live = isActive(state.status);
  if (state.status === 'refused') return null;
  return (
    <>
      <dl className="counters">
        <div>
          <dt>Events</dt>
          <dd data-testid="event-count" data-count={log.events.length}>
            {formatCount(log.events.length)}
          </dd>
        </div>
        <div>
          <dt>Bytes</dt>
          <dd title={`${formatCount(log.bytes)} bytes`}>{formatBytes(log.bytes)}</dd>
        </div>
        <div>
          <dt>First event</dt>
          <dd>{log.firstEventMs === undefined ? '–' : `${log.firstEventMs} ms`}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{live ? '…' : `${log.durationMs} ms`}</dd>
        </div>
        {log.warnings > 0 && (
          <div>
            <dt>Warnings</dt>
            <dd className="warn">{log.warnings}</dd>
          </div>
        )}
      </dl>
      <div className="toolbar">
        <h3>Transcript</h3>
        <CopyButton text={() => log.transcriptText} label="Copy transcript" />
      </div>
      <div className="transcript" aria-label="Transcript">
        {log.transcript.map((text, i) => (
          <TranscriptChunk key={i} text={text} />
        ))}
      </div>
      <Timeline log={log} />
      {log.meta && (
        <details>
          <summary>Response details</summary>
          <ResponseMetaView meta={{ ...log.meta, rawBody: '' }} />
        </details>
      )}
    </>
  );
}
