import { useEffect, useId, useRef, useState, useSyncExternalStore } from 'react';
import { formatCount } from '../../../lib/format';
import { useConnection, useConnections } from '../../../lib/connection';
import type { Flavour } from '../../../engine/run-request';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../../../engine/suites/runner';
import { itemsOf, type Suite } from '../../../engine/suites/suite';
import type { StoredSuiteRun } from '../../../db/console-db';
import { SUITE_RUNS_KEPT } from '../model/suite-db';
import { suiteRuns, type LiveSuiteRun } from '../model/suite-runs';
import type { SuiteSummary } from '../../../engine/suites/summary';

/** The run of this suite this tab runs now (or ran last), live. */
export function useLiveSuiteRun(suiteId: string): LiveSuiteRun | undefined {
  useSyncExternalStore(suiteRuns.subscribe, suiteRuns.getVersion);
  return suiteRuns.of(suiteId);
}

const ms = (n: number | undefined) => (n === undefined ? '–' : `${formatCount(n)} ms`);

export function SummaryView({ summary }: { summary: SuiteSummary }) {
  return (
    <div className="suite-summary">
      <p>
        <strong className="status status-done">{formatCount(summary.passed)} passed</strong>{' '}
        <strong className={summary.failed ? 'status status-failed' : 'status'}>{formatCount(summary.failed)} failed</strong>
        {summary.stopped > 0 && <span className="status status-stopped">{formatCount(summary.stopped)} stopped</span>} of {formatCount(summary.total)}
      </p>
      <table className="suite-timings">
        <caption className="visually-hidden">Timings of the suite run</caption>
        <thead>
          <tr>
            <th scope="col">Timing</th>
            <th scope="col">p50</th>
            <th scope="col">p95</th>
            <th scope="col">runs</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">First event</th>
            <td>{ms(summary.firstEvent.p50)}</td>
            <td>{ms(summary.firstEvent.p95)}</td>
            <td>{formatCount(summary.firstEvent.n)}</td>
          </tr>
          <tr>
            <th scope="row">Duration</th>
            <td>{ms(summary.duration.p50)}</td>
            <td>{ms(summary.duration.p95)}</td>
            <td>{formatCount(summary.duration.n)}</td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}

/**
 * What this browser keeps of a suite's runs, said before it lets one go: the newest
 * SUITE_RUNS_KEPT, apart from History (neither one's limits let the other's runs go).
 */
export function RunsKeptNote({ runs }: { runs: readonly StoredSuiteRun[] }) {
  // As startSuiteRun does: past the newest, the runs one more would push out, but a run going on in some tab.
  const goes = [...runs].sort((a, b) => b.startedAt - a.startedAt).slice(SUITE_RUNS_KEPT - 1).filter((r) => r.status !== 'running');
  return (
    <p className="hint">
      This browser keeps the newest {SUITE_RUNS_KEPT} runs of a suite, apart from History: a suite’s runs never push a run out of History, nor History’s limits a suite run.
      {goes.length > 0 && ` The next Run suite lets go of the run of ${goes.map((r) => new Date(r.startedAt).toLocaleString()).join(', ')}.`}
    </p>
  );
}

/**
 * **Run suite**: every case (each row of a case is a run), `concurrency` at a time (4 by
 * default), against this profile or another, the API each case was saved with or the other,
 * its agent or another id; progress live, **Stop** ends it.
 */
export function SuiteRunPanel({ suite, live, onStarted }: { suite: Suite; live: LiveSuiteRun | undefined; onStarted(): void }) {
  const id = useId();
  const connection = useConnection();
  const connections = useConnections();
  // Unchosen, it is the profile in use: a switch of profile in the header while this page is open is what Run suite then uses.
  const [chosenProfileId, setProfileId] = useState<string>();
  const profileId = chosenProfileId ?? connection.profileId;
  const [api, setApi] = useState<'' | Flavour>('');
  const [agentId, setAgentId] = useState('');
  const [concurrency, setConcurrency] = useState(String(DEFAULT_CONCURRENCY));
  const [error, setError] = useState<string>();
  const running = live !== undefined && !live.ended;
  const total = itemsOf(suite.cases).length;
  // Run suite is disabled while the suite runs, and Stop once it ended: the pressed one lost
  // focus to the page body. Focus moves to the other, unless the user has moved it elsewhere.
  const runButton = useRef<HTMLButtonElement>(null);
  const stopButton = useRef<HTMLButtonElement>(null);
  // Handed off only from a press of one of them: a run started elsewhere (another page, a tab)
  // leaves focus where it is.
  const handOff = useRef(false);
  const wasRunning = useRef(running);
  useEffect(() => {
    if (wasRunning.current === running) return;
    wasRunning.current = running;
    if (!handOff.current) return;
    const active = document.activeElement;
    const lost = !active || active === document.body || active === runButton.current || active === stopButton.current;
    if (lost) (running ? stopButton : runButton).current?.focus();
    // Run suite hands to Stop, and Stop (or the run's end) back to Run suite: then it is done.
    if (!running) handOff.current = false;
  }, [running]);
  const start = () => {
    setError(undefined);
    const n = /^\d+$/.test(concurrency) ? Number(concurrency) : NaN;
    if (!(n >= 1 && n <= MAX_CONCURRENCY)) return setError(`Concurrency is a whole number from 1 to ${MAX_CONCURRENCY}.`);
    const target = profileId === connection.profileId ? connection : connections.connectionOf(profileId);
    if (!target) return setError('That profile is no longer there.');
    if (target.problem) return setError(`Profile ${target.profileLabel}: ${target.problem}`);
    if (!target.token) return setError(`Profile ${target.profileLabel} has no token in this tab: choose it in the connection panel and paste one, or run against another profile.`);
    handOff.current = true;
    const started = suiteRuns.start(suite, target, { concurrency: n, overrides: { ...(api && { api }), ...(agentId.trim() && { agentId: agentId.trim() }) } });
    if (started) onStarted();
    else handOff.current = false;
  };
  return (
    <section className="panel suite-run" aria-labelledby={`${id}-head`}>
      <h2 id={`${id}-head`}>Run suite</h2>
      <div className="suite-run-options">
        <div className="field">
          <label htmlFor={`${id}-profile`}>Against profile</label>
          <select id={`${id}-profile`} value={profileId} onChange={(e) => setProfileId(e.target.value)} disabled={running}>
            {connections.profiles.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
                {p.id === connection.profileId ? ' (current)' : ''}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-api`}>API</label>
          <select id={`${id}-api`} value={api} onChange={(e) => setApi(e.target.value as '' | Flavour)} disabled={running}>
            <option value="">as each case was saved</option>
            <option value="platform">current (/api/agents/…/runs)</option>
            <option value="legacy">legacy (/rest/api/v1/agents/runs/…)</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-agent`}>Agent id</label>
          <input id={`${id}-agent`} value={agentId} onChange={(e) => setAgentId(e.target.value)} placeholder="as each case was saved" disabled={running} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-concurrency`}>Concurrency</label>
          <input id={`${id}-concurrency`} inputMode="numeric" value={concurrency} onChange={(e) => setConcurrency(e.target.value)} disabled={running} size={4} />
        </div>
      </div>
      <div className="toolbar">
        <button type="button" className="primary" disabled={running || total === 0} onClick={start} ref={runButton}>
          Run suite
        </button>
        <button
          type="button"
          disabled={!running || live.stopping}
          onClick={() => {
            if (!live) return;
            handOff.current = true;
            suiteRuns.stop(live.id);
          }}
          ref={stopButton}
        >
          Stop
        </button>
        <span className="hint">
          {total === 0 ? 'The suite has no case yet.' : `${formatCount(total)} ${total === 1 ? 'run' : 'runs'} (${formatCount(suite.cases.length)} ${suite.cases.length === 1 ? 'case' : 'cases'}, each row of a case one run).`}
        </span>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {live && (
        <div className="suite-progress" role="status" aria-live="polite">
          <progress max={live.total} value={live.results.length} aria-label="Suite progress" />{' '}
          {live.ended ? (live.stopping ? 'Stopped: ' : 'Finished: ') : live.stopping ? 'Stopping: ' : 'Running: '}
          {formatCount(live.results.length)} of {formatCount(live.total)} · {formatCount(live.passed)} passed · {formatCount(live.failed)} failed
          {live.stopped > 0 && ` · ${formatCount(live.stopped)} stopped`}
          {!live.ended && ` · ${formatCount(live.running)} in flight`}
        </div>
      )}
      {live?.writeError && (
        <p className="error" role="alert">
          The results could not all be kept in this browser: {live.writeError}
        </p>
      )}
    </section>
  );
}
