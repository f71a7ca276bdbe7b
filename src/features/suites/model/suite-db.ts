/**
 * Suites in the browser database (console-db, version 2): the suites and their cases, each
 * suite run, and each case's result, its run's events and answer kept apart so that listing
 * results never loads them. Suite runs are not History: they never push out what History keeps.
 */

import { Dexie } from 'dexie';
import { consoleDb, type StoredCaseDetails, type StoredCaseResult, type StoredSuiteRun } from '../../../db/console-db';
import type { HistoryDetails } from '../../../engine/history-entry';
import type { CaseResult } from '../../../engine/suites/runner';
import { newSuiteId, type Suite, type SuiteCase } from '../../../engine/suites/suite';

/** Suite runs kept per suite: the newest, enough to compare a few; older ones (and their results) go. */
export const SUITE_RUNS_KEPT = 10;

export async function putSuite(suite: Suite): Promise<void> {
  await consoleDb().suites.put({ ...suite, updatedAt: Date.now() });
}

/** `name`, or the first of "name (2)", "name (3)", … that no suite in `taken` has. */
export function unusedSuiteName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) if (!taken.has(`${name} (${n})`)) return `${name} (${n})`;
}

/**
 * A new suite. With `distinct`, a name another suite has gets a number ("My checks (2)"): a
 * suite imported twice, or created under a name in use, is not a second "My checks" no list or
 * menu can tell apart.
 */
export async function createSuite(name: string, cases: SuiteCase[] = [], { distinct = false } = {}): Promise<Suite> {
  const db = consoleDb();
  const now = Date.now();
  const wanted = name.trim() || 'Untitled suite';
  return db.transaction('rw', db.suites, async () => {
    const taken = distinct ? new Set((await db.suites.toArray()).map((s) => s.name)) : new Set<string>();
    const suite: Suite = { id: newSuiteId(), name: unusedSuiteName(wanted, taken), createdAt: now, updatedAt: now, cases };
    await db.suites.add(suite);
    return suite;
  });
}

/** Adds a case to a suite, in one transaction (another tab may be adding one too). */
export async function addCase(suiteId: string, c: SuiteCase): Promise<void> {
  const db = consoleDb();
  await db.transaction('rw', db.suites, async () => {
    const suite = await db.suites.get(suiteId);
    if (!suite) throw new Error('That suite is no longer in this browser.');
    await db.suites.put({ ...suite, cases: [...suite.cases, c], updatedAt: Date.now() });
  });
}

export async function updateCase(suiteId: string, c: SuiteCase): Promise<void> {
  const db = consoleDb();
  await db.transaction('rw', db.suites, async () => {
    const suite = await db.suites.get(suiteId);
    if (!suite) throw new Error('That suite is no longer in this browser.');
    await db.suites.put({ ...suite, cases: suite.cases.map((x) => (x.id === c.id ? c : x)), updatedAt: Date.now() });
  });
}

/** Takes a case out of its suite; answers the case and where it stood, for an Undo. */
export async function removeCase(suiteId: string, caseId: string): Promise<{ removed: SuiteCase; index: number } | undefined> {
  const db = consoleDb();
  return db.transaction('rw', db.suites, async () => {
    const suite = await db.suites.get(suiteId);
    const index = suite?.cases.findIndex((x) => x.id === caseId) ?? -1;
    if (!suite || index === -1) return undefined;
    await db.suites.put({ ...suite, cases: suite.cases.filter((x) => x.id !== caseId), updatedAt: Date.now() });
    return { removed: suite.cases[index]!, index };
  });
}

/** Puts a removed case back where it stood (or last, if the suite has fewer cases now); false when the suite is gone. */
export async function restoreCase(suiteId: string, removed: SuiteCase, index: number): Promise<boolean> {
  const db = consoleDb();
  return db.transaction('rw', db.suites, async () => {
    const suite = await db.suites.get(suiteId);
    if (!suite) return false;
    if (suite.cases.some((x) => x.id === removed.id)) return true;
    const cases = [...suite.cases];
    cases.splice(Math.min(index, cases.length), 0, removed);
    await db.suites.put({ ...suite, cases, updatedAt: Date.now() });
    return true;
  });
}

async function deleteRuns(ids: readonly string[]): Promise<void> {
  const db = consoleDb();
  await db.transaction('rw', [db.suiteRuns, db.caseResults, db.caseDetails], async () => {
    for (const id of ids) {
      const keys = (await db.caseResults.where('suiteRunId').equals(id).primaryKeys()) as string[];
      await db.caseDetails.bulkDelete(keys);
      await db.caseResults.bulkDelete(keys);
    }
    await db.suiteRuns.bulkDelete(ids as string[]);
  });
}

/**
 * Deletes a suite with its runs and their results, in one transaction: its runs read apart from
 * the deletion let a run started in between (in another tab) outlive its suite, kept for ever.
 */
export async function deleteSuite(id: string): Promise<void> {
  const db = consoleDb();
  await db.transaction('rw', [db.suites, db.suiteRuns, db.caseResults, db.caseDetails], async () => {
    const runs = (await db.suiteRuns.where('suiteId').equals(id).primaryKeys()) as string[];
    await deleteRuns(runs);
    await db.suites.delete(id);
  });
}

/** Keeps a new suite run; refused (nothing kept) when its suite is no longer there, deleted here or in another tab. */
export async function startSuiteRun(run: StoredSuiteRun): Promise<void> {
  const db = consoleDb();
  await db.transaction('rw', [db.suites, db.suiteRuns], async () => {
    if (!(await db.suites.get(run.suiteId))) throw new Error('That suite is no longer in this browser.');
    await db.suiteRuns.put(run);
  });
  // A run a closed tab left `running` is told as interrupted first: else it is never let go, and a suite keeps more runs with every reload mid-run.
  await sweepSuiteRuns(run.id).catch(() => 0);
  const older = (await db.suiteRuns.where('suiteId').equals(run.suiteId).sortBy('startedAt')).reverse().slice(SUITE_RUNS_KEPT);
  // A run still going on in another tab is not taken from under it.
  await deleteRuns(older.filter((r) => r.status !== 'running').map((r) => r.id));
}

/**
 * Writes a batch of results, each with its run's events and answer apart, in one transaction.
 * Answers false, writing nothing, when the suite run is no longer kept (its suite deleted, here
 * or in another tab): results of a run no longer there would never be let go.
 */
export async function writeResults(suiteRunId: string, results: readonly { index: number; result: CaseResult }[]): Promise<boolean> {
  const db = consoleDb();
  const rows: StoredCaseResult[] = [];
  const details: StoredCaseDetails[] = [];
  for (const { index, result } of results) {
    const { details: d, ...rest } = result;
    const id = `${suiteRunId}:${result.key}`;
    rows.push({ ...rest, id, suiteRunId, index });
    details.push({ id, ...d });
  }
  return db.transaction('rw', [db.suiteRuns, db.caseResults, db.caseDetails], async () => {
    if (!(await db.suiteRuns.get(suiteRunId))) return false;
    if (!rows.length) return true;
    await db.caseResults.bulkPut(rows);
    await db.caseDetails.bulkPut(details);
    return true;
  });
}

export async function finishSuiteRun(id: string, patch: Pick<StoredSuiteRun, 'status' | 'summary' | 'endedAt'>): Promise<void> {
  await consoleDb().suiteRuns.update(id, patch);
}

/** Results are read this many at a time: each read is its own task, so the page keeps its frames. */
export const RESULTS_READ_AT_ONCE = 200;

/**
 * A suite run's results in case order, read in pieces of RESULTS_READ_AT_ONCE: 1,000 results
 * read in one request were one main-thread task of about 50 ms (their deserialization).
 * Each piece goes on after the last case index read, not after a count: results written
 * between two pieces (cases end out of order, in this tab or another) would shift a count, and
 * a result be read twice or left out. One written below where the reading is shows on the
 * next read (a live query reads again on every write to the run's results).
 */
export async function resultsOf(suiteRunId: string): Promise<StoredCaseResult[]> {
  const table = consoleDb().caseResults;
  const all: StoredCaseResult[] = [];
  for (;;) {
    const last = all.at(-1);
    const piece = await table
      .where('[suiteRunId+index]')
      .between(last ? [suiteRunId, last.index] : [suiteRunId, Dexie.minKey], [suiteRunId, Dexie.maxKey], !last, true)
      .limit(RESULTS_READ_AT_ONCE)
      .toArray();
    for (const r of piece) all.push(r);
    if (piece.length < RESULTS_READ_AT_ONCE) return all;
  }
}

export async function caseDetails(id: string): Promise<HistoryDetails | undefined> {
  const row = await consoleDb().caseDetails.get(id);
  if (!row) return undefined;
  const { id: _id, ...details } = row;
  return details;
}

/** The Web Lock a tab holds while it runs a suite: a run in the database that no tab holds was cut off. */
export const SUITE_LOCK_PREFIX = 'mac-suite-run:';

/**
 * Suite runs left `running` by a tab that closed or reloaded are told as interrupted, once.
 * Rows first, then locks: a run started in between is not among the rows. A run that ended in
 * between (its end written, then its lock let go) is read again in the write's own transaction
 * and left as it ended. `except`: the run the caller is starting.
 */
export async function sweepSuiteRuns(except?: string): Promise<number> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (!locks) return 0;
  const db = consoleDb();
  const running = (await db.suiteRuns.where('status').equals('running').primaryKeys()) as string[];
  if (!running.length) return 0;
  const held = new Set(((await locks.query()).held ?? []).map((l) => l.name));
  const cut = running.filter((id) => id !== except && !held.has(`${SUITE_LOCK_PREFIX}${id}`));
  if (!cut.length) return 0;
  return db.transaction('rw', db.suiteRuns, () =>
    db.suiteRuns
      .where('id')
      .anyOf(cut)
      .filter((r) => r.status === 'running')
      .modify({ status: 'interrupted' }),
  );
}
