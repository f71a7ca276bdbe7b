import { useLiveQuery } from 'dexie-react-hooks';
import { useEffect, useId, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { PageTitle } from '../../../components/page-title';
import { formatCount } from '../../../lib/format';
import { consoleDb } from '../../../db/console-db';
import { createSuite } from '../model/suite-db';
import { readSuiteFile } from '../model/read-suite-file';
import { MAX_SUITE_FILE_BYTES } from '../../../engine/suites/suite-file';

/** Each suite's newest run, for the list. */
async function suitesWithLastRun() {
  const db = consoleDb();
  const suites = await db.suites.orderBy('updatedAt').reverse().toArray();
  const runs = await db.suiteRuns.orderBy('startedAt').reverse().toArray();
  return suites.map((s) => ({ suite: s, last: runs.find((r) => r.suiteId === s.id) }));
}

/**
 * /suites: the agent test suites kept in this browser, each with its last run; a new suite, or
 * one imported from a file (**Export suite** writes them; `npm run suite` runs them in CI).
 */
export function SuitesPage() {
  const id = useId();
  const navigate = useNavigate();
  const list = useLiveQuery(suitesWithLastRun, []);
  const [name, setName] = useState('');
  const [problems, setProblems] = useState<string[]>();
  // The file being checked (a large one takes a while, off the page's thread), with its
  // controller: a file picked next, Stop checking, or leaving the page ends that check, and
  // nothing comes of it (it took the user to its suite from wherever they had gone).
  const [reading, setReading] = useState<{ name: string; controller: AbortController }>();
  const current = useRef<AbortController>(undefined);
  useEffect(() => () => current.current?.abort(new DOMException('The page was left.', 'AbortError')), []);
  const file = useRef<HTMLInputElement>(null);
  const importFile = async (f: File) => {
    current.current?.abort(new DOMException('Another file was picked.', 'AbortError'));
    const controller = new AbortController();
    current.current = controller;
    setProblems(undefined);
    if (f.size > MAX_SUITE_FILE_BYTES) return setProblems([`${f.name}: ${formatCount(f.size)} bytes; a suite file may be at most ${MAX_SUITE_FILE_BYTES / 1024 / 1024} MB (${formatCount(MAX_SUITE_FILE_BYTES)} bytes).`]);
    setReading({ name: f.name, controller });
    try {
      const parsed = await readSuiteFile(await f.text(), f.name, controller.signal);
      if (controller.signal.aborted) return;
      if (!parsed.ok) return setProblems(parsed.problems);
      const suite = await createSuite(parsed.file.suite.name, parsed.file.cases, { distinct: true });
      if (!controller.signal.aborted) navigate(`/suites/${encodeURIComponent(suite.id)}`);
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    } finally {
      setReading((r) => (r?.controller === controller ? undefined : r));
    }
  };
  return (
    <div className="suites">
      <PageTitle title="Suites" />
      <h1>Agent test suites</h1>
      <p className="muted">
        Test cases saved from runs (<strong>Save as test case</strong> in History or on a conversation’s turn), with assertions; run a suite here, or in CI with{' '}
        <code>npm run suite</code>. Kept in this browser; tokens are never stored or exported.
      </p>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          if (!name.trim()) return;
          void createSuite(name, [], { distinct: true }).then((s) => navigate(`/suites/${encodeURIComponent(s.id)}`));
        }}
      >
        <label htmlFor={`${id}-name`}>New suite</label>
        <input id={`${id}-name`} value={name} onChange={(e) => setName(e.target.value)} placeholder="name" />
        <button type="submit" disabled={!name.trim()}>
          Create suite
        </button>
        <button type="button" onClick={() => file.current?.click()}>
          Import suite…
        </button>
        <input
          ref={file}
          type="file"
          accept=".json,application/json"
          className="visually-hidden"
          tabIndex={-1}
          aria-label="Suite file to import"
          onChange={(e) => {
            const f = e.target.files?.[0];
            e.target.value = '';
            if (f) void importFile(f).catch((err: unknown) => setProblems([`${f.name}: ${err instanceof Error ? err.message : String(err)}`]));
          }}
        />
      </form>
      <p role="status" className="muted">
        {reading && (
          <>
            <span>Checking {reading.name}…</span>{' '}
            <button
              type="button"
              onClick={() => {
                reading.controller.abort(new DOMException('Stopped by the user.', 'AbortError'));
                setProblems([`${reading.name}: you stopped checking it; nothing was imported.`]);
              }}
            >
              Stop checking
            </button>
          </>
        )}
      </p>
      {problems && (
        <div className="error-panel" role="alert">
          <p>Not imported:</p>
          <ul>
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
      {list?.length === 0 && <p className="muted">No suite yet. Save a finished run as a test case, or create a suite here.</p>}
      <ul className="suite-list">
        {list?.map(({ suite, last }) => (
          <li key={suite.id}>
            <Link to={`/suites/${encodeURIComponent(suite.id)}`}>{suite.name}</Link>{' '}
            <span className="muted">
              · {formatCount(suite.cases.length)} {suite.cases.length === 1 ? 'case' : 'cases'}
              {last
                ? ` · last run ${new Date(last.startedAt).toLocaleString()}: ${last.summary ? `${formatCount(last.summary.passed)} passed, ${formatCount(last.summary.failed)} failed` : last.status}`
                : ' · never run'}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
