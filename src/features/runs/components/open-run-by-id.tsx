import { useId, useState } from 'react';
import { useNavigate } from 'react-router';

/** Any durable run the token may see, by its agent and run ids: reading it sends nothing else. */
export function OpenRunById({ agentId }: { agentId: string }) {
  const navigate = useNavigate();
  const ids = { agent: useId(), run: useId() };
  const [agent, setAgent] = useState(agentId);
  const [run, setRun] = useState('');
  return (
    <details className="open-run">
      <summary>Open a durable run by id</summary>
      <form
        className="input-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (agent.trim() && run.trim()) navigate(`/runs/${encodeURIComponent(agent.trim())}/${encodeURIComponent(run.trim())}`);
        }}
      >
        <label htmlFor={ids.agent}>Agent id</label>
        <input id={ids.agent} value={agent} onChange={(e) => setAgent(e.target.value)} required />
        <label htmlFor={ids.run}>Run id</label>
        <input id={ids.run} value={run} onChange={(e) => setRun(e.target.value)} required />
        <button type="submit">Open run</button>
      </form>
    </details>
  );
}
