import type { ResponseMeta } from '../lib/api-client';
import { TableScroll } from './table-scroll';

/** Status, duration, request id and headers of one answer. */
export function ResponseMetaView({ meta }: { meta: ResponseMeta }) {
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
        <dt>Request id</dt>
        <dd>{meta.requestId ? <code>{meta.requestId}</code> : <span className="muted">none sent</span>}</dd>
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
