import { useId, useState } from 'react';
import { CodeSnippets } from '../../../components/code-snippets';
import { isPausedState, isTerminalState, type DurableRun } from '../../../contract/durable-runs';
import { useConnection } from '../../../lib/connection';
import { respondCall, type DurableRunCall } from '../../../lib/snippets';

interface Action {
  id: string;
  label: string;
  call: DurableRunCall;
}

/**
 * What can be done to this run now, as code: decisions while it is paused (the API takes one
 * decision per pending interaction in one request, so "approve only X" rejects the rest),
 * cancelling while it has not ended, and following it, always.
 */
export function durableActions(agentId: string, run: Pick<DurableRun, 'run_id' | 'state' | 'pending_interactions'>): Action[] {
  const runId = run.run_id;
  const pending = run.pending_interactions.map((i) => i.interaction_id);
  const follow: Action = { id: 'follow', label: 'Follow it to its end (read only)', call: { op: 'follow', agentId, runId } };
  const cancel: Action = { id: 'cancel', label: 'Cancel', call: { op: 'cancel', agentId, runId } };
  if (isPausedState(run.state) && pending.length > 0) {
    const one = pending.length === 1;
    return [
      { id: 'approve-all', label: one ? 'Approve' : `Approve all ${pending.length}`, call: respondCall(agentId, runId, pending, 'all') },
      ...(one
        ? []
        : run.pending_interactions.map((i) => ({
            id: `approve-${i.interaction_id}`,
            label: `Approve only ${i.display_name}, reject the rest`,
            call: respondCall(agentId, runId, pending, i.interaction_id),
          }))),
      { id: 'reject-all', label: one ? 'Reject' : `Reject all ${pending.length}`, call: respondCall(agentId, runId, pending, 'none') },
      cancel,
      follow,
    ];
  }
  if (isTerminalState(run.state) || run.state === 'CANCELLING') return [follow];
  return [follow, cancel];
}

/**
 * Code for acting on the run on screen from a script: its agent, its run id, its pending
 * interaction ids, in curl, fetch or the official client, each snippet then reading the run to
 * its end. The token stays out of the code unless "Include token" is ticked.
 */
export function DurableActionsCode({ agentId, run }: { agentId: string; run: DurableRun }) {
  const connection = useConnection();
  const name = useId();
  const actions = durableActions(agentId, run);
  const [chosen, setChosen] = useState<string>();
  // A choice the run has moved past (decisions once it resumed) falls back to the first that fits.
  const action = actions.find((a) => a.id === chosen) ?? actions[0]!;
  return (
    <details className="durable-actions-code">
      <summary>Code for this run</summary>
      <fieldset className="radios">
        <legend>Request</legend>
        {actions.map((a) => (
          <label key={a.id}>
            <input type="radio" name={name} checked={a.id === action.id} onChange={() => setChosen(a.id)} /> {a.label}
          </label>
        ))}
      </fieldset>
      <p className="hint">
        The code sends that one request (following sends none), then reads the run every second until it ends, printing each new state. It reads the token
        from <code>TOKEN</code> unless you tick Include token.
      </p>
      <CodeSnippets call={action.call} connection={connection} />
    </details>
  );
}
