import { useEffect, useState } from 'react';
import { transcriptOf } from '../../contract/agents';
import { ResponseMetaView } from '../../components/response-meta';
import { Tabs } from '../../components/tabs';
import { Refusal } from './refusal';
import type { WaitRun } from './use-run';

function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(t);
  }, []);
  return <span>{((now - since) / 1000).toFixed(1)} s</span>;
}

const STATUS_TEXT: Record<WaitRun['status'], string> = {
  waiting: 'Waiting for the run to finish…',
  success: 'Success',
  error: 'Error',
  refused: 'Refused',
  cancelled: 'Cancelled',
  timeout: 'Timed out',
};

export function WaitOutput({ run }: { run: WaitRun }) {
  const [tab, setTab] = useState('transcript');
  const data = run.response?.data;
  return (
    <section className="panel run-output" aria-labelledby="output-heading">
      <div className="toolbar">
        <h2 id="output-heading">Run</h2>
        <span className={`status status-${run.status}`} role="status">
          {STATUS_TEXT[run.status]}
        </span>
        {run.status === 'waiting' ? (
          <span className="muted">
            Elapsed <Elapsed since={run.startedAt} />
          </span>
        ) : (
          <span className="muted">{run.durationMs} ms</span>
        )}
      </div>
      {run.status === 'cancelled' && <p className="muted">Cancelled by you; the service may still finish the run.</p>}
      {run.status === 'timeout' && <p className="warn">Your client-side timeout ended the wait; the service may still finish the run.</p>}
      {run.error && run.status === 'refused' && <Refusal error={run.error} />}
      {run.response && data && (
        <>
          {run.status === 'error' && (
            <div className="error-panel" role="alert">
              <h3>The run ended with status “error”</h3>
              <p>{transcriptOf(data.messages ?? []).split('\n').pop()}</p>
            </div>
          )}
          <Tabs
            label="Run result"
            selected={tab}
            onSelect={setTab}
            tabs={[
              {
                id: 'transcript',
                label: 'Transcript',
                content: (
                  <div className="transcript" aria-label="Transcript">
                    {(data.messages ?? []).map((m, i) => (
                      <p key={i}>
                        <span className="muted">{m.role}: </span>
                        {transcriptOf([m])}
                      </p>
                    ))}
                  </div>
                ),
              },
              { id: 'raw', label: 'Raw JSON', content: <pre className="raw">{JSON.stringify(data, null, 2)}</pre> },
              { id: 'response', label: 'Response', content: <ResponseMetaView meta={run.response} /> },
            ]}
          />
        </>
      )}
    </section>
  );
}
