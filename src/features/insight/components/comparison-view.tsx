import { useQuery } from '@tanstack/react-query';
import { Fragment, useEffect, useMemo, useState, useSyncExternalStore, type ReactNode } from 'react';
import { Link } from 'react-router';
import { SpecBadge } from '../../../components/spec-badge';
import { useConnection, type ActiveConnection } from '../../../lib/connection';
import { agentQueryOptions } from '../../../lib/agents/get-agent';
import { download, exportFileName } from '../../../lib/download';
import { formatCount } from '../../../lib/format';
import { summarize } from '../../../lib/spec-lens/summary';
import {
  answersMatch,
  bodyDiff,
  comparisonFileOf,
  headerDiff,
  metricRows,
  sentDifferences,
  splitByApi,
  type ComparedRun,
  type ValueDifference,
} from '../model/comparison';
import { wordDiff, type TextDiff } from '../../../lib/word-diff';
import { runDetailsQueryOptions } from '../../../db/history';
import type { HistoryEntry } from '../../../engine/history-entry';
import { isTerminal, statusText, statusTone, type RunStatus } from '../../../engine/run-machine';
import type { RunRecord } from '../../../engine/run-record';
import { faultOfRequest } from '../../../engine/run-request';
import type { TimelineEntry } from '../../../engine/stream-event';
import type { StreamLog } from '../../../engine/stream-log';
import { useRunStore, useWatch } from '../../../hooks/run-store';
import { liveEntry, useEntries } from '../../../hooks/use-history';
import { StateChart, StreamChart } from './run-chart';

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

export interface Side {
  entry: HistoryEntry;
  /** The run as the console holds it, if it does (its live log, its answer). */
  record?: RunRecord;
}

const ended = (e: HistoryEntry) => isTerminal(e.status as RunStatus);

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

/** Where two bodies sent to the two APIs differ: where the APIs make them, and where the requests themselves do. */
function bodyWords(body: ValueDifference[]): string {
  if (!body.length) return 'The bodies are the same.';
  const { api, requests } = splitByApi(body);
  const list = (ds: ValueDifference[]) => ds.map((d) => d.pointer).join(', ');
  return [
    api.length ? `The bodies differ where the APIs do (${list(api)}).` : '',
    requests.length ? `They also differ where the requests do, not the APIs (${list(requests)}).` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** Whether the run ended with its answer: the only ends whose answers are compared. */
function answeredRun(entry: HistoryEntry): boolean {
  return entry.status === 'done' || entry.status === 'SUCCEEDED';
}

/** How a run ended, its HTTP status, its problem and the fault it was sent with, in a line. */
function endedAs(entry: HistoryEntry): string {
  const http = entry.meta?.status !== undefined ? ` (HTTP ${entry.meta.status})` : '';
  const fault = faultOfRequest(entry.request);
  return [
    `${statusText(entry.status, entry.unknownState)}${http}`,
    entry.problem && !answeredRun(entry) ? `: ${entry.problem}` : '',
    fault ? ` Sent with the fault “${fault}” (Inject a fault).` : '',
  ].join('');
}

/** A finished run's events and answer body, from history (a held run's live log needs no reading). */
function useDetails(side: Side) {
  const live = side.record?.log;
  return useQuery({ ...runDetailsQueryOptions(side.entry.id), enabled: !live && ended(side.entry) });
}

function DiffText({ diff, side, label }: { diff: TextDiff | undefined; side: 'a' | 'b'; label: string }) {
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

function Verdict({ side, events, result }: { side: Side; events: readonly TimelineEntry[] | undefined; result: unknown }) {
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

function SideHead({ side, name, connection }: { side: Side; name: string; connection: ActiveConnection }) {
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

function Chart({ side, events, domainMs, name }: { side: Side; events: readonly TimelineEntry[] | undefined; domainMs: number; name: string }) {
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

const show = (v: unknown) => (v === undefined ? '–' : JSON.stringify(v));

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
  // Two runs that gave no answer (refused, failed, stopped) have equal empty answers: that is
  // not a match, and the verdict says what each ended as, and why where it is known.
  const sides = [
    ['A', a],
    ['B', b],
  ] as const;
  const unanswered = sides.filter(([, side]) => !answeredRun(side.entry)).map(([name]) => name);
  const match = bothEnded && unanswered.length === 0 && answersMatch(ra.transcript, rb.transcript);
  const sent = sentDifferences({ request: ra.request, profileLabel: ra.profileLabel }, { request: rb.request, profileLabel: rb.profileLabel });
  const rows = metricRows(ra.figures, rb.figures);
  const body = bodyDiff(ra.request.body, rb.request.body);
  const headers = headerDiff(ra.headers, rb.headers);
  const migration = ra.request.flavour !== rb.request.flavour;
  // One axis for both, as long as the longer run so far (a live one: until now).
  const now = useNow(!bothEnded);
  const reach = (s: Side, events: readonly TimelineEntry[] | undefined) =>
    Math.max(s.entry.durationMs, events?.at(-1)?.at ?? 0, ended(s.entry) ? 0 : now - s.entry.startedAt);
  const domainMs = Math.max(reach(a, ea), reach(b, eb), 100);
  const changed = diff ? diff.parts.filter((p) => p.added || p.removed).length : 0;

  return (
    <div className="comparison">
      <p>
        <strong>A</strong> against <strong>B</strong>: {sent.length ? sent.join('; ') : 'the same request, sent twice'}.
      </p>
      <div className={`verdict ${bothEnded ? (match ? 'same' : 'differs') : ''}`} role="status" aria-label="Verdict">
        {!bothEnded ? (
          <p>
            Both runs are compared once they have ended; what arrived so far shows below.{' '}
            {onStop && (
              <button type="button" onClick={onStop}>
                Stop both
              </button>
            )}
          </p>
        ) : unanswered.length ? (
          <>
            <p>
              <strong>{unanswered.length === 2 ? 'Neither run ended with an answer' : `Run ${unanswered[0]} did not end with an answer`}</strong>; what each sent before it ended is below:
            </p>
            <ul>
              {sides.map(([name, side]) => (
                <li key={name}>
                  {name}: {endedAs(side.entry)}
                </li>
              ))}
            </ul>
          </>
        ) : match ? (
          <p>
            <strong>The answers match</strong>
            {migration ? ': the replacement answers the same as the legacy endpoint.' : '.'}
          </p>
        ) : (
          <p>
            {/* Too different to compare word by word, the parts counted are the answers' wholes: a count beside that read as a contradiction. */}
            <strong>The answers differ</strong>
            {diff?.tooDifferent
              ? ' in too many places to compare word by word: where they differ, each is marked whole below (struck out: only in A; underlined: only in B).'
              : `: ${changed} ${changed === 1 ? 'part differs' : 'parts differ'}, marked below (struck out: only in A; underlined: only in B).`}
            {diff?.truncatedAt && ` Where they differ, the first ${formatCount(diff.truncatedAt)} characters were compared word by word and the rest is marked whole.`}
          </p>
        )}
        {bothEnded && migration && (
          <p>
            {bodyWords(body)}{' '}
            {headers.length ? `Headers that differ: ${headers.map((h) => h.name).join(', ')}.` : 'No header differs.'}
          </p>
        )}
      </div>
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
            <Verdict side={side} events={events} result={result} />
            <h4>Answer</h4>
            {diff ? <DiffText diff={diff} side={key} label={`Answer of ${name}`} /> : <pre className="diff-text">{(key === 'a' ? ra : rb).transcript || '(nothing yet)'}</pre>}
          </section>
        ))}
      </div>

      <h2>Figures</h2>
      <table className="compare-table compare-figures">
        <thead>
          <tr>
            <th scope="col">Figure</th>
            <th scope="col">A</th>
            <th scope="col">B</th>
            <th scope="col">B − A</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.label} className={r.differs ? 'differs' : undefined}>
              <th scope="row">{r.label}</th>
              <td>{r.a}</td>
              <td>{r.b}</td>
              <td>{r.delta ?? (r.differs ? 'differs' : 'same')}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>Over time, on one axis</h2>
      <div className="compare-grid">
        <Chart side={a} events={ea} domainMs={domainMs} name="A" />
        <Chart side={b} events={eb} domainMs={domainMs} name="B" />
      </div>

      <h2>Request bodies</h2>
      {body.length === 0 ? (
        <p>The two bodies are the same.</p>
      ) : (
        <table className="compare-table" aria-label="Request body differences">
          <thead>
            <tr>
              <th scope="col">Where</th>
              <th scope="col">A</th>
              <th scope="col">B</th>
            </tr>
          </thead>
          <tbody>
            {body.map((d) => (
              <tr key={d.pointer}>
                <th scope="row">
                  <code>{d.pointer ? breakableAtSlashes(d.pointer) : '(the whole body)'}</code>
                </th>
                <td>{d.kind === 'only-b' ? <span className="muted">(absent)</span> : <code>{show(d.a)}</code>}</td>
                <td>{d.kind === 'only-a' ? <span className="muted">(absent)</span> : <code>{show(d.b)}</code>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="compare-grid">
        <details>
          <summary>
            A: <code>POST {ra.request.path}</code>
          </summary>
          <pre className="raw">{JSON.stringify(ra.request.body, null, 2)}</pre>
        </details>
        <details>
          <summary>
            B: <code>POST {rb.request.path}</code>
          </summary>
          <pre className="raw">{JSON.stringify(rb.request.body, null, 2)}</pre>
        </details>
      </div>

      <h2>Response headers that differ</h2>
      {headers.length === 0 ? (
        <p>{ra.headers && rb.headers ? 'None (Date and request ids, which differ on every answer, are left out).' : 'Not known yet.'}</p>
      ) : (
        <table className="compare-table" aria-label="Response header differences">
          <thead>
            <tr>
              <th scope="col">Header</th>
              <th scope="col">A</th>
              <th scope="col">B</th>
            </tr>
          </thead>
          <tbody>
            {headers.map((h) => (
              <tr key={h.name}>
                <th scope="row">
                  <code>{h.name}</code>
                </th>
                <td>{h.a ?? <span className="muted">(absent)</span>}</td>
                <td>{h.b ?? <span className="muted">(absent)</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/**
 * A JSON pointer that a narrow column may break after its slashes: broken anywhere, a phone
 * showed "/input/audienc e".
 */
function breakableAtSlashes(pointer: string): ReactNode {
  return pointer.split('/').map((part, i) => (
    <Fragment key={i}>
      {i > 0 && (
        <>
          /<wbr />
        </>
      )}
      {part}
    </Fragment>
  ));
}
