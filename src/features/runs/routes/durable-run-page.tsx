import { Link, useParams } from 'react-router';
import { ConnectionProblem } from '../../../components/connection-problem';
import { ErrorDetails } from '../../../components/error-details';
import { PageTitle } from '../../../components/page-title';
import { ApiError } from '../../../lib/api-client';
import { connectionKey, useConnection, type ActiveConnection } from '../../../lib/connection';
import { useAskForToken } from '../../../lib/token-request';
import { DurableActionsCode } from '../components/durable-actions-code';
import { DurableRunView } from '../components/durable-run-view';
import type { HistoryEntry } from '../../../engine/history-entry';
import { useEntryOfRun } from '../../../hooks/use-history';
import { useOpenedRun, useRunStore } from '../../../hooks/run-store';

/** The run as this connection sees it; keyed by connection and run, so nothing of one profile's run shows under another. */
function OpenedRun({ connection, agentId, runId, entry }: { connection: ActiveConnection; agentId: string; runId: string; entry?: HistoryEntry }) {
  const store = useRunStore();
  const askForToken = useAskForToken();
  const record = useOpenedRun(connection, agentId, runId, entry);
  if (!record || record.state.status === 'idle') return <p role="status">Reading the run…</p>;
  const refusal = record.state.refusal;
  if (refusal) {
    const notFound = refusal instanceof ApiError && refusal.status === 404;
    return (
      <div className="error-panel" role="alert">
        <h3>{notFound ? `No run “${runId}” for agent “${agentId}”` : 'The run could not be read'}</h3>
        <p>
          {refusal.status ? `${refusal.status} ` : ''}
          {refusal.title}: {refusal.detail}
        </p>
        {notFound && <p>A run is visible only to the token that created it, and only under its own agent; a finished run is kept for a limited time.</p>}
        <ErrorDetails error={refusal} />
        <p className="toolbar">
          <button type="button" onClick={() => store.open(connection, agentId, runId, entry)}>
            Read again
          </button>
          {/* Only the token that started a run reads it: a refusal to this one is answered by giving another. */}
          {askForToken && [401, 403, 404].includes(refusal.status) && (
            <button type="button" onClick={askForToken}>
              Use another token
            </button>
          )}
        </p>
      </div>
    );
  }
  return (
    <>
      <DurableRunView record={record} />
      {record.state.durable && <DurableActionsCode agentId={agentId} run={record.state.durable.run} />}
    </>
  );
}

/**
 * /runs/:agentId/:runId: a durable run, followed by reading it (GET), never by sending it
 * again; so it works from a fresh tab or after a reload. Approvals, cancellation, output.
 */
export function DurableRunPage() {
  const { agentId = '', runId = '' } = useParams();
  const connection = useConnection();
  // What history kept of this run, when it ran on this profile: its request and its place in history
  // (an imported record of it is never read with this profile's token, nor written to).
  const history = useEntryOfRun(agentId, runId, connection.profileId);
  const entry = history.entry;
  return (
    <div className="durable-run">
      <p>
        <Link to={`/runs/${encodeURIComponent(agentId)}`}>← Run agent {agentId}</Link>
      </p>
      <PageTitle title={`Run ${runId} · ${agentId}`} />
      <h1>
        Durable run <code>{runId}</code>
      </h1>
      <p className="muted">
        Agent <code>{agentId}</code>, profile {connection.profileLabel}. This page reads the run (<code>GET /api/agents/{agentId}/runs/{runId}</code>) and
        never sends it again: reload it or open it in another tab safely.
      </p>
      <ConnectionProblem problem={connection.problem} />
      {!connection.problem &&
        (history.isPending ? (
          <p role="status">Reading the run…</p>
        ) : (
          <OpenedRun key={[...connectionKey(connection), agentId, runId].join(' ')} connection={connection} agentId={agentId} runId={runId} entry={entry} />
        ))}
    </div>
  );
}
