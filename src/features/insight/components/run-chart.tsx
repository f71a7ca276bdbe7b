import { useId, useState, type KeyboardEvent } from 'react';
import { formatBytes, formatCount } from '../../../lib/format';
import { statusText, statusTone, type Transition } from '../../../engine/run-machine';
import { describeSeries, eventIndexAt, SeriesBuilder, type SeriesEvent, type SeriesView } from '../model/run-series';
import type { StateChartProps, StreamChartProps } from '../../../components/slots';

const W = 600;
const H = 120;

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

/** One series per event list (a log's list only grows): a cache of it, let go with the list. */
const builders = new WeakMap<readonly SeriesEvent[], SeriesBuilder>();

/**
 * A streamed run's events over time, as a series that only ever adds what arrived since it
 * was last read. Read on each render the log's notifications cause, at most once per frame.
 */
export function seriesFor(events: readonly SeriesEvent[]): SeriesView {
  let builder = builders.get(events);
  if (!builder) builders.set(events, (builder = new SeriesBuilder()));
  builder.addFrom(events);
  return builder.view();
}

function bars(v: SeriesView, domainMs: number): string {
  const max = Math.max(1, ...v.counts);
  const scaleX = W / domainMs;
  let d = '';
  for (let i = 0; i < v.counts.length; i++) {
    const c = v.counts[i]!;
    if (c === 0) continue;
    const x = i * v.bucketMs * scaleX;
    const w = Math.max(0.6, v.bucketMs * scaleX);
    const h = (c / max) * (H - 4);
    d += `M${x.toFixed(2)},${H}h${w.toFixed(2)}v${(-h).toFixed(2)}h${(-w).toFixed(2)}z`;
  }
  return d;
}

function bytesLine(v: SeriesView, domainMs: number): string {
  const max = Math.max(1, v.bytes);
  const scaleX = W / domainMs;
  let d = `M0,${H}`;
  // (The last bucket may reach past the axis' end: the line stops at the end.)
  for (let i = 0; i < v.cumulativeBytes.length; i++) d += `L${Math.min(W, (i + 1) * v.bucketMs * scaleX).toFixed(2)},${(H - (v.cumulativeBytes[i]! / max) * (H - 4)).toFixed(2)}`;
  return d;
}

/**
 * Events per second (bars) and bytes received so far (line) over the run's time, the first
 * event marked, silences over the threshold shaded. Hovering names the event at that time;
 * clicking opens it in the timeline. `domainMs` puts two runs on one time axis.
 */
export function StreamChart({ events, durationMs, domainMs, label, onPick }: StreamChartProps) {
  const v = seriesFor(events);
  const id = useId();
  const [hover, setHover] = useState<number>();
  const end = Math.max(domainMs ?? 0, durationMs ?? 0, v.lastEventMs ?? 0, 100);
  const description = describeSeries(v, durationMs);
  const indexAt = (e: { currentTarget: SVGSVGElement; clientX: number }) => {
    const box = e.currentTarget.getBoundingClientRect();
    if (box.width === 0) return undefined;
    return eventIndexAt(events, ((e.clientX - box.left) / box.width) * end);
  };
  const hovered = hover !== undefined ? events[hover] : undefined;
  const readout = hovered
    ? `At ${seconds(hovered.at)}: event ${hovered.seq}, ${hovered.event}, ${formatCount(hovered.bytes)} bytes${onPick ? ' (a click or Enter opens it in the timeline)' : ''}`
    : events.length === 0
      ? // A refused or empty run: its answer's size is told beside it, and it is no event's.
        'No events'
      : `First event after ${v.firstEventMs === undefined ? '–' : `${formatCount(v.firstEventMs)} ms`} · ${formatBytes(v.bytes)} of events`;
  // The keyboard moves through the run in time as the pointer does: an arrow a hundredth of
  // the axis (at least one event), Page Up/Down a tenth, Home and End the first and last event.
  // Down and Page Down go to later events, as they go to later rows in the timeline below.
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (events.length === 0 || e.altKey || e.ctrlKey || e.metaKey) return;
    const from = hover ?? 0;
    const step = (n: number) => {
      const to = eventIndexAt(events, events[from]!.at + (n * end) / 100) ?? from;
      return Math.max(0, Math.min(events.length - 1, to === from ? from + Math.sign(n) : to));
    };
    const next: Record<string, () => number> = {
      ArrowRight: () => step(1),
      ArrowDown: () => step(1),
      ArrowLeft: () => step(-1),
      ArrowUp: () => step(-1),
      PageDown: () => step(10),
      PageUp: () => step(-10),
      Home: () => 0,
      End: () => events.length - 1,
    };
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      onPick?.(from);
      return;
    }
    const move = next[e.key];
    if (!move) return;
    e.preventDefault();
    setHover(hover === undefined && e.key.startsWith('Arrow') ? 0 : move());
  };
  const keyboard = onPick && events.length > 0;
  return (
    <figure className="run-chart" aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>
        <strong>{label}</strong> <span className="chart-key bars-key">events per second</span> <span className="chart-key line-key">bytes so far</span>{' '}
        <span className="chart-key first-key">first event</span>
        {v.gaps.length > 0 && <span className="chart-key gap-key">silences over {formatCount(v.gapThresholdMs)} ms</span>}
      </figcaption>
      <div
        className="chart-plot"
        {...(keyboard && {
          role: 'slider',
          tabIndex: 0,
          'aria-label': `${label}: the run's events in time. Arrow keys move, Enter opens the event in the timeline`,
          'aria-valuemin': 1,
          'aria-valuemax': events.length,
          'aria-valuenow': (hover ?? 0) + 1,
          'aria-valuetext': readout,
          onKeyDown,
          onBlur: () => setHover(undefined),
        })}
      >
        <svg
          viewBox={`0 0 ${W} ${H}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={description}
          data-testid="stream-chart"
          onPointerMove={(e) => setHover(indexAt(e))}
          onPointerLeave={() => setHover(undefined)}
          onClick={(e) => {
            // The event the readout names: a click's clientX is whole pixels, a pointer move's is not,
            // and in a dense stream half a pixel is hundreds of events.
            const i = hover ?? indexAt(e);
            if (i !== undefined) onPick?.(i);
          }}
          className={onPick ? 'pickable' : undefined}
        >
          {v.gaps.map((g) => (
            <rect key={g.seq} className="chart-gap" x={(g.from / end) * W} width={Math.max(1, ((g.to - g.from) / end) * W)} y={0} height={H} data-testid="chart-gap" />
          ))}
          <path className="chart-bars" d={bars(v, end)} />
          <path className="chart-line" d={bytesLine(v, end)} vectorEffect="non-scaling-stroke" />
          {v.firstEventMs !== undefined && (
            <line className="chart-first" x1={(v.firstEventMs / end) * W} x2={(v.firstEventMs / end) * W} y1={0} y2={H} vectorEffect="non-scaling-stroke" data-testid="first-event-marker" />
          )}
          {hovered && <line className="chart-hover" x1={(hovered.at / end) * W} x2={(hovered.at / end) * W} y1={0} y2={H} vectorEffect="non-scaling-stroke" />}
        </svg>
      </div>
      <div className="chart-axis" aria-hidden="true">
        <span>0 s</span>
        <span>{seconds(end)}</span>
      </div>
      <p className="chart-readout muted" aria-live="off">
        {readout}
      </p>
      <p className="visually-hidden">{description}</p>
    </figure>
  );
}

/** The spans between a run's states: how long it was in each. */
export function stateSpans(transitions: readonly Transition[], endAt: number): { status: string; from: number; to: number }[] {
  const spans: { status: string; from: number; to: number }[] = [];
  for (let i = 0; i < transitions.length; i++) {
    const t = transitions[i]!;
    // The run's end is its duration (for a durable run, the service's own clock); a state this
    // browser only saw after that is drawn at the end, not past it.
    const from = Math.min(t.at, endAt);
    const to = Math.min(transitions[i + 1]?.at ?? endAt, endAt);
    const last = spans.at(-1);
    if (last && last.status === t.status) last.to = to;
    else spans.push({ status: t.status, from, to });
  }
  return spans;
}

/**
 * A wait or durable run on a time axis: the states it went through (for a wait: sending,
 * waiting, the answer), the time spent waiting for an approval said apart.
 */
export function StateChart({ transitions, startedAt, endAt, domainMs, label }: StateChartProps) {
  const spans = stateSpans(transitions, endAt);
  const total = Math.max(1, endAt - startedAt);
  const end = Math.max(total, domainMs ?? 0);
  const approval = spans.filter((s) => s.status === 'REQUIRES_INPUT').reduce((a, s) => a + (s.to - s.from), 0);
  // The last state is where the run ended (or is now): its length says nothing.
  const words = spans.map((s, i) => (i === spans.length - 1 ? statusText(s.status) : `${statusText(s.status)} ${formatCount(Math.max(0, s.to - s.from))} ms`)).join(', then ');
  const description = `${words}${approval > 0 ? `; ${formatCount(approval)} ms waiting for approval` : ''}.`;
  return (
    <figure className="run-chart state-chart" aria-label={`${label}: states over time`}>
      <figcaption>
        <strong>{label}</strong>
        {approval > 0 && <span className="muted"> · {formatCount(approval)} ms waiting for your approval</span>}
      </figcaption>
      <div className="state-bar" role="img" aria-label={description} data-testid="state-chart">
        {spans.map((s, i) => (
          <span
            key={i}
            className={`state-span status-${statusTone(s.status)}${s.status === 'REQUIRES_INPUT' ? ' approval' : ''}`}
            style={{ left: `${((s.from - startedAt) / end) * 100}%`, width: `${Math.max(0.5, ((s.to - s.from) / end) * 100)}%` }}
            title={`${statusText(s.status)}: ${formatCount(Math.max(0, s.to - s.from))} ms`}
          />
        ))}
      </div>
      <div className="chart-axis" aria-hidden="true">
        <span>0 s</span>
        <span>{seconds(end)}</span>
      </div>
      <p className="chart-readout muted" aria-hidden="true">
        {description}
      </p>
    </figure>
  );
}
