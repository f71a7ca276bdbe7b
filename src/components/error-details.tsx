import type { ApiError } from '../lib/api-client';
import { CopyButton } from './copy-button';
import { ResponseMetaView, ResponseSummary } from './response-meta';
import { SpecBadge } from './spec-badge';

/**
 * The parts of a failed answer every error view shows: its status, time and size, a non-JSON
 * body as received, whether the body is as documented, and the response details.
 */
export function ErrorDetails({ error }: { error: ApiError }) {
  return (
    <>
      {error.meta && <ResponseSummary meta={error.meta} />}
      {error.bodyIsRaw && String(error.body) !== '' && (
        <>
          <p>The answer was not JSON; here it is as received:</p>
          <pre className="raw">{String(error.body)}</pre>
        </>
      )}
      {error.meta && <SpecBadge answer={error.meta} inError />}
      {error.meta && (
        <details>
          <summary>Response details</summary>
          {error.meta.rawBody && <CopyButton text={error.meta.rawBody} label="Copy response body" />}
          <ResponseMetaView meta={error.meta} />
        </details>
      )}
    </>
  );
}
