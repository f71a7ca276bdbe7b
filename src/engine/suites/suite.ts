/**
 * Test suites of agents: what a case sends and what its answer must satisfy. Pure, and free of
 * the page: the console's Suites pages and the headless runner (`npm run suite`) read the same
 * cases, build the same requests and judge them with the same assertions.
 *
 * A case holds the request as it was sent (agent, API, mode, input or messages), the approval
 * policy of a durable run, its assertions and, optionally, rows of inputs: each row is one run
 * of the case with its own result. It never holds a token, a profile or a header value.
 */

import type { JsonSchema, Message } from '../../contract/agents';
import type { Decision } from '../../contract/durable-runs';
import { runRequest, type Flavour, type Mode, type RunParts, type RunRequest } from '../run-request';
import { rowInput } from './row-input';

/** What the answer, the outcome, the timings or the headers of a run must be. */
export type Assertion =
  /** Done or Succeeded; or a failure, with the code it names (a run.failed code, a problem's code, or an HTTP status). */
  | { kind: 'outcome'; expect: 'success' | 'failure'; code?: string }
  | { kind: 'answer-equals'; text: string }
  | { kind: 'answer-contains'; text: string }
  | { kind: 'answer-not-contains'; text: string }
  /** A regular expression (JSON Schema's dialect), matched in linear time anywhere in the answer. */
  | { kind: 'answer-matches'; pattern: string }
  /** The answer is JSON valid against this schema; without one, against the agent's `output_schema`. */
  | { kind: 'answer-schema'; schema?: JsonSchema }
  | { kind: 'first-event-within'; ms: number }
  | { kind: 'duration-within'; ms: number }
  | { kind: 'events-at-least'; count: number }
  | { kind: 'events-at-most'; count: number }
  /** The spec lens finds no difference between the answer and the public schema. */
  | { kind: 'spec-lens' }
  /** A response header is present, or absent; its value is never kept. */
  | { kind: 'header'; name: string; present: boolean };

export type AssertionKind = Assertion['kind'];

/** How a durable case answers the approvals its run asks for. */
export type ApprovalPolicy =
  | { kind: 'approve-all' }
  | { kind: 'reject-all' }
  /** A decision per tool (by tool id, else by the name it is shown by); `otherwise` for a tool not listed. */
  | { kind: 'per-tool'; tools: { toolId: string; name?: string; decision: Decision }[]; otherwise: Decision };

/** One row of a case's table of inputs: column → value (CSV gives strings, JSON any value). */
export type Row = Record<string, unknown>;

export interface SuiteCase {
  id: string;
  name: string;
  agent: { id: string; name?: string };
  api: Flavour;
  mode: Mode;
  input?: Record<string, unknown>;
  messages?: Message[];
  /** Wait mode: how long the client waits before it gives up. */
  timeoutMs?: number;
  /** How long the case's run may take, whatever its mode, before it fails (the runner's default, else DEFAULT_CASE_DEADLINE_MS). */
  deadlineMs?: number;
  /** Durable mode: how the run's approvals are answered. */
  policy?: ApprovalPolicy;
  assertions: Assertion[];
  /** Each row is one run of the case (see `partsFor`); none: the case runs once, as saved. */
  rows?: Row[];
}

export interface Suite {
  id: string;
  name: string;
  createdAt: number;
  updatedAt: number;
  cases: SuiteCase[];
}

/** What a suite run may change for every case: the API, or the agent (a new version of it). The profile is the connection's. */
export interface RunOverrides {
  api?: Flavour;
  agentId?: string;
}

/** The column whose value replaces a messages case's question. */
export const MESSAGE_COLUMN = 'message';

export function newSuiteId(prefix = 'suite'): string {
  return `${prefix}_${Date.now().toString(36)}_${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36)}`;
}

/**
 * The content of one run of a case: the saved input with the row's columns put over it (a CSV
 * cell typed by the agent's input schema when given, else like the saved value; a column only
 * the assertions read is not sent: row-input.ts), or the saved messages with the last question
 * replaced by the row's `message` column. Other columns serve the assertions' `{{column}}` placeholders.
 */
export function partsFor(c: Pick<SuiteCase, 'input' | 'messages'> & { assertions?: readonly Assertion[] }, row?: Row, inputSchema?: JsonSchema): RunParts {
  if (c.input !== undefined) {
    if (!row) return { input: { ...c.input } };
    return { input: rowInput(c.input, row, inputSchema, placeholderColumns(c.assertions ?? [])).input };
  }
  const messages = c.messages ?? [];
  const asked = row?.[MESSAGE_COLUMN];
  if (asked === undefined) return { messages };
  const at = messages.map((m) => m.role).lastIndexOf('USER');
  const question: Message = { role: 'USER', content: [{ type: 'text', text: String(asked) }] };
  return { messages: at === -1 ? [...messages, question] : messages.map((m, i) => (i === at ? question : m)) };
}

/** The run of a case (or of one of its rows), as the console would send it, with the overrides of the suite run. */
export function caseRequest(c: SuiteCase, row?: Row, overrides: RunOverrides = {}, inputSchema?: JsonSchema): RunRequest {
  const agentId = overrides.agentId?.trim() || c.agent.id;
  const agent = { id: agentId, ...(agentId === c.agent.id && c.agent.name !== undefined && { name: c.agent.name }) };
  return runRequest(overrides.api ?? c.api, c.mode, agent, partsFor(c, row, inputSchema), c.timeoutMs);
}

/** `{{column}}` in an assertion's text, filled from the row (a placeholder the row lacks stays as written). */
const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;

export function fillRow(text: string, row?: Row): string {
  if (!row) return text;
  return text.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(row, name) ? String(row[name] ?? '') : whole));
}

/** The column names a text's placeholders ask for (`{{topic}}` → topic), as fillRow reads them. */
export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

/** The columns a case's assertions read (their texts' placeholders). */
export function placeholderColumns(assertions: readonly Assertion[]): Set<string> {
  const out = new Set<string>();
  for (const a of assertions) if (a.kind === 'answer-equals' || a.kind === 'answer-contains' || a.kind === 'answer-not-contains') for (const name of placeholdersOf(a.text)) out.add(name);
  return out;
}

/** The assertions of one row: texts with its placeholders filled. */
export function assertionsFor(assertions: readonly Assertion[], row?: Row): Assertion[] {
  if (!row) return [...assertions];
  return assertions.map((a) => {
    switch (a.kind) {
      case 'answer-equals':
      case 'answer-contains':
      case 'answer-not-contains':
        return { ...a, text: fillRow(a.text, row) };
      default:
        return a;
    }
  });
}

/** One run of a suite: a case, or one row of it. */
export interface SuiteItem {
  /** Unique in the suite: the case id, with `#n` for its row n (from 1). */
  key: string;
  case: SuiteCase;
  rowIndex?: number;
  row?: Row;
}

/** Every run a suite makes, in order: a case without rows once, a case with rows once per row. `only` keeps cases by name. */
export function itemsOf(cases: readonly SuiteCase[], only?: (c: SuiteCase) => boolean): SuiteItem[] {
  const out: SuiteItem[] = [];
  for (const c of cases) {
    if (only && !only(c)) continue;
    if (c.rows?.length) c.rows.forEach((row, i) => out.push({ key: `${c.id}#${i + 1}`, case: c, rowIndex: i + 1, row }));
    else out.push({ key: c.id, case: c });
  }
  return out;
}

/** How an item is named in reports: the case, and its row. */
export function itemName(item: Pick<SuiteItem, 'case' | 'rowIndex' | 'row'>): string {
  if (item.rowIndex === undefined) return item.case.name;
  const first = item.row ? Object.values(item.row)[0] : undefined;
  const label = first === undefined ? '' : ` (${String(typeof first === 'object' ? JSON.stringify(first) : first).slice(0, 40)})`;
  return `${item.case.name} › row ${item.rowIndex}${label}`;
}

/** Words for the policy, as a case and a report say it. */
export function policyText(p: ApprovalPolicy | undefined): string {
  if (!p || p.kind === 'approve-all') return 'approve all';
  if (p.kind === 'reject-all') return 'reject all';
  const each = p.tools.map((t) => `${t.decision === 'APPROVE' ? 'approve' : 'reject'} ${t.name ?? t.toolId}`).join(', ');
  return `${each}; any other tool: ${p.otherwise === 'APPROVE' ? 'approve' : 'reject'}`;
}
