import { useState } from 'react';
import { Link } from 'react-router';
import { SpecBadge } from '../../../components/spec-badge';
import { formatCount } from '../../../lib/format';
import { runDetails, type HistoryDetails } from '../../../db/history';
import type { Turn } from '../../../engine/thread';

/** What history kept of a turn the console no longer holds: request, answer, and on demand its events and raw answer. */
export function StoredTurnDetails({ turn }: { turn: Turn }) {
  const [details, setDetails] = useState<HistoryDetails | null | 'loading'>(null);
  const load = () => {
    setDetails('loading');
    void runDetails(turn.id).then((d) => setDetails(d ?? {}), () => setDetails({}));
  };
  // A waited turn's answer, as it was received, can be checked against the public schema again.
  const waited = details && details !== 'loading' && turn.request.mode === 'wait' && details.result !== undefined && turn.meta ? { ...turn.meta, rawBody: JSON.stringify(details.result) } : undefined;
  return (
    <div className="turn-details">
      <p>
        <code>POST {turn.request.path}</code>
      </p>
      <pre className="raw" aria-label="Request body">
        {JSON.stringify(turn.request.body, null, 2)}
      </pre>
      <p>Answer messages as received:</p>
      <pre className="raw" aria-label="Answer messages">
        {JSON.stringify(turn.answerMessages ?? [], null, 2)}
      </pre>
      {turn.runId &&
        (turn.imported ? (
          // A record of a run someone else's token made: never read from here with this profile's.
          <p>
            Durable run <code>{turn.runId}</code> <span className="muted">(imported: a record of the run, not read from here)</span>
          </p>
        ) : (
          <p>
            Durable run <Link to={`/runs/${encodeURIComponent(turn.request.agentId)}/${encodeURIComponent(turn.runId)}`}>{turn.runId}</Link>
          </p>
        ))}
      {details === null && !turn.imported && (
        <button type="button" onClick={load}>
          {turn.eventCount > 0 ? `Show its ${formatCount(turn.eventCount)} events` : 'Show its raw answer'}
        </button>
      )}
      {details === 'loading' && <p role="status">Loading what history kept…</p>}
      {details && details !== 'loading' && (
        <>
          {details.events?.length ? (
            <pre className="raw" aria-label="Events">
              {details.events
                .slice(0, 500)
                .map((e) => `${e.seq}\t${e.at} ms\t${e.event}\t${e.data}`)
                .join('\n') + (details.events.length > 500 ? `\n… and ${formatCount(details.events.length - 500)} more (Export last turn has them all)` : '')}
            </pre>
          ) : null}
          {details.result !== undefined && (
            <pre className="raw" aria-label="Raw answer">
              {JSON.stringify(details.result, null, 2)}
            </pre>
          )}
          {waited && <SpecBadge answer={waited} />}
          {!details.events?.length && details.result === undefined && <p className="muted">History has no more of this turn.</p>}
        </>
      )}
    </div>
  );
}
