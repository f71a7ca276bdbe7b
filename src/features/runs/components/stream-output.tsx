import { useState, useSyncExternalStore } from 'react';
import { ResponseMetaView } from '../../../components/response-meta';
import { formatBytes, formatCount } from '../../../lib/format';
import type { RunState } from '../../../engine/run-machine';
import type { StreamLog } from '../../../engine/stream-log';
import { StreamProgress } from './stream-progress';
import { Timeline } from './timeline';
import { TranscriptView } from './transcript-view';
import { useSlots } from '../../../components/slots';

/**
 * What a stream delivered: counters, progress against the count the run asked for (when it
 * named one), transcript and timeline. It re-renders on the log's per-frame notifications;
 * the page and its form around it do not. The duration is the run's own (metricsOf), so the
 * counters, the response head and history say one number; undefined while it goes on.
 */
export function StreamOutput({ log, state, durationMs, expectedEvents }: { log: StreamLog; state: RunState; durationMs: number | undefined; expectedEvents?: number }) {
  const { StreamChart } = useSlots();
  const version = useSyncExternalStore(log.subscribe, log.getVersion);
  // The event opened below; `reveal` when the chart opened it (the list then scrolls to it, every time).
  const [opened, setOpened] = useState<{ index: number; reveal: boolean } | null>(null);
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
          <dd>{log.firstEventMs === undefined ? '–' : `${formatCount(log.firstEventMs)} ms`}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{durationMs === undefined ? '…' : `${formatCount(durationMs)} ms`}</dd>
        </div>
        {log.warnings > 0 && (
          <div>
            <dt>Warnings</dt>
            <dd className="warn">{log.warnings}</dd>
          </div>
        )}
      </dl>
      {expectedEvents !== undefined && expectedEvents > 0 && <StreamProgress received={log.messageEvents} expected={expectedEvents} />}
      <TranscriptView log={log} version={version} />
      <StreamChart events={log.events} durationMs={durationMs} label="Over time" onPick={(index) => setOpened({ index, reveal: true })} />
      <Timeline
        log={log}
        selected={opened?.index ?? null}
        onSelect={(index) => setOpened({ index, reveal: false })}
        reveal={opened?.reveal ? opened : undefined}
      />
      {log.meta && (
        <details>
          <summary>Response details</summary>
          <ResponseMetaView meta={{ ...log.meta, rawBody: '' }} />
        </details>
      )}
    </>
  );
}
