import { useLiveQuery } from 'dexie-react-hooks';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import type { Decision } from '../../../contract/durable-runs';
import { consoleDb } from '../../../db/console-db';
import { runDetails, type HistoryEntry } from '../../../db/history';
import { isTerminal, type RunStatus } from '../../../engine/run-machine';
import { partsOf } from '../../../engine/run-request';
import { questionOf } from '../../../engine/thread';
import { assertionsFromRun, describeAssertion, observationOf, type LensChecker } from '../../../engine/suites/assertions';
import { policyFromRun, toolsAsked } from '../../../engine/suites/policy';
import { newSuiteId, policyText, type ApprovalPolicy, type Suite, type SuiteCase } from '../../../engine/suites/suite';
import { addCase, createSuite } from '../model/suite-db';
import { useFocusNext } from '../../../lib/use-focus-next';
import { escapeCancels } from '../../../lib/use-page-escape';

/** A case's name from its run: the agent and the question (or the first input values). */
function nameOf(entry: HistoryEntry): string {
  const parts = partsOf(entry.request);
  const what = parts.messages ? questionOf(entry.request) : Object.values(parts.input ?? {}).filter((v) => typeof v === 'string' && v).slice(0, 2).join(', ');
  return `${entry.request.agentName ?? entry.request.agentId} ${entry.request.mode}${what ? `: ${what.slice(0, 60)}` : ''}`;
}

/** The case of a finished run, its assertions filled so that the run passes them. */
export async function caseOfRun(entry: HistoryEntry, name: string, policy: ApprovalPolicy | undefined): Promise<SuiteCase> {
  const details = (await runDetails(entry.id)) ?? {};
  let lens: LensChecker | undefined;
  try {
    lens = await (await import('../../../lib/spec-lens/lens')).loadLens();
  } catch {
    // Without the lens, the case simply has no spec-lens assertion.
  }
  const parts = partsOf(entry.request);
  return {
    id: newSuiteId('case'),
    name,
    agent: { id: entry.request.agentId, ...(entry.request.agentName !== undefined && { name: entry.request.agentName }) },
    api: entry.request.flavour,
    mode: entry.request.mode,
    ...parts,
    ...(entry.request.timeoutMs !== undefined && { timeoutMs: entry.request.timeoutMs }),
    ...(entry.request.mode === 'durable' && { policy: policy ?? { kind: 'approve-all' } }),
    assertions: assertionsFromRun(observationOf(entry, details), lens ? { lens } : {}),
  };
}

const NEW = '__new__';

/**
 * **Save as test case** on a finished run: into a suite chosen, or one created and named here.
 * A durable run's approval policy is offered from what the run asked (each tool as it was decided).
 */
export function SaveTestCase({ entry }: { entry: HistoryEntry }) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const suites = useLiveQuery(async (): Promise<Suite[]> => (open ? consoleDb().suites.orderBy('updatedAt').reverse().toArray() : []), [open]);
  const [suiteId, setSuiteId] = useState<string>('');
  const [suiteName, setSuiteName] = useState('');
  const [name, setName] = useState(() => nameOf(entry));
  const asked = toolsAsked(entry.transitions);
  const [policy, setPolicy] = useState<ApprovalPolicy>(() => policyFromRun(entry.transitions));
  const [saved, setSaved] = useState<{ suiteId: string; suiteName: string; assertions: string[] }>();
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);
  // Where focus goes when the panel closes: the notice once saved, else back to the button that opened it.
  const { focusNext, takeFocus } = useFocusNext<'notice' | 'button'>();
  const close = () => {
    focusNext('button');
    setOpen(false);
  };
  if (!isTerminal(entry.status as RunStatus)) return null;
  const chosen = suiteId || (suites?.[0]?.id ?? NEW);
  const save = async () => {
    setError(undefined);
    if (!name.trim()) return setError('Give the case a name.');
    if (chosen === NEW && !suiteName.trim()) return setError('Name the new suite.');
    setSaving(true);
    try {
      const c = await caseOfRun(entry, name.trim(), policy);
      const suite = chosen === NEW ? await createSuite(suiteName, [c]) : suites!.find((s) => s.id === chosen)!;
      if (chosen !== NEW) await addCase(suite.id, c);
      setSaved({ suiteId: suite.id, suiteName: suite.name, assertions: c.assertions.map(describeAssertion) });
      focusNext('notice');
      setOpen(false);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setSaving(false);
    }
  };
  const decide = (toolId: string, decision: Decision) => {
    const base = policy.kind === 'per-tool' ? policy : { kind: 'per-tool' as const, tools: asked.map((t) => ({ toolId: t.toolId, name: t.name, decision: policy.kind === 'reject-all' ? ('REJECT' as const) : ('APPROVE' as const) })), otherwise: 'REJECT' as const };
    setPolicy({ ...base, tools: base.tools.map((t) => (t.toolId === toolId ? { ...t, decision } : t)) });
  };
  return (
    <>
      <button ref={takeFocus('button')} type="button" aria-expanded={open} onClick={() => (open ? close() : setOpen(true))} title="Adds this run to a test suite, with assertions it passes">
        Save as test case
      </button>
      {saved && !open && (
        <p ref={takeFocus('notice')} tabIndex={-1} className="notice" role="status">
          Saved to <Link to={`/suites/${encodeURIComponent(saved.suiteId)}`}>{saved.suiteName}</Link> with {saved.assertions.length} assertions: {saved.assertions.join('; ')}.
        </p>
      )}
      {open && (
        <div
          className="panel save-case"
          role="group"
          aria-labelledby={`${id}-head`}
          onKeyDown={(e) => escapeCancels(e, close)}
        >
          <p id={`${id}-head`}>
            <strong>Save as test case</strong> <span className="muted">— the request as it was sent, and assertions this run passes (edit them in the suite).</span>
          </p>
          <div className="field">
            <label htmlFor={`${id}-suite`}>Suite</label>
            {/* Opened, the panel takes focus at its first field. */}
            <select id={`${id}-suite`} value={chosen} onChange={(e) => setSuiteId(e.target.value)} autoFocus>
              {suites?.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name} ({s.cases.length} {s.cases.length === 1 ? 'case' : 'cases'})
                </option>
              ))}
              <option value={NEW}>New suite…</option>
            </select>
          </div>
          {chosen === NEW && (
            <div className="field">
              <label htmlFor={`${id}-suite-name`}>Name of the new suite</label>
              <input id={`${id}-suite-name`} value={suiteName} onChange={(e) => setSuiteName(e.target.value)} />
            </div>
          )}
          <div className="field">
            <label htmlFor={`${id}-name`}>Case name</label>
            <input id={`${id}-name`} value={name} onChange={(e) => setName(e.target.value)} />
          </div>
          {entry.request.mode === 'durable' && (
            <fieldset>
              <legend>Approvals the run asks for</legend>
              <label>
                <input type="radio" name={`${id}-policy`} checked={policy.kind === 'approve-all'} onChange={() => setPolicy({ kind: 'approve-all' })} /> Approve all
              </label>{' '}
              <label>
                <input type="radio" name={`${id}-policy`} checked={policy.kind === 'reject-all'} onChange={() => setPolicy({ kind: 'reject-all' })} /> Reject all
              </label>
              {asked.map((t) => (
                <div key={t.toolId} className="input-row">
                  <label htmlFor={`${id}-${t.toolId}`}>
                    {t.name} <code className="muted">{t.toolId}</code>
                  </label>
                  <select id={`${id}-${t.toolId}`} value={policy.kind === 'per-tool' ? (policy.tools.find((x) => x.toolId === t.toolId)?.decision ?? 'REJECT') : policy.kind === 'reject-all' ? 'REJECT' : 'APPROVE'} onChange={(e) => decide(t.toolId, e.target.value as Decision)}>
                    <option value="APPROVE">Approve</option>
                    <option value="REJECT">Reject</option>
                  </select>
                </div>
              ))}
              <p className="hint">Policy: {policyText(policy)}.</p>
            </fieldset>
          )}
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          <div className="toolbar">
            <button type="button" className="primary" disabled={saving} onClick={() => void save()}>
              {saving ? 'Saving…' : 'Save case'}
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
          </div>
        </div>
      )}
    </>
  );
}
