/** One run's parts of a comparison: its heading, its answer's spec-lens verdict, its answer and its chart. */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { SpecBadge } from '../../../components/spec-badge';
import type { ActiveConnection } from '../../../lib/connection';
import { agentQueryOptions } from '../../../lib/agents/get-agent';
import { formatCount } from '../../../lib/format';
import { summarize } from '../../../lib/spec-lens/summary';
import type { TextDiff } from '../../../lib/word-diff';
import type { HistoryEntry } from '../../../engine/history-entry';
import { isTerminal, statusText, statusTone, type RunStatus } from '../../../engine/run-machine';
import type { RunRecord } from '../../../engine/run-record';
import type { TimelineEntry } from '../../../engine/stream-event';
import { StateChart, StreamChart } from './run-chart';

export interface Side {
  entry: HistoryEntry;
  /** The run as the console holds it, if it does (its live log, its answer). */
  record?: RunRecord;
}

export const ended = (e: HistoryEntry) => isTerminal(e.status as RunStatus);

export function DiffText({ diff, side, label }: { diff: TextDiff | undefined; side: 'a' | 'b'; label: string }) {
  return (
    <div className="diff-text" role="document" aria-label={label} tabIndex={0}>
      {diff
        ? diff.parts.map((p, i) =>
            p.removed ? (
              side === 'a' ? (
                <del key={i}>{p.value}</del>
              ) : null
            ) : p.added ? (
              side === 'b' ? (
                <ins key={i}>{p.value}</ins>
              ) : null
            ) : (
              <span key={i}>{p.value}</span>
            ),
          )
        : null}
    </div>
  );
}

/** Each event's data checked against the public schema of its event; at most this many are checked. */
const MAX_CHECKED = 2_000;

function StreamVerdict({ side, events }: { side: Side; events: readonly TimelineEntry[] | undefined }) {
  const meta = side.entry.meta;
  const [verdict, setVerdict] = useState<{ key: string; text: string; tone: string }>();
  const key = `${side.entry.id}:${events?.length ?? 0}`;
  const ready = meta !== undefined && events !== undefined && ended(side.entry);
  useEffect(() => {
    if (!ready) return;
    let live = true;
    void import('../../../lib/spec-lens/lens')
      .then((m) => m.loadLens())
      .then((lens) => {
        const checked = events.slice(0, MAX_CHECKED);
        let differ = 0;
        let none = 0;
        for (const e of checked) {
          const r = lens.checkEvent({ method: meta.method, url: meta.url, status: meta.status }, e.event, e.data);
          if (r.kind === 'no-schema') none++;
          else if (summarize(r, `event ${e.event}`).tone === 'differs') differ++;
        }
        const n = checked.length - none;
        const more = events.length > MAX_CHECKED ? ` (the first ${formatCount(MAX_CHECKED)} of ${formatCount(events.length)})` : '';
        const text =
          n === 0
            ? 'No event has a public schema to check against.'
            : differ === 0
              ? `All ${formatCount(n)} checked events match the public schema${more}.`
              : `${formatCount(differ)} of ${formatCount(n)} checked events differ from the public schema${more}.`;
        if (live) setVerdict({ key, text, tone: n === 0 ? 'none' : differ ? 'differs' : 'match' });
      })
      .catch((err: unknown) => live && setVerdict({ key, text: `Could not load the public schema (${String(err)}).`, tone: 'none' }));
    return () => {
      live = false;
    };
  }, [key, ready, events, meta]);
  if (!ready) return <p className="spec-badge spec-checking">Checked once the run has ended.</p>;
  const shown = verdict?.key === key ? verdict : undefined;
  return <p className={`spec-badge spec-${shown?.tone ?? 'checking'}`}>{shown?.text ?? 'Checking against the public schema…'}</p>;
}

/** The spec lens on a run's answer: its events, or its waited body, against the public schema. */
export function SpecVerdict({ side, events, result }: { side: Side; events: readonly TimelineEntry[] | undefined; result: unknown }) {
  const { entry, record } = side;
  if (entry.request.mode === 'stream') return <StreamVerdict side={side} events={events} />;
  if (entry.request.mode === 'wait' && entry.meta) {
    const rawBody = record?.answer?.rawBody ?? (result !== undefined ? JSON.stringify(result) : undefined);
    if (rawBody !== undefined) return <SpecBadge answer={{ ...entry.meta, rawBody }} />;
  }
  return <p className="spec-badge spec-none">Not checked here{entry.runId ? ': the run’s own page checks each read of it.' : '.'}</p>;
}

/**
 * The agent's name as the run recorded it, else as the instance names it now (a run sent to an
 * agent by its id, as "Run on both" does for B, records no name), else its id: both sides are
 * titled the same way.
 */
function useAgentName(request: HistoryEntry['request'], connection: ActiveConnection): string {
  const named = request.agentName !== undefined;
  const agent = useQuery({ ...agentQueryOptions(connection, request.flavour, request.agentId), enabled: !named && !connection.problem });
  return request.agentName ?? agent.data?.name ?? request.agentId;
}

export function SideHead({ side, name, connection }: { side: Side; name: string; connection: ActiveConnection }) {
  const { entry } = side;
  const r = entry.request;
  const agentName = useAgentName(r, connection);
  // A durable run can be read only with the token that started it: its page reads with the current profile's.
  const elsewhere = entry.target.profileId !== undefined && entry.target.profileId !== connection.profileId;
  return (
    <header>
      <h3>
        {name}: {agentName}
      </h3>
      <p className="muted">
        {r.flavour === 'legacy' ? 'legacy API' : 'current API'}, {r.mode} · profile {entry.target.profileLabel} ·{' '}
        <span className={`status status-${statusTone(entry.status)}`}>{statusText(entry.status, entry.unknownState)}</span>
        {entry.runId && (
          <>
            {' '}
            ·{' '}
            {elsewhere ? (
              <>
                <code>{entry.runId}</code> <span className="muted">(its page reads it with profile {entry.target.profileLabel}: switch to that profile to open it)</span>
              </>
            ) : (
              <Link to={`/runs/${encodeURIComponent(r.agentId)}/${encodeURIComponent(entry.runId)}`}>{entry.runId}</Link>
            )}
          </>
        )}
      </p>
    </header>
  );
}

export function Chart({ side, events, domainMs, name }: { side: Side; events: readonly TimelineEntry[] | undefined; domainMs: number; name: string }) {
  const { entry } = side;
  if (entry.request.mode === 'stream') {
    if (!events) return <p className="muted">{name}: the events are being read…</p>;
    return <StreamChart events={events} durationMs={ended(entry) ? entry.durationMs : undefined} domainMs={domainMs} label={name} />;
  }
  const t = entry.transitions ?? [];
  if (t.length < 1) return null;
  // A live run's last state lasts until now.
  const endAt = ended(entry) ? entry.startedAt + entry.durationMs : Math.max(t.at(-1)!.at, entry.startedAt + domainMs);
  return <StateChart transitions={t} startedAt={entry.startedAt} endAt={endAt} domainMs={domainMs} label={name} />;
}
