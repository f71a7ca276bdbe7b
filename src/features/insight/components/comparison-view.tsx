import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { Link } from 'react-router';
import { useConnection, type ActiveConnection } from '../../../lib/connection';
import { download, exportFileName } from '../../../lib/download';
import { bodyDiff, comparisonFileOf, headerDiff, metricRows, sentDifferences, type ComparedRun } from '../model/comparison';
import { wordDiff } from '../../../lib/word-diff';
import { runDetailsQueryOptions } from '../../../db/history';
import { statusText } from '../../../engine/run-machine';
import type { TimelineEntry } from '../../../engine/stream-event';
import type { StreamLog } from '../../../engine/stream-log';
import { useRunStore, useWatch } from '../../../hooks/run-store';
import { liveEntry, useEntries } from '../../../hooks/use-history';
import { Chart, DiffText, ended, SideHead, SpecVerdict, type Side } from './comparison-side';
import { FiguresTable, RequestBodies, ResponseHeaders } from './comparison-tables';
import { ComparisonVerdict } from './comparison-verdict';

/** The time, ticking a few times a second while `live` (a live run's bar grows with it). */
function useNow(live: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!live) return;
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, [live]);
  return now;
}

const noLog = { subscribe: () => () => undefined, getVersion: () => 0 };

/** Re-renders on a live log's per-frame notifications (nothing when there is no log). */
function useLogVersion(log: StreamLog | undefined): number {
  const source = log ?? noLog;
  return useSyncExternalStore(source.subscribe, source.getVersion);
}

function comparedRun({ entry }: Side): ComparedRun {
  return {
    id: entry.id,
    request: entry.request,
    profileLabel: entry.target.profileLabel,
    startedAt: entry.startedAt,
    figures: {
      status: statusText(entry.status, entry.unknownState),
      ...(entry.meta?.status !== undefined && { httpStatus: entry.meta.status }),
      ...(ended(entry) && { durationMs: entry.durationMs }),
      ...(entry.firstEventMs !== undefined && { firstEventMs: entry.firstEventMs }),
      ...(entry.request.mode === 'stream' && { eventCount: entry.eventCount }),
      bytes: entry.bytes,
    },
    transcript: entry.transcript,
    ...(entry.meta?.headers && { headers: entry.meta.headers }),
  };
}

/** A finished run's events and answer body, from history (a held run's live log needs no reading). */
function useDetails(side: Side) {
  const live = side.record?.log;
  return useQuery({ ...runDetailsQueryOptions(side.entry.id), enabled: !live && ended(side.entry) });
}

/**
 * Two runs side by side, by their history ids: what was sent differently, whether the answers
 * match (word by word, once both ended), their figures, each answer's spec-lens verdict, the
 * request bodies' and response headers' differences, and both runs on one time axis. Runs the
 * console holds are shown as they go, re-rendered on their logs' per-frame notifications.
 */
export function ComparisonView({ ids }: { ids: readonly [string, string] }) {
  const store = useRunStore();
  const connection = useConnection();
  const [idA, idB] = ids;
  useLogVersion(store.forEntry(idA)?.log);
  useLogVersion(store.forEntry(idB)?.log);
  const { entries, isSuccess, isError, error } = useEntries([idA, idB]);
  // A run the console holds is shown as it is now (its live log, its last read); history has the rest.
  const entryA = liveEntry(entries[0], store.forEntry(idA));
  const entryB = liveEntry(entries[1], store.forEntry(idB));
  // A durable run is read again and again while the comparison shows it, with the connection
  // it was sent (or opened) with; history's runs going on are followed by the console itself.
  useWatch(store.forEntry(idA)?.id);
  useWatch(store.forEntry(idB)?.id);
  if (isError) return <p className="error">History is unavailable in this browser: {String(error)}</p>;
  if (!entryA || !entryB) {
    if (!isSuccess) return <p role="status">Reading history…</p>;
    const missing = [!entryA && `A (${idA})`, !entryB && `B (${idB})`].filter(Boolean).join(' and ');
    return (
      <div className="error-panel" role="alert">
        <h2>This comparison’s runs are not in this browser’s history</h2>
        <p>
          {missing} {!entryA && !entryB ? 'are' : 'is'} not kept here: a comparison’s address works while both its runs are in history (the newest 50 items), in the
          browser that ran them. Choose two runs in <Link to="/runs">History</Link> to compare them.
        </p>
      </div>
    );
  }
  const live = store.inFlight().filter((r) => r.id === idA || r.id === idB);
  return <Comparison connection={connection} a={{ entry: entryA, record: store.forEntry(idA) }} b={{ entry: entryB, record: store.forEntry(idB) }} onStop={live.length ? () => live.forEach((r) => store.stop(r.id)) : undefined} />;
}

function Comparison({ a, b, onStop, connection }: { a: Side; b: Side; onStop?(): void; connection: ActiveConnection }) {
  const da = useDetails(a);
  const db = useDetails(b);
  const eventsOf = (s: Side, d: typeof da) => s.record?.log?.events ?? d.data?.events ?? (d.data && s.entry.eventCount === 0 ? [] : undefined);
  const ea = eventsOf(a, da);
  const eb = eventsOf(b, db);
  const ra = comparedRun(a);
  const rb = comparedRun(b);
  const bothEnded = ended(a.entry) && ended(b.entry);
  // Diffed once per pair of answers, not on every render (a live log re-renders the page each frame).
  const diff = useMemo(() => (bothEnded ? wordDiff(ra.transcript, rb.transcript) : undefined), [bothEnded, ra.transcript, rb.transcript]);
  const sent = sentDifferences({ request: ra.request, profileLabel: ra.profileLabel }, { request: rb.request, profileLabel: rb.profileLabel });
  const body = bodyDiff(ra.request.body, rb.request.body);
  const headers = headerDiff(ra.headers, rb.headers);
  // One axis for both, as long as the longer run so far (a live one: until now).
  const now = useNow(!bothEnded);
  const reach = (s: Side, events: readonly TimelineEntry[] | undefined) =>
    Math.max(s.entry.durationMs, events?.at(-1)?.at ?? 0, ended(s.entry) ? 0 : now - s.entry.startedAt);
  const domainMs = Math.max(reach(a, ea), reach(b, eb), 100);
  return (
    <div className="comparison">
      <p>
        <strong>A</strong> against <strong>B</strong>: {sent.length ? sent.join('; ') : 'the same request, sent twice'}.
      </p>
      <ComparisonVerdict a={a} b={b} ra={ra} rb={rb} diff={diff} body={body} headers={headers} onStop={onStop} />
      <div className="toolbar">
        <button type="button" onClick={() => download(exportFileName('comparison', ra.request.agentId, ra.startedAt, `${ra.id}-${rb.id}`), JSON.stringify(comparisonFileOf(ra, rb), null, 2))} disabled={!bothEnded}>
          Export comparison (JSON)
        </button>
      </div>

      <h2>Answers</h2>
      <div className="compare-grid">
        {([
          ['A', a, ea, da.data?.result, 'a'],
          ['B', b, eb, db.data?.result, 'b'],
        ] as const).map(([name, side, events, result, key]) => (
          <section key={key} aria-label={`Run ${name}`} className="compare-side">
            <SideHead side={side} name={name} connection={connection} />
            <SpecVerdict side={side} events={events} result={result} />
            <h4>Answer</h4>
            {diff ? <DiffText diff={diff} side={key} label={`Answer of ${name}`} /> : <pre className="diff-text">{(key === 'a' ? ra : rb).transcript || '(nothing yet)'}</pre>}
          </section>
        ))}
      </div>

      <h2>Figures</h2>
      <FiguresTable rows={metricRows(ra.figures, rb.figures)} />

      <h2>Over time, on one axis</h2>
      <div className="compare-grid">
        <Chart side={a} events={ea} domainMs={domainMs} name="A" />
        <Chart side={b} events={eb} domainMs={domainMs} name="B" />
      </div>

      <h2>Request bodies</h2>
      <RequestBodies body={body} ra={ra} rb={rb} />

      <h2>Response headers that differ</h2>
      <ResponseHeaders headers={headers} known={Boolean(ra.headers && rb.headers)} />
    </div>
  );
}
