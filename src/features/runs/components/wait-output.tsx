import { useState } from 'react';
import { SpecBadge } from '../../../components/spec-badge';
import { transcriptOf, type RunWaitResponse } from '../../../contract/agents';
import { ResponseMetaView } from '../../../components/response-meta';
import { Tabs } from '../../../components/tabs';
import type { ApiResponse } from '../../../lib/api-client';
import { CopyButton } from '../../../components/copy-button';
import { download } from '../../../lib/download';
import { formatCount } from '../../../lib/format';

/** Most messages of a waited answer shown at once (an instance may answer 100,000); Copy and Download have them all. */
export const WAIT_MESSAGES_SHOWN = 500;
/** Longest raw body shown as it came; past it, its beginning, and Copy and Download have it whole. */
export const WAIT_RAW_SHOWN_CHARS = 200_000;

/** A waited run's answer: its messages, the raw JSON and the response's details. */
function WaitTabs({ answer }: { answer: ApiResponse<RunWaitResponse> }) {
  const [tab, setTab] = useState('transcript');
  const data = answer.data;
  const messages = Array.isArray(data?.messages) ? data.messages : [];
  const shown = messages.length > WAIT_MESSAGES_SHOWN ? messages.slice(0, WAIT_MESSAGES_SHOWN) : messages;
  const raw = answer.rawBody;
  // A small body pretty-printed; a large one as it came (pretty-printing 7 MB is a long task of its own).
  const rawLarge = raw.length > WAIT_RAW_SHOWN_CHARS;
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
              <CopyButton text={() => messages.map((m) => `${m?.role}: ${transcriptOf([m])}`).join('\n')} label="Copy transcript" />
              {shown.length < messages.length && (
                <p className="hint" role="note">
                  ✂ Shown are the first {formatCount(shown.length)} of {formatCount(messages.length)} messages; Copy transcript copies them all, and the Raw JSON tab has the whole answer.
                </p>
              )}
              <div className="transcript" aria-label="Transcript">
                {shown.map((m, i) => (
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
              <CopyButton text={raw} label="Copy response body" />{' '}
              <button type="button" onClick={() => download('run-answer.json', raw)}>
                Download response body
              </button>
              {rawLarge && (
                <p className="hint" role="note">
                  ✂ Shown are the first {formatCount(WAIT_RAW_SHOWN_CHARS)} of the body’s {formatCount(raw.length)} characters, as received; Copy and Download have it whole.
                </p>
              )}
              <pre className="raw">{rawLarge ? raw.slice(0, WAIT_RAW_SHOWN_CHARS) : JSON.stringify(data, null, 2)}</pre>
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
