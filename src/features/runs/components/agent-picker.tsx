import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import type { Agent } from '../../../contract/agents';
import { ApiError } from '../../../lib/api-client';
import { formatCount } from '../../../lib/format';
import { connectionKey, type ActiveConnection } from '../../../lib/connection';
import { searchAgentsQueryOptions, useSearchAgents } from '../../../lib/agents/search-agents';
import type { Flavour } from '../../../engine/run-request';

export function capabilitiesOf(a: Agent): string {
  const caps = [];
  if (a.capabilities['ap.io.messages']) caps.push('messages');
  if (a.capabilities['ap.io.streaming']) caps.push('streaming');
  return caps.length ? caps.join(', ') : 'input form';
}

/** Agent ids are opaque; anything without spaces or slashes may be one. */
const LOOKS_LIKE_ID = /^[^\s/]{1,128}$/;

/**
 * Options drawn at most: an instance may answer thousands of agents, and drawing them all held
 * the tab for seconds on each key. Enter on a name still looks through every agent answered.
 */
export const AGENT_OPTIONS_SHOWN = 50;

type Option = { kind: 'agent'; agent: Agent } | { kind: 'id'; id: string };
const keyOf = (o: Option) => (o.kind === 'agent' ? o.agent.agent_id : `id:${o.id}`);

function matches(a: Agent, lower: string): boolean {
  return a.name.toLowerCase().includes(lower) || a.agent_id.toLowerCase().includes(lower);
}

/**
 * What Enter on typed text opens: the agent it names exactly (by name or id), else the one
 * agent whose name or id contains it, else the text as an id.
 */
function pickFor(typed: string, agents: readonly Agent[]): Option | undefined {
  const lower = typed.toLowerCase();
  const exact = agents.find((a) => a.agent_id === typed || a.name.toLowerCase() === lower);
  // Part of one agent's name, matching no other, opens that agent: not a page for an id nobody has.
  // (Matched here, not trusted to the search: its answer may still be for fewer letters.)
  const containing = agents.filter((a) => matches(a, lower));
  const agent = exact ?? (containing.length === 1 ? containing[0] : undefined);
  if (agent) return { kind: 'agent', agent };
  return LOOKS_LIKE_ID.test(typed) ? { kind: 'id', id: typed } : undefined;
}

/**
 * A searchable combobox (the ARIA 1.2 list-autocomplete pattern): typing searches agents by
 * name; arrows move through the matches, Enter or a click opens one, and Enter on text that
 * matches no name opens it as an agent id. Escape closes the list without leaving the page's
 * other Escape (stop the run) to fire.
 */
export function AgentPicker({ connection, flavour, selectedId, onSelect }: {
  connection: ActiveConnection;
  flavour: Flavour;
  selectedId: string;
  onSelect(id: string): void;
}) {
  const ids = { input: useId(), list: useId(), hint: useId() };
  const [text, setText] = useState('');
  const [debounced, setDebounced] = useState('');
  const [open, setOpen] = useState(false);
  // The highlighted option is held by its key, not its place: a search answering while the
  // arrows are in use redraws the list, and the agent highlighted stays the one highlighted.
  const [activeKey, setActiveKey] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(text.trim()), 200);
    return () => clearTimeout(t);
  }, [text]);
  const search = useSearchAgents(connection, flavour, debounced, open);
  const queryClient = useQueryClient();
  // An Enter waiting for its search holds a ticket; typing, choosing or leaving takes it back,
  // so a late answer never opens an agent after the user moved on.
  const ticket = useRef(0);
  useEffect(() => () => void ticket.current++, []);
  // So does a switch of profile (or token) or API: an answer from the one before is not this one's to open.
  const scope = [...connectionKey(connection), connection.profileId, flavour].join(' ');
  useEffect(() => {
    ticket.current++;
  }, [scope]);

  const typed = text.trim();
  // While the search for newer text answers, the last list stays, narrowed by name (what the
  // search matches) to what is typed: no flicker, and an option pressed meanwhile is still the
  // agent it showed.
  // Narrowed to what is typed, not to what was last asked: in the 200 ms before the search for
  // new letters is asked, the list was the older, wider one, and an arrow and Enter opened an
  // agent the letters already ruled out.
  const answered = search.isSuccess && !search.isPlaceholderData;
  const agents = answered && debounced === typed ? search.data : (search.data ?? []).filter((a) => a.name.toLowerCase().includes(typed.toLowerCase()));
  const options: Option[] = agents.slice(0, AGENT_OPTIONS_SHOWN).map((agent) => ({ kind: 'agent', agent }));
  const notShown = agents.length - Math.min(agents.length, AGENT_OPTIONS_SHOWN);
  if (typed && LOOKS_LIKE_ID.test(typed) && !agents.some((a) => a.agent_id === typed)) options.push({ kind: 'id', id: typed });
  const active = activeKey === null ? -1 : options.findIndex((o) => keyOf(o) === activeKey);
  const optionId = (i: number) => `${ids.list}-${i}`;

  const choose = (o: Option) => {
    ticket.current++;
    onSelect(o.kind === 'agent' ? o.agent.agent_id : o.id);
    setOpen(false);
    setActiveKey(null);
    setText('');
  };

  const onKeyDown = (e: React.KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!open) setOpen(true);
      const n = options.length;
      if (!n) return;
      const next = e.key === 'ArrowDown' ? (active + 1) % n : active <= 0 ? n - 1 : active - 1;
      setActiveKey(keyOf(options[next]!));
    } else if (e.key === 'Enter') {
      // The request side's Ctrl/Cmd+Enter runs; a plain Enter here picks.
      if (e.ctrlKey || e.metaKey) return;
      e.preventDefault();
      if (options[active]) return choose(options[active]);
      if (!typed) return;
      // Text pasted (or typed fast) and Enter at once: the list may not have answered for it
      // yet, so the agents it names are asked for now; an id is opened only if none is named.
      if (debounced === typed && answered) {
        const pick = pickFor(typed, agents);
        if (pick) choose(pick);
        return;
      }
      const mine = ++ticket.current;
      void queryClient
        .fetchQuery(searchAgentsQueryOptions(connection, flavour, typed))
        .catch(() => [])
        .then((found) => {
          if (ticket.current !== mine) return;
          const pick = pickFor(typed, found.length ? found : agents);
          if (pick) choose(pick);
        });
    } else if (e.key === 'Escape') {
      if (open || text) {
        e.preventDefault();
        e.stopPropagation();
        setOpen(false);
        setActiveKey(null);
        if (!open) setText('');
      }
    }
  };

  return (
    <div className="picker">
      <label htmlFor={ids.input}>Agent</label>
      <div className="combobox">
        <input
          ref={inputRef}
          id={ids.input}
          role="combobox"
          aria-expanded={open}
          aria-controls={ids.list}
          aria-autocomplete="list"
          aria-activedescendant={open && active >= 0 ? optionId(active) : undefined}
          aria-describedby={ids.hint}
          value={text}
          placeholder={selectedId ? 'Search another agent by name, or type an id' : 'Search agents by name, or type an id'}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => {
            ticket.current++;
            setText(e.target.value);
            setOpen(true);
            setActiveKey(null);
          }}
          onFocus={() => setOpen(true)}
          onClick={() => setOpen(true)}
          onBlur={() => setOpen(false)}
          onKeyDown={onKeyDown}
        />
        {open && (
          // tabIndex -1: Chromium makes a scrolling box a Tab stop of its own; Tab landed on the list,
          // whose closing on the input's blur then dropped focus on the page's body.
          <ul id={ids.list} role="listbox" aria-label="Agents" className="listbox" tabIndex={-1}>
            {search.isFetching && !answered && <li className="muted" role="presentation">Searching…</li>}
            {search.isError && (
              <li className="error" role="presentation">
                Search failed: {search.error instanceof ApiError ? `${search.error.status || ''} ${search.error.detail}` : String(search.error)}{' '}
                {search.error instanceof ApiError && search.error.status === 403 && 'Listing agents needs a token with agents.run; with the bundled service, the Connection page mints one.'}
                {search.error instanceof ApiError && search.error.status === 401 && 'Paste a valid token in the connection panel.'}
              </li>
            )}
            {answered && debounced === typed && options.length === 0 && <li className="muted" role="presentation">No agent matches “{debounced}”. Type its id instead.</li>}
            {options.map((o, i) => (
              <li
                key={keyOf(o)}
                id={optionId(i)}
                role="option"
                aria-selected={i === active}
                className={o.kind === 'agent' && o.agent.agent_id === selectedId ? 'current' : undefined}
                // Chosen on mousedown, before the input's blur closes the list.
                onMouseDown={(e) => {
                  e.preventDefault();
                  choose(o);
                }}
              >
                {o.kind === 'agent' ? (
                  <>
                    <span className="option-name">{o.agent.name}</span> <code className="muted">{o.agent.agent_id}</code>
                    <span className="option-meta">{capabilitiesOf(o.agent)}</span>
                  </>
                ) : (
                  <>
                    Open agent id <code>{o.id}</code>
                  </>
                )}
              </li>
            ))}
            {notShown > 0 && (
              <li className="muted" role="presentation">
                {formatCount(notShown)} more: type more of a name to narrow.
              </li>
            )}
          </ul>
        )}
      </div>
      <p id={ids.hint} className="hint">
        Arrow keys to move, Enter to open. Each agent has its own address, <code>/runs/&lt;agent id&gt;</code>.
      </p>
    </div>
  );
}
