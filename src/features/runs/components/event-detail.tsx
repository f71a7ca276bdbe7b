import { useEffect, useRef, useState } from 'react';
import { CopyButton } from '../../../components/copy-button';
import { SpecEventBadge } from '../../../components/spec-badge';
import { formatBytes, formatCount } from '../../../lib/format';
import { download } from '../../../lib/download';
import { EVENT_DATA_KEEP, fullDataOf } from '../../../engine/stream-event';
import { MAX_FULL_DATA_BYTES, type StreamLog, type TimelineEntry } from '../../../engine/stream-log';

function pretty(data: string): string {
  try {
    return JSON.stringify(JSON.parse(data), null, 2);
  } catch {
    return data;
  }
}

/** One event of the timeline in full: its data pretty-printed or raw, and what is wrong with it. */
export function EventDetail({ entry, stream }: { entry: TimelineEntry; stream: StreamLog['meta'] }) {
  const [raw, setRaw] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  // Opened from a row or the chart, the event is shown where it can be read: below a tall list it would be off-screen.
  useEffect(() => {
    box.current?.scrollIntoView({ block: 'nearest' });
  }, [entry.seq]);
  return (
    <div className="event-detail" aria-label={`Event ${entry.seq}`} ref={box}>
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
      {entry.cut ? <CutNote entry={entry} cut={entry.cut} /> : stream && <SpecEventBadge stream={stream} event={entry.event} data={entry.data} />}
      <pre className="raw">{raw || entry.cut ? entry.data : pretty(entry.data)}</pre>
    </div>
  );
}

/** What of a cut event is shown, and where its full data is, if it is kept at all. */
function CutNote({ entry, cut }: { entry: TimelineEntry; cut: { chars: number } }) {
  const full = fullDataOf(entry);
  return (
    <p className="warn" role="note">
      ✂ Cut: shown are the first {formatCount(entry.data.length)} of its {formatCount(cut.chars)} characters ({formatBytes(entry.bytes)}); the console keeps{' '}
      {formatCount(EVENT_DATA_KEEP)} characters of an event, so this data is not checked against the public schema here.{' '}
      {full ? (
        <button type="button" onClick={() => download(`event-${entry.seq}.txt`, full, 'text/plain')}>
          Download the full data
        </button>
      ) : (
        `Its full data is not kept: a run keeps the full data of cut events up to ${formatBytes(MAX_FULL_DATA_BYTES)} in all, and only while it is the run shown.`
      )}
    </p>
  );
}
