import { useId, useState } from 'react';
import { useConnections } from '../../../lib/connection';
import { otherMode, RUN_ON_BOTH, type PairTarget } from '../../../engine/run-pair';
import type { RunOnBothProps } from '../../../components/slots';

type Kind = PairTarget['kind'];

/**
 * "Run on both": the request as the form has it, sent at once to two targets that differ in
 * one thing, then shown side by side. The button submits the run form (so the input is checked
 * as for a run) and names its target in its value.
 */
export function RunOnBoth({ formId, connection, settings, agentId, cannotRunWhy }: RunOnBothProps) {
  const id = useId();
  const { profiles } = useConnections();
  const others = profiles.filter((p) => p.id !== connection.profileId);
  const [kind, setKind] = useState<Kind>('api');
  const [profile, setProfile] = useState('');
  const [agent, setAgent] = useState('');
  const profileId = others.some((p) => p.id === profile) ? profile : (others[0]?.id ?? '');
  const mode = settings.flavour === 'legacy' && settings.mode === 'durable' ? 'wait' : settings.mode;
  const target: PairTarget | undefined =
    kind === 'api' || kind === 'mode'
      ? { kind }
      : kind === 'profile'
        ? profileId
          ? { kind, profileId }
          : undefined
        : agent.trim() && agent.trim() !== agentId
          ? { kind, agentId: agent.trim() }
          : undefined;
  const why =
    (cannotRunWhy && `Not now: ${cannotRunWhy}`) ??
    (kind === 'profile' && !profileId
      ? 'There is no other profile: add one on the Connection page.'
      : kind === 'agent' && !target
        ? 'Type the id of another agent.'
        : kind === 'api' && mode === 'durable'
          ? 'The legacy API has no durable runs: the replacement is compared with a wait.'
          : undefined);
  const blocking = why !== undefined && !(kind === 'api' && mode === 'durable' && cannotRunWhy === undefined);
  const option = (value: Kind, label: string) => (
    <label className="choice">
      <input type="radio" name={`${id}-kind`} value={value} checked={kind === value} onChange={() => setKind(value)} /> {label}
    </label>
  );
  return (
    <details className="run-on-both">
      <summary>Run on both: compare with another API, mode, profile or agent</summary>
      <fieldset>
        <legend>Send this request as A, and as B:</legend>
        {option('api', `on the ${settings.flavour === 'legacy' ? 'current' : 'legacy'} API`)}
        {option('mode', `as ${otherMode(mode)} (A runs as ${mode})`)}
        {option('profile', 'with another profile')}
        {kind === 'profile' && others.length > 0 && (
          <div className="field">
            <label htmlFor={`${id}-profile`}>Profile for B</label>
            <select id={`${id}-profile`} value={profileId} onChange={(e) => setProfile(e.target.value)}>
              {others.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.label}
                </option>
              ))}
            </select>
          </div>
        )}
        {option('agent', 'to another agent')}
        {kind === 'agent' && (
          <div className="field">
            <label htmlFor={`${id}-agent`}>Agent id for B</label>
            <input id={`${id}-agent`} value={agent} onChange={(e) => setAgent(e.target.value)} spellCheck={false} autoComplete="off" />
          </div>
        )}
      </fieldset>
      <div className="toolbar">
        <button type="submit" form={formId} name={RUN_ON_BOTH} value={target ? JSON.stringify(target) : ''} disabled={blocking || !target}>
          Run on both
        </button>
        {why && <span className="hint">{why}</span>}
        <span className="hint">One POST to each; both are shown side by side as they go.</span>
      </div>
    </details>
  );
}
