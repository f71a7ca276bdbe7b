import { useEffect, useId, useState } from 'react';
import type { Agent } from '../../contract/agents';
import { ApiError } from '../../lib/api-client';
import type { ActiveConnection } from '../../lib/connection';
import { useSearchAgents } from './api/agents';
import type { Flavour } from './run-session';

function capabilities(a: Agent): string {
  const caps = [];
  if (a.capabilities['ap.io.messages']) caps.push('messages');
  if (a.capabilities['ap.io.streaming']) caps.push('streaming');
  return caps.length ? caps.join(', ') : 'input form';
}

/** Find an agent by name, or type its id. */
export function AgentPicker({ connection, flavour, selectedId, onSelect }: {
  connection: ActiveConnection;
  flavour: Flavour;
  selectedId: string;
  onSelect(id: string, agent?: Agent): void;
}) {
  const ids = { search: useId(), id: useId() };
  const [name, setName] = useState('');
  const [debounced, setDebounced] = useState('');
  const [typedId, setTypedId] = useState(selectedId);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(name.trim()), 250);
    return () => clearTimeout(t);
  }, [name]);
  const search = useSearchAgents(connection, flavour, debounced);

  return (
    <section className="panel" aria-labelledby="agent-heading">
      <h2 id="agent-heading">Agent</h2>
      <div className="picker">
        <div className="field">
          <label htmlFor={ids.search}>Search agents by name</label>
          <input id={ids.search} type="search" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. HR" autoComplete="off" />
        </div>
        <form
          className="field"
          onSubmit={(e) => {
            e.preventDefault();
            if (typedId.trim()) onSelect(typedId.trim());
          }}
        >
          <label htmlFor={ids.id}>Or an agent id</label>
          <div className="input-row">
            <input id={ids.id} value={typedId} onChange={(e) => setTypedId(e.target.value)} autoComplete="off" spellCheck={false} />
            <button type="submit">Load agent</button>
          </div>
        </form>
      </div>
      <div aria-live="polite">
        {search.isLoading && <p role="status">Searching…</p>}
        {search.isError && (
          <p className="error" role="alert">
            Search failed: {search.error instanceof ApiError ? `${search.error.status || ''} ${search.error.detail}` : String(search.error)}
          </p>
        )}
      </div>
      {search.isSuccess && (
        <ul className="agent-list" aria-label="Agents">
          {search.data.length === 0 && <li className="muted">No agent matches “{debounced}”.</li>}
          {search.data.map((a) => (
            <li key={a.agent_id}>
              <button
                type="button"
                aria-pressed={a.agent_id === selectedId}
                onClick={() => {
                  setTypedId(a.agent_id);
                  onSelect(a.agent_id, a);
                }}
              >
                <strong>{a.name}</strong> <code className="muted">{a.agent_id}</code>
                <span className="agent-desc">{a.description}</span>
                <span className="muted">Capabilities: {capabilities(a)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
