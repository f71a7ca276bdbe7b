import { useId } from 'react';
import type { RunSettings } from '../../../engine/run-settings';
import { FaultOptions } from './fault-options';

/**
 * API (current or legacy), answer mode and faults to inject of the agent's next run;
 * remembered per agent. `bundled`: the profile connects to the bundled reference service.
 */
export function RunOptions({ settings, onChange, bundled }: { settings: RunSettings; onChange(patch: Partial<RunSettings>): void; bundled: boolean }) {
  const ids = { flavour: useId(), mode: useId(), timeout: useId(), durable: useId() };
  return (
    <div className="run-options">
      <fieldset className="radios">
        <legend>API</legend>
        <label>
          <input type="radio" name={ids.flavour} checked={settings.flavour === 'platform'} onChange={() => onChange({ flavour: 'platform' })} /> Current (
          <code>/api/agents/&#123;id&#125;/runs</code>)
        </label>
        <label>
          <input type="radio" name={ids.flavour} checked={settings.flavour === 'legacy'} onChange={() => onChange({ flavour: 'legacy' })} /> Legacy (
          <code>/rest/api/v1/agents/runs/…</code>, deprecated)
        </label>
      </fieldset>
      <fieldset className="radios">
        <legend>Answer</legend>
        <label>
          <input type="radio" name={ids.mode} checked={settings.mode === 'stream'} onChange={() => onChange({ mode: 'stream' })} /> Stream (live events)
        </label>
        <label>
          <input type="radio" name={ids.mode} checked={settings.mode === 'wait'} onChange={() => onChange({ mode: 'wait' })} /> Wait (one answer)
        </label>
        <label>
          <input type="radio" name={ids.mode} checked={settings.mode === 'durable'} disabled={settings.flavour === 'legacy'} aria-describedby={ids.durable} onChange={() => onChange({ mode: 'durable' })} />{' '}
          Durable (kept by the service, followed by its id)
        </label>
        <p id={ids.durable} className="hint">
          {settings.flavour === 'legacy'
            ? 'Durable runs exist only on the current API.'
            : 'Durable: the service answers at once with a run id; the run goes on without this page, and may pause to ask you to approve a tool.'}
        </p>
      </fieldset>
      {settings.mode === 'wait' && (
        <div className="field">
          <label htmlFor={ids.timeout}>Client timeout, seconds (empty: none)</label>
          <input id={ids.timeout} type="number" min={1} value={settings.timeoutSec} onChange={(e) => onChange({ timeoutSec: e.target.value })} />
        </div>
      )}
      <FaultOptions fields={settings.fault} onChange={(fault) => onChange({ fault })} bundled={bundled} />
      <p className="hint">Remembered for this agent in this browser.</p>
    </div>
  );
}
