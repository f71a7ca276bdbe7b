import type { ResponseMeta } from '../lib/api-client';
import { formatBytes, utf8Bytes } from '../lib/format';
import { TableScroll } from './table-scroll';

/** The body's size as received, in bytes; undefined for an event stream, whose body the answer does not keep. */
function bodySize(meta: Pick<ResponseMeta, 'headers'> & { rawBody?: string }): number | undefined {
  const type = meta.headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
  return /text\/event-stream/i.test(type) || meta.rawBody === undefined ? undefined : utf8Bytes(meta.rawBody);
}

/**
 * Status, time and size of one answer on one line: what every answer shows at a glance.
 * `bytes` when the caller counted them itself (a stream's events, whose body is not kept).
 */
export function ResponseSummary({ meta, bytes }: { meta: Omit<ResponseMeta, 'rawBody'> & { rawBody?: string }; bytes?: number }) {
  const size = bytes ?? bodySize(meta);
  return (
    <p className="response-summary">
      Status <strong>{meta.status}</strong> · {meta.durationMs} ms{size !== undefined && ` · ${formatBytes(size)}`}
      {meta.revalidation && (
        <span className="muted">
          {' '}
          · revalidated: {meta.revalidation.status} Not Modified in {meta.revalidation.durationMs} ms, no body
        </span>
      )}
    </p>
  );
}

/** Status, duration, size, request id and headers of one answer. */
export function ResponseMetaView({ meta }: { meta: ResponseMeta }) {
  const size = bodySize(meta);
  return (
    <div className="response-meta">
      <dl className="meta-grid">
        <dt>Request</dt>
        <dd>
          <code>
            {meta.method} {meta.url}
          </code>
        </dd>
        <dt>Status</dt>
        <dd>{meta.status}</dd>
        <dt>Duration</dt>
        <dd>{meta.durationMs} ms</dd>
        {size !== undefined && (
          <>
            <dt>Size</dt>
            <dd>{formatBytes(size)}</dd>
          </>
        )}
        <dt>Request id</dt>
        <dd>{meta.requestId ? <code>{meta.requestId}</code> : <span className="muted">none sent</span>}</dd>
        {meta.revalidation && (
          <>
            <dt>Revalidated</dt>
            <dd>
              {meta.revalidation.status} Not Modified (If-None-Match with this answer’s ETag) · {meta.revalidation.durationMs} ms · no body
              {meta.revalidation.requestId && (
                <>
                  {' '}
                  · <code>{meta.revalidation.requestId}</code>
                </>
              )}
            </dd>
          </>
        )}
      </dl>
      <TableScroll label="Response headers">
        <table className="headers">
          <caption>Response headers</caption>
          <thead>
            <tr>
              <th scope="col">Header</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {meta.headers.map(([name, value]) => (
              <tr key={name}>
                <td>
                  <code>{name}</code>
                </td>
                <td>
                  <code>{value}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </div>
  );
}
