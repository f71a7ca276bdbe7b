/**
 * A suite run's reports for CI: JUnit XML (one testcase per case or row, a failed one with one
 * failure listing every failed assertion with what was expected and what the run did), the full
 * results as JSON, and the words of a line per case and of the summary. Pure: `npm run suite`
 * writes them. JUnit is a small writer, tested against an XML parser (reports.test.ts).
 */

import { formatCount } from '../../lib/format';
import type { CaseResult } from './runner';
import type { SuiteSummary } from './summary';

/** Characters XML 1.0 cannot hold at all (not even escaped): an answer may contain any. */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function xmlText(s: string): string {
  return s.replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function xmlAttribute(s: string): string {
  // Line ends and tabs in an attribute would be read back as spaces: they are written as references.
  return xmlText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

export interface ReportMeta {
  suiteName: string;
  baseUrl: string;
  startedAt: number;
  durationMs: number;
}

/** A case (or row) the suite did not run: it was stopped first (Ctrl+C). */
export interface NotRun {
  key: string;
  caseId: string;
  name: string;
}

/**
 * A failed case's one `<failure>` (JUnit readers count a testcase's failures, and a case the
 * agent is gone for is one failure, not four): its message says each failed assertion with
 * what came, its text lists them, expected and actual, one after another.
 */
function failureElement(r: CaseResult): string {
  const failed = r.assertions.filter((a) => !a.pass);
  const said = failed.map((a) => `${a.expected}: got ${a.actual}`);
  const message = failed.length === 1 ? said[0]! : `${failed.length} of ${r.assertions.length} assertions failed: ${said.join('; ')}`;
  const type = [...new Set(failed.map((a) => a.assertion.kind))].join(', ');
  const text = failed.map((a) => `expected: ${a.expected}\nactual: ${a.actual}`).join('\n\n');
  return `      <failure message="${xmlAttribute(message)}" type="${xmlAttribute(type)}">${xmlText(text)}</failure>`;
}

const NOT_RUN = 'Not run: the suite was stopped before this case started.';

/** JUnit XML: a testsuite for the suite, a testcase per case or row; a stopped case is skipped (and not failed), a failed one has one failure. */
export function junitXml(results: readonly CaseResult[], meta: ReportMeta, notRun: readonly NotRun[] = []): string {
  const failures = results.filter((r) => r.verdict === 'failed').length;
  const skipped = results.filter((r) => r.verdict === 'stopped').length + notRun.length;
  const tests = results.length + notRun.length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlAttribute(meta.suiteName)}" tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(meta.durationMs)}">`,
    `  <testsuite name="${xmlAttribute(meta.suiteName)}" tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(meta.durationMs)}" timestamp="${new Date(meta.startedAt).toISOString()}" hostname="${xmlAttribute(meta.baseUrl)}">`,
  ];
  for (const r of results) {
    const request = r.entry.request;
    const classname = `${request.agentId}.${request.flavour === 'legacy' ? 'legacy' : 'current'}.${request.mode}`;
    lines.push(`    <testcase name="${xmlAttribute(r.name)}" classname="${xmlAttribute(classname)}" time="${seconds(r.entry.durationMs)}">`);
    if (r.verdict === 'stopped') lines.push('      <skipped message="The suite was stopped before this case ended."/>');
    else if (r.verdict === 'failed') lines.push(failureElement(r));
    const facts = [
      `status: ${r.entry.status}`,
      ...(r.entry.runId ? [`run id: ${r.entry.runId}`] : []),
      ...(r.entry.meta?.requestId ? [`request id: ${r.entry.meta.requestId}`] : []),
      ...(r.entry.problem ? [`problem: ${r.entry.problem}`] : []),
      ...(r.notes ?? []).map((n) => `note: ${n}`),
    ];
    lines.push(`      <system-out>${xmlText(facts.join('\n'))}</system-out>`);
    lines.push('    </testcase>');
  }
  for (const n of notRun) {
    lines.push(`    <testcase name="${xmlAttribute(n.name)}" classname="${xmlAttribute(n.caseId)}" time="0.000">`);
    lines.push(`      <skipped message="${NOT_RUN}"/>`);
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}

/** The full results as JSON: every case's request, outcome, timings and assertions; never a token (nor a header value). */
export function resultsJson(results: readonly CaseResult[], summary: SuiteSummary, meta: ReportMeta, notRun: readonly NotRun[] = []) {
  return {
    format: 'metadata-agents-console/suite-results',
    version: 1,
    suite: meta.suiteName,
    baseUrl: meta.baseUrl,
    startedAt: new Date(meta.startedAt).toISOString(),
    durationMs: meta.durationMs,
    summary,
    results: results.map((r) => ({
      key: r.key,
      case: r.caseId,
      name: r.name,
      ...(r.rowIndex !== undefined && { row: r.rowIndex, values: r.row }),
      verdict: r.verdict,
      request: { agentId: r.entry.request.agentId, api: r.entry.request.flavour, mode: r.entry.request.mode, method: 'POST', path: r.entry.request.path, body: r.entry.request.body },
      status: r.entry.status,
      ...(r.entry.runId && { runId: r.entry.runId }),
      ...(r.entry.meta && { httpStatus: r.entry.meta.status, ...(r.entry.meta.requestId && { requestId: r.entry.meta.requestId }) }),
      durationMs: r.entry.durationMs,
      ...(r.entry.firstEventMs !== undefined && { firstEventMs: r.entry.firstEventMs }),
      eventCount: r.entry.eventCount,
      bytes: r.entry.bytes,
      answer: r.entry.transcript,
      ...(r.entry.failure && { failure: r.entry.failure }),
      ...(r.entry.problem && { problem: r.entry.problem }),
      ...(r.decisions && { decisions: r.decisions.map((d) => ({ tool: d.tool, name: d.name, decision: d.decision, ...(d.byDefault && { byDefault: true }) })) }),
      assertions: r.assertions.map((a) => ({ ...a.assertion, pass: a.pass, expected: a.expected, actual: a.actual })),
      ...(r.notes && { notes: r.notes }),
    })),
    ...(notRun.length && { notRun: notRun.map((n) => ({ key: n.key, case: n.caseId, name: n.name, verdict: 'not-run' as const })) }),
  };
}

/** How long a failed case's problem may be on its line (the JUnit and JSON reports keep it whole). */
const PROBLEM_LINE_CHARS = 300;

/**
 * A case's line: PASS or FAIL, its name, and for a failure each failed assertion with both
 * values, then the run's problem when it had one (a replay's 404 names the closest recording
 * there): what a terminal shows should say why, not only the JUnit file.
 */
export function caseLine(r: CaseResult): string {
  const head = `${r.verdict === 'passed' ? 'PASS' : r.verdict === 'failed' ? 'FAIL' : 'STOP'}  ${r.name}  (${r.entry.request.mode}, ${formatCount(r.entry.durationMs)} ms)`;
  const failed = r.assertions.filter((a) => !a.pass).map((a) => `      ✗ ${a.expected}: got ${a.actual}`);
  const problem = r.verdict === 'failed' && r.entry.problem ? r.entry.problem.replace(/\s+/g, ' ') : undefined;
  const why = problem ? [`      ${problem.length > PROBLEM_LINE_CHARS ? `${problem.slice(0, PROBLEM_LINE_CHARS)}…` : problem}`] : [];
  const notes = (r.notes ?? []).map((n) => `      note: ${n.replace(/\s+/g, ' ')}`);
  return [head, ...failed, ...why, ...notes].join('\n');
}

const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - s.length));
const ms = (n: number | undefined) => (n === undefined ? '–' : `${formatCount(n)} ms`);

/** The summary table: counts, then p50 and p95 of the first event and of the duration. */
export function summaryTable(s: SuiteSummary, meta: ReportMeta, notRun = 0): string {
  const rows = [
    ['', 'p50', 'p95', 'runs'],
    ['first event', ms(s.firstEvent.p50), ms(s.firstEvent.p95), formatCount(s.firstEvent.n)],
    ['duration', ms(s.duration.p50), ms(s.duration.p95), formatCount(s.duration.n)],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)) + 2);
  const table = rows.map((r) => r.map((c, i) => pad(c, widths[i]!)).join('').trimEnd());
  return [
    `Suite “${meta.suiteName}” against ${meta.baseUrl}: ${formatCount(s.total)} ${s.total === 1 ? 'run' : 'runs'} in ${(meta.durationMs / 1000).toFixed(1)} s`,
    `passed ${formatCount(s.passed)}, failed ${formatCount(s.failed)}${s.stopped ? `, stopped ${formatCount(s.stopped)}` : ''}${notRun ? `, not run ${formatCount(notRun)}` : ''}`,
    ...table,
  ].join('\n');
}
