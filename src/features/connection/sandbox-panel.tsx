import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { AGENTS_SCOPE, GLOBAL_SCOPE, groupScope, isKnownScopeShape } from '../../contract/scopes';
import { nameProblem } from '../../contract/names';
import { apiRequest, type ApiError } from '../../lib/api-client';
import { useProfiles } from './connection-provider';
import { newProfileId } from './profiles';

interface Minted {
  token: string;
  label: string;
  scopes: string[];
}

/** Mints a sandbox token on the bundled reference service and adds it as a profile. */
export function SandboxPanel() {
  const { add } = useProfiles();
  const ids = { global: useId(), agents: useId(), groups: useId(), label: useId() };
  const [global, setGlobal] = useState(false);
  const [agents, setAgents] = useState(true);
  const [groups, setGroups] = useState('');
  const [label, setLabel] = useState('');
  const groupNames = groups.split(/[\s,]+/).filter(Boolean);
  const groupProblem = groupNames.map((g) => nameProblem(g, 'group name')).find(Boolean) ?? null;
  const scopes = [...(global ? [GLOBAL_SCOPE] : []), ...(agents ? [AGENTS_SCOPE] : []), ...groupNames.map(groupScope)];

  const mint = useMutation({
    mutationFn: async () =>
      (await apiRequest<Minted>({ baseUrl: '' }, '/sandbox/tokens', { method: 'POST', body: { scopes, ...(label && { label }) } })).data,
    onSuccess: (minted) => {
      add(
        { id: newProfileId(), label: minted.label, mode: 'same-origin', target: '', scopes: minted.scopes, remember: false, outcomes: {} },
        minted.token,
      );
    },
  });

  const canMint = scopes.length > 0 && !groupProblem && scopes.every(isKnownScopeShape);
  return (
    <section className="panel" aria-labelledby="sandbox-heading">
      <h2 id="sandbox-heading">Sandbox tokens</h2>
      <p className="hint">The bundled reference service mints tokens for trying scopes out. They work only here.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (canMint) mint.mutate();
        }}
      >
        <div className="field checkbox">
          <input id={ids.global} type="checkbox" checked={global} onChange={(e) => setGlobal(e.target.checked)} />
          <label htmlFor={ids.global}>
            <code>{GLOBAL_SCOPE}</code> (every group)
          </label>
        </div>
        <div className="field checkbox">
          <input id={ids.agents} type="checkbox" checked={agents} onChange={(e) => setAgents(e.target.checked)} />
          <label htmlFor={ids.agents}>
            <code>{AGENTS_SCOPE}</code> (agent endpoints)
          </label>
        </div>
        <div className="field">
          <label htmlFor={ids.groups}>Groups (one scope each)</label>
          <input id={ids.groups} value={groups} onChange={(e) => setGroups(e.target.value)} placeholder="sales hr" aria-invalid={!!groupProblem} aria-describedby={`${ids.groups}-hint`} />
          <p id={`${ids.groups}-hint`} className={groupProblem ? 'hint error' : 'hint'}>
            {groupProblem ?? 'Separate names with spaces or commas.'}
          </p>
        </div>
        <div className="field">
          <label htmlFor={ids.label}>Label (optional)</label>
          <input id={ids.label} value={label} maxLength={100} onChange={(e) => setLabel(e.target.value)} />
        </div>
        <p className="hint">Scopes: {scopes.length ? scopes.map((s) => <code key={s}>{s} </code>) : 'none chosen'}</p>
        <button type="submit" disabled={!canMint || mint.isPending}>
          {mint.isPending ? 'Minting…' : 'Mint token and add profile'}
        </button>
      </form>
      <div role="status" aria-live="polite">
        {mint.isSuccess && <p>Added profile “{mint.data.label}” and switched to it.</p>}
        {mint.isError && <p className="error">Could not mint a token: {(mint.error as ApiError).detail ?? mint.error.message}</p>}
      </div>
    </section>
  );
}
