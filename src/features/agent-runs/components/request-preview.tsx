import { useId } from 'react';
import { useFormContext, useWatch } from 'react-hook-form';
import { CodeSnippets } from '../../../components/code-snippets';
import type { ActiveConnection } from '../../../lib/connection';
import type { ApiCall } from '../../../lib/snippets';
import { runParts, type RunFormValues } from '../model/run-form-values';
import { counterpart, type RunParts, type RunRequest } from '../model/run-request';
import type { FormField } from '../model/schema-form';

function callOf(r: RunRequest): ApiCall {
  return { op: 'run', agentId: r.agentId, flavour: r.flavour, mode: r.mode, path: r.path, body: r.body };
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
  const values = useWatch({ control }) as RunFormValues;
  const request = build(runParts(values, fields, takesMessages));
  const other = counterpart(request);
  return (
    <section className="request-preview" aria-labelledby={headingId}>
      <h2 id={headingId}>Request</h2>
      <p>
        <code>POST {request.path}</code>
      </p>
      <pre className="raw" aria-label="Request body preview">
        {JSON.stringify(request.body, null, 2)}
      </pre>
      <CodeSnippets call={callOf(request)} connection={connection} />
      <details>
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
      </details>
    </section>
  );
}
