import { useLiveQuery } from 'dexie-react-hooks';
import { memo, useState } from 'react';
import { TableScroll } from '../../../components/table-scroll';
import { formatCount } from '../../../lib/format';
import { useFocusNext } from '../../../lib/use-focus-next';
import { consoleDb } from '../../../db/console-db';
import { policyText, type Suite, type SuiteCase } from '../../../engine/suites/suite';
import { removeCase, restoreCase, updateCase } from '../model/suite-db';
import { CaseEditor } from './suite-case-editor';

/** Cases listed at first, and more at each Show more: a thousand rows in the page made every layout while a suite ran a long task. */
export const CASES_PAGE = 100;

/** Each case's last result: passed, failed, or (rows) how many of each. */
function lastResultText(r: { passed: number; failed: number; stopped: number } | undefined): { text: string; tone: string } {
  if (!r) return { text: 'not run yet', tone: 'idle' };
  const n = r.passed + r.failed + r.stopped;
  if (n === 1) return r.passed ? { text: 'passed', tone: 'done' } : r.failed ? { text: 'failed', tone: 'failed' } : { text: 'stopped', tone: 'stopped' };
  return { text: `${r.passed} of ${n} rows passed`, tone: r.failed ? 'failed' : r.stopped ? 'stopped' : 'done' };
}

/**
 * The suite's cases, each with its last result, edited in place. Memoized: the page renders again
 * at every progress of a suite run, and a thousand cases rendered each time held it for long tasks.
 */
export const SuiteCases = memo(function SuiteCases({ suite, lastRunId }: { suite: Suite; lastRunId?: string }) {
  const last = useLiveQuery(async () => {
    const byCase = new Map<string, { passed: number; failed: number; stopped: number }>();
    if (!lastRunId) return byCase;
    await consoleDb()
      .caseResults.where('suiteRunId')
      .equals(lastRunId)
      .each((r) => {
        const c = byCase.get(r.caseId) ?? { passed: 0, failed: 0, stopped: 0 };
        c[r.verdict]++;
        byCase.set(r.caseId, c);
      });
    return byCase;
  }, [lastRunId]);
  const [editing, setEditing] = useState<string>();
  const [shown, setShown] = useState(CASES_PAGE);
  // Every case removed from this suite on this visit, newest last: Undo puts them back one by
  // one, newest first, so a second Remove never loses the first.
  const [removals, setRemovals] = useState<{ suiteId: string; removed: SuiteCase; index: number }[]>([]);
  const [lost, setLost] = useState<string>();
  // The Remove button is gone with its row: focus goes to the Undo beside the notice, once shown;
  // after the last Undo, to the list's heading.
  const { focusNext, takeFocus } = useFocusNext<'undo' | 'heading'>();
  const mine = removals.filter((r) => r.suiteId === suite.id);
  const lastRemoved = mine.at(-1);
  const remove = async (c: SuiteCase) => {
    const taken = await removeCase(suite.id, c.id);
    if (!taken) return;
    focusNext('undo');
    setLost(undefined);
    setRemovals((list) => [...list, { suiteId: suite.id, ...taken }]);
  };
  const undo = async () => {
    if (!lastRemoved) return;
    const back = await restoreCase(lastRemoved.suiteId, lastRemoved.removed, lastRemoved.index);
    setRemovals((list) => list.filter((r) => r !== lastRemoved));
    if (!back) setLost(`“${lastRemoved.removed.name}” could not be put back: the suite is no longer in this browser.`);
    focusNext(mine.length > 1 ? 'undo' : 'heading');
  };
  return (
    <section className="suite-cases" aria-labelledby="suite-cases-head">
      <h2 id="suite-cases-head" ref={takeFocus('heading')} tabIndex={-1}>
        Cases
      </h2>
      {lost && (
        <p className="error" role="alert">
          {lost}
        </p>
      )}
      {lastRemoved && (
        <p className="notice" role="status">
          Removed “{lastRemoved.removed.name}”{mine.length > 1 ? ` (and ${mine.length - 1} more on this visit: Undo puts back one at a time, the newest first)` : ''}.{' '}
          <button ref={takeFocus('undo')} type="button" onClick={() => void undo()}>
            Undo
          </button>
        </p>
      )}
      {suite.cases.length === 0 && (
        <p className="muted">No case yet: on a finished run (History, or a conversation’s turn) choose <strong>Save as test case</strong>, or import a suite file.</p>
      )}
      {suite.cases.length > 0 && (
        <TableScroll label="Cases of the suite">
          <table className="suite-case-table">
            <thead>
              <tr>
                <th scope="col">Case</th>
                <th scope="col">Request</th>
                <th scope="col">Assertions</th>
                <th scope="col">Last result</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {suite.cases.slice(0, shown).map((c: SuiteCase) => {
                const result = lastResultText(last?.get(c.id));
                return (
                  <tr key={c.id}>
                    <td>{c.name}</td>
                    <td>
                      <code>{c.agent.id}</code> · {c.api === 'legacy' ? 'legacy' : 'current'} {c.mode}
                      {c.rows?.length ? ` · ${c.rows.length} rows` : ''}
                      {c.mode === 'durable' && <span className="muted"> · {policyText(c.policy)}</span>}
                    </td>
                    <td>{c.assertions.length}</td>
                    <td>
                      <span className={`status status-${result.tone}`}>{result.text}</span>
                    </td>
                    <td>
                      <div className="toolbar">
                        <button type="button" aria-expanded={editing === c.id} onClick={() => setEditing(editing === c.id ? undefined : c.id)}>
                          Edit<span className="visually-hidden"> {c.name}</span>
                        </button>
                        <button type="button" onClick={() => void remove(c)}>
                          Remove<span className="visually-hidden"> {c.name}</span>
                        </button>
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
      {suite.cases.length > shown && (
        <button type="button" onClick={() => setShown(shown + CASES_PAGE)}>
          Show {formatCount(Math.min(CASES_PAGE, suite.cases.length - shown))} more cases of {formatCount(suite.cases.length - shown)}
        </button>
      )}
      {editing !== undefined &&
        suite.cases
          .filter((c) => c.id === editing)
          .map((c) => (
            <CaseEditor
              key={c.id}
              value={c}
              onCancel={() => setEditing(undefined)}
              onSave={async (next) => {
                await updateCase(suite.id, next);
                setEditing(undefined);
              }}
            />
          ))}
    </section>
  );
});
