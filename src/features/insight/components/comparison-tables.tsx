/** The comparison's tables: the two runs' figures, and where their request bodies and response headers differ. */
import { Fragment, type ReactNode } from 'react';
import type { ComparedRun, HeaderDifference, MetricRow, ValueDifference } from '../model/comparison';

const show = (v: unknown) => (v === undefined ? '–' : JSON.stringify(v));

export function FiguresTable({ rows }: { rows: readonly MetricRow[] }) {
  return (
    <table className="compare-table compare-figures">
      <thead>
        <tr>
          <th scope="col">Figure</th>
          <th scope="col">A</th>
          <th scope="col">B</th>
          <th scope="col">B − A</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.label} className={r.differs ? 'differs' : undefined}>
            <th scope="row">{r.label}</th>
            <td>{r.a}</td>
            <td>{r.b}</td>
            <td>{r.delta ?? (r.differs ? 'differs' : 'same')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Where the two request bodies differ, and each body whole a click away. */
export function RequestBodies({ body, ra, rb }: { body: readonly ValueDifference[]; ra: ComparedRun; rb: ComparedRun }) {
  return (
    <>
      {body.length === 0 ? (
        <p>The two bodies are the same.</p>
      ) : (
        <table className="compare-table" aria-label="Request body differences">
          <thead>
            <tr>
              <th scope="col">Where</th>
              <th scope="col">A</th>
              <th scope="col">B</th>
            </tr>
          </thead>
          <tbody>
            {body.map((d) => (
              <tr key={d.pointer}>
                <th scope="row">
                  <code>{d.pointer ? breakableAtSlashes(d.pointer) : '(the whole body)'}</code>
                </th>
                <td>{d.kind === 'only-b' ? <span className="muted">(absent)</span> : <code>{show(d.a)}</code>}</td>
                <td>{d.kind === 'only-a' ? <span className="muted">(absent)</span> : <code>{show(d.b)}</code>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="compare-grid">
        <details>
          <summary>
            A: <code>POST {ra.request.path}</code>
          </summary>
          <pre className="raw">{JSON.stringify(ra.request.body, null, 2)}</pre>
        </details>
        <details>
          <summary>
            B: <code>POST {rb.request.path}</code>
          </summary>
          <pre className="raw">{JSON.stringify(rb.request.body, null, 2)}</pre>
        </details>
      </div>
    </>
  );
}

/** The response headers that differ; `known`, whether both runs' headers are known yet. */
export function ResponseHeaders({ headers, known }: { headers: readonly HeaderDifference[]; known: boolean }) {
  if (headers.length === 0) return <p>{known ? 'None (Date and request ids, which differ on every answer, are left out).' : 'Not known yet.'}</p>;
  return (
    <table className="compare-table" aria-label="Response header differences">
      <thead>
        <tr>
          <th scope="col">Header</th>
          <th scope="col">A</th>
          <th scope="col">B</th>
        </tr>
      </thead>
      <tbody>
        {headers.map((h) => (
          <tr key={h.name}>
            <th scope="row">
              <code>{h.name}</code>
            </th>
            <td>{h.a ?? <span className="muted">(absent)</span>}</td>
            <td>{h.b ?? <span className="muted">(absent)</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * A JSON pointer that a narrow column may break after its slashes: broken anywhere, a phone
 * showed "/input/audienc e".
 */
function breakableAtSlashes(pointer: string): ReactNode {
  return pointer.split('/').map((part, i) => (
    <Fragment key={i}>
      {i > 0 && (
        <>
          /<wbr />
        </>
      )}
      {part}
    </Fragment>
  ));
}
