import { useDeferredValue, useId, useState } from 'react';
import { useFormContext, useWatch } from 'react-hook-form';
import { CodeSnippets } from '../../../components/code-snippets';
import { CopyButton } from '../../../components/copy-button';
import { formatCount } from '../../../lib/format';
import type { ActiveConnection } from '../../../lib/connection';
import type { ApiCall } from '../../../lib/snippets';
import { runParts, type RunFormValues } from '../model/run-form-values';
import { SANDBOX_FAULT_HEADER } from '../../../contract/sandbox-fault';
import { counterpart, faultOfRequest, type RunParts, type RunRequest } from '../../../engine/run-request';
import { LARGE_FORM_FIELDS, type FormField } from '../model/schema-form';

/** Longest body the preview shows whole; past it, its beginning (an instance may declare 20,000 fields). */
const PREVIEW_MAX_CHARS = 100_000;

function callOf(r: RunRequest): ApiCall {
  return { op: 'run', agentId: r.agentId, flavour: r.flavour, mode: r.mode, path: r.path, body: r.body, ...(r.headers && { headers: { ...r.headers } }) };
}

/**
 * The exact request the Run button will send, read from the form's values as they are typed
 * (useWatch inside the form's context), with code for it and for the same run on the other API.
 */
export function RequestPreview({ connection, fields, takesMessages, build }: {
  connection: ActiveConnection;
  fields: FormField[];
  takesMessages: boolean;
  build(parts: RunParts): RunRequest;
}) {
  const headingId = useId();
  const { control } = useFormContext<RunFormValues>();
  const watched = useWatch({ control }) as RunFormValues;
  // Behind the typing when the form is large: the body is then large too, and the field comes first.
  const deferred = useDeferredValue(watched);
  const values = fields.length > LARGE_FORM_FIELDS ? deferred : watched;
  const [showCode, setShowCode] = useState(false);
  const request = build(runParts(values, fields, takesMessages));
  const fault = faultOfRequest(request);
  // The other API's request is the same run: the same fault.
  const other = { ...counterpart(request), ...(request.headers && { headers: request.headers }) };
  const body = JSON.stringify(request.body, null, 2);
  const large = body.length > PREVIEW_MAX_CHARS;
  return (
    <section className="request-preview" aria-labelledby={headingId}>
      <h2 id={headingId}>Request</h2>
      <p>
        <code>POST {request.path}</code>
        {fault !== undefined && (
          <>
            <br />
            <code>
              {SANDBOX_FAULT_HEADER}: {fault}
            </code>
          </>
        )}
      </p>
      <pre className="raw" aria-label="Request body preview">
        {large ? body.slice(0, PREVIEW_MAX_CHARS) : body}
      </pre>
      {large && (
        <p className="hint" role="note">
          ✂ Preview cut: the body is {formatCount(body.length)} characters, of which the first {formatCount(PREVIEW_MAX_CHARS)} are shown; the run sends it whole.{' '}
          <CopyButton text={() => body} label="Copy the whole body" />
        </p>
      )}
      {large && !showCode ? (
        <p className="hint">
          Code for a body this large is written on demand.{' '}
          <button type="button" onClick={() => setShowCode(true)}>
            Show code for this request
          </button>
        </p>
      ) : (
        <CodeSnippets call={callOf(request)} connection={connection} />
      )}
      {(!large || showCode) && <details>
        <summary>Compare the legacy and current requests</summary>
        <div className="side-by-side">
          {[request, other]
            .sort((a) => (a.flavour === 'legacy' ? -1 : 1))
            .map((r) => (
              <div key={r.flavour}>
                <h3>{r.flavour === 'legacy' ? 'Legacy (deprecated)' : 'Current'}</h3>
                <p>
                  <code>POST {r.path}</code>
                </p>
                <pre className="raw">{JSON.stringify(r.body, null, 2)}</pre>
                <CodeSnippets call={callOf(r)} connection={connection} />
              </div>
            ))}
        </div>
        <p className="hint">
          The current API takes the agent id in the path instead of <code>agent_id</code> in the body, and <code>"stream": true</code> instead of the{' '}
          <code>/stream</code> path; its errors are problem details, and a failed stream ends with a <code>run.failed</code> event.
        </p>
      </details>}
    </section>
  );
}
