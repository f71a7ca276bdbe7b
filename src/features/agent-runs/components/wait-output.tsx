import { useState } from 'react';
import { SpecBadge } from '../../../components/spec-badge';
import { transcriptOf, type RunWaitResponse } from '../../../contract/agents';
import { ResponseMetaView } from '../../../components/response-meta';
import { Tabs } from '../../../components/tabs';
import type { ApiResponse } from '../../../lib/api-client';
import { CopyButton } from '../../../components/copy-button';

/** A waited run's answer: its messages, the raw JSON and the response's details. */
function WaitTabs({ answer }: { answer: ApiResponse<RunWaitResponse> }) {
  const [tab, setTab] = useState('transcript');
  const data = answer.data;
  const messages = Array.isArray(data?.messages) ? data.messages : [];
  return (
    <Tabs
      label="Run result"
      selected={tab}
      onSelect={setTab}
      tabs={[
        {
          id: 'transcript',
          label: 'Transcript',
          content: (
            <>
            <CopyButton text={messages.map((m) => `${m?.role}: ${transcriptOf([m])}`).join('\n')} label="Copy transcript" />
            <div className="transcript" aria-label="Transcript">
              {messages.map((m, i) => (
                <p key={i}>
                  <span className="muted">{m?.role}: </span>
                  {transcriptOf([m])}
                </p>
              ))}
            </div>
            </>
          ),
        },
        {
          id: 'raw',
          label: 'Raw JSON',
          content: (
            <>
              <CopyButton text={answer.rawBody} label="Copy response body" />
              <pre className="raw">{JSON.stringify(data, null, 2)}</pre>
            </>
          ),
        },
        { id: 'response', label: 'Response', content: <ResponseMetaView meta={answer} /> },
      ]}
    />
  );
}

/** A waited run's answer: whether it matches the public schema, then its tabs. */
export function WaitOutput({ answer }: { answer: ApiResponse<RunWaitResponse> }) {
  return (
    <>
      <SpecBadge answer={answer} />
      <WaitTabs answer={answer} />
    </>
  );
}
