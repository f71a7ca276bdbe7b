import { useLiveQuery } from 'dexie-react-hooks';
import { memo, useId, useState } from 'react';
import { formatCount } from '../../../lib/format';
import { consoleDb, type StoredSuiteRun } from '../../../db/console-db';
import { compareSuiteRuns } from '../../../engine/suites/summary';

const label = (r: StoredSuiteRun) =>
  `${new Date(r.startedAt).toLocaleString()} · ${r.target.profileLabel}${r.target.api ? ` · ${r.target.api === 'legacy' ? 'legacy' : 'current'} API` : ''}${r.target.agentId ? ` · agent ${r.target.agentId}` : ''}`;

function RunChoice({ id, label: text, runs, value, onChange }: { id: string; label: string; runs: readonly StoredSuiteRun[]; value: string; onChange: (id: string) => void }) {
  return (
    <div className="field">
      <label htmlFor={id}>{text}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {runs.map((r) => (
          <option key={r.id} value={r.id}>
            {label(r)}
          </option>
        ))}
      </select>
    </div>
  );
}

const OUTCOME_WORDS = { regression: 'Regression', fixed: 'Fixed', new: 'Only in B', gone: 'Only in A', same: 'Same' } as const;

/**
 * Two runs of the suite compared: cases whose outcome changed (regressions first), answers that
 * changed as a word diff (the one Compare uses), and timings that moved past the stated threshold.
 * Legacy against current, across the suite, answers "would moving off the deprecated endpoints change any answer?".
 */
export const SuiteCompare = memo(function SuiteCompare({ runs }: { runs: readonly StoredSuiteRun[] }) {
  const id = useId();
  // What was chosen by hand, else the two newest runs, older as A: the list grows while the page
  // is open (this shows up once one run has ended, while the next goes on), and a default fixed at
  // the first draw left A on no run at all, so nothing was compared.
  const [chosenA, setA] = useState<string>();
  const [chosenB, setB] = useState<string>();
  const kept = (id: string | undefined) => (id !== undefined && runs.some((r) => r.id === id) ? id : undefined);
  const a = kept(chosenA) ?? runs[1]?.id ?? '';
  const b = kept(chosenB) ?? runs[0]?.id ?? '';
  const comparison = useLiveQuery(async () => {
    if (!a || !b || a === b) return undefined;
    const [ra, rb] = await Promise.all([consoleDb().caseResults.where('suiteRunId').equals(a).toArray(), consoleDb().caseResults.where('suiteRunId').equals(b).toArray()]);
    return compareSuiteRuns(ra, rb);
  }, [a, b]);
  return (
    <section className="suite-compare panel" aria-labelledby={`${id}-head`}>
      <h2 id={`${id}-head`}>Compare two runs</h2>
      <div className="suite-run-options">
        <RunChoice id={`${id}-a`} label="A (before)" runs={runs} value={a} onChange={setA} />
        <RunChoice id={`${id}-b`} label="B (after)" runs={runs} value={b} onChange={setB} />
      </div>
      {a === b && <p className="muted">Choose two different runs.</p>}
      {comparison && (
        <>
          <h3>Outcomes that changed</h3>
          {comparison.outcomes.length === 0 ? (
            <p className="muted">No case changed its outcome.</p>
          ) : (
            <ul className="suite-changes">
              {comparison.outcomes.map((c) => (
                <li key={c.key}>
                  <span className={`status status-${c.outcome === 'regression' ? 'failed' : c.outcome === 'fixed' ? 'done' : 'idle'}`}>{OUTCOME_WORDS[c.outcome]}</span> {c.name}{' '}
                  <span className="muted">
                    ({c.a ?? '–'} → {c.b ?? '–'}){c.newlyFailing.length > 0 && `: now fails ${c.newlyFailing.join('; ')}`}
                  </span>
                </li>
              ))}
            </ul>
          )}
          <h3>Answers that changed</h3>
          {comparison.answers.length === 0 ? (
            <p className="muted">Every case answered the same in both runs.</p>
          ) : (
            <ul className="suite-changes">
              {comparison.answers.map((c) => (
                <li key={c.key}>
                  <p>
                    <strong>{c.name}</strong>
                    {c.answer?.tooDifferent && <span className="muted"> (too different to diff word by word: shown whole)</span>}
                  </p>
                  <p className="word-diff">
                    {c.answer!.parts.map((p, i) => (p.removed ? <del key={i}>{p.value}</del> : p.added ? <ins key={i}>{p.value}</ins> : <span key={i}>{p.value}</span>))}
                  </p>
                </li>
              ))}
            </ul>
          )}
          <h3>Timings that moved</h3>
          <p className="hint">
            A timing moved when it changed by more than {formatCount(comparison.threshold.ms)} ms and by more than {Math.round(comparison.threshold.ratio * 100)}% of A’s.
          </p>
          {comparison.timings.length === 0 ? (
            <p className="muted">No timing moved past the threshold.</p>
          ) : (
            <ul className="suite-changes">
              {comparison.timings.map((c) => (
                <li key={c.key}>
                  {c.name}: {c.timings.map((t) => `${t.label} ${formatCount(t.a)} → ${formatCount(t.b)} ms`).join(', ')}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
});
