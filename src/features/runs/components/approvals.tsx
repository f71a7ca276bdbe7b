import { useId, useState } from 'react';
import type { Decision, ToolApproval } from '../../../contract/durable-runs';
import { untilText } from '../../../engine/durable-follow';

/**
 * A paused run's pending tool approvals: one card per interaction (tool, what it does, the
 * arguments it would be called with, its own expiry). A single request is decided in one
 * click (Approve or Reject); a batch takes a decision on each and one Submit, since the API
 * wants every pending decision in one request. Submitting is one POST; the parent says how it went.
 */
export function Approvals({ interactions, now, submitting, onSubmit }: {
  interactions: ToolApproval[];
  now: number;
  submitting: boolean;
  onSubmit(decisions: Record<string, Decision>): void;
}) {
  const headingId = useId();
  const [decisions, setDecisions] = useState<Record<string, Decision>>({});
  // Decisions for interactions no longer pending are dropped, not sent.
  const chosen = Object.fromEntries(interactions.filter((i) => decisions[i.interaction_id]).map((i) => [i.interaction_id, decisions[i.interaction_id]!]));
  const missing = interactions.length - Object.keys(chosen).length;
  const single = interactions.length === 1 ? interactions[0]! : undefined;
  return (
    <section className="approvals" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {interactions.length === 1 ? 'The agent asks to use a tool' : `The agent asks to use ${interactions.length} tools`}
      </h2>
      <p className="hint">
        {single
          ? 'The run is paused until you decide; your click sends the decision.'
          : 'The run is paused until you decide on every request below; nothing runs before you submit.'}
      </p>
      <ul className="approval-list">
        {interactions.map((i) => (
          <li key={i.interaction_id} className="approval-card" aria-label={`Tool ${i.display_name}`}>
            <h3>
              {i.display_name} {i.tool_id && <code className="muted">{i.tool_id}</code>}
            </h3>
            {i.type !== 'TOOL_APPROVAL' && <p className="warning">Interaction type “{i.type}”: not one this console knows; shown as it came.</p>}
            <p>{i.description}</p>
            <pre className="raw" aria-label={`Arguments of ${i.display_name}`}>
              {JSON.stringify(i.arguments, null, 2)}
            </pre>
            {i.expires_at && (
              <p className="hint">
                This request expires <time dateTime={i.expires_at}>{untilText(i.expires_at, now)}</time>.
              </p>
            )}
            {single ? (
              <div className="toolbar" role="group" aria-label={`Decision on ${i.display_name}`}>
                <button type="button" className="primary" disabled={submitting} onClick={() => onSubmit({ [i.interaction_id]: 'APPROVE' })}>
                  Approve
                </button>
                <button type="button" className="danger" disabled={submitting} onClick={() => onSubmit({ [i.interaction_id]: 'REJECT' })}>
                  Reject
                </button>
                {submitting && <span role="status">Sending your decision…</span>}
              </div>
            ) : (
              <fieldset className="radios decision">
                <legend>Decision on {i.display_name}</legend>
                {(['APPROVE', 'REJECT'] as const).map((d) => (
                  <label key={d}>
                    <input
                      type="radio"
                      name={`decision-${i.interaction_id}`}
                      checked={decisions[i.interaction_id] === d}
                      onChange={() => setDecisions((all) => ({ ...all, [i.interaction_id]: d }))}
                    />{' '}
                    {d === 'APPROVE' ? 'Approve' : 'Reject'}
                  </label>
                ))}
              </fieldset>
            )}
          </li>
        ))}
      </ul>
      {!single && (
        <div className="toolbar">
          <button type="button" className="primary" disabled={missing > 0 || submitting} onClick={() => onSubmit(chosen)}>
            {submitting ? 'Submitting…' : 'Submit decisions'}
          </button>
          {missing > 0 && <span className="hint">{missing === 1 ? 'One request still needs a decision.' : `${missing} requests still need a decision.`}</span>}
        </div>
      )}
    </section>
  );
}
