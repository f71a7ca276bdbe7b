/**
 * Two runs side by side: what differs in their answers (word by word), their figures, their
 * request bodies and their response headers. Pure: the comparison page and the export read
 * the same results.
 */
import type { HeaderList } from '../../../lib/api-client';
import { formatBytes, formatCount } from '../../../lib/format';
import type { RunRequest } from '../../../engine/run-request';
import { wordDiff } from '../../../lib/word-diff';

export interface SideFigures {
  status: string;
  httpStatus?: number;
  durationMs?: number;
  firstEventMs?: number;
  /** Streams only: a wait or durable run has no events to count. */
  eventCount?: number;
  bytes: number;
}

export interface MetricRow {
  label: string;
  a: string;
  b: string;
  /** b − a, said in words ("+120 ms", "same"); absent where a difference means nothing. */
  delta?: string;
  differs: boolean;
}

function signed(n: number, unit: (n: number) => string): string {
  if (n === 0) return 'same';
  return `${n > 0 ? '+' : '−'}${unit(Math.abs(n))}`;
}

const ms = (n: number) => `${formatCount(n)} ms`;

function numberRow(label: string, a: number | undefined, b: number | undefined, unit: (n: number) => string): MetricRow {
  const show = (n: number | undefined) => (n === undefined ? '–' : unit(n));
  const both = a !== undefined && b !== undefined;
  return { label, a: show(a), b: show(b), ...(both && { delta: signed(b - a, unit) }), differs: a !== b };
}

/** The figures of both runs, row by row, with the second's difference from the first. */
export function metricRows(a: SideFigures, b: SideFigures): MetricRow[] {
  return [
    { label: 'Status', a: a.status, b: b.status, differs: a.status !== b.status },
    { label: 'HTTP status', a: a.httpStatus ? String(a.httpStatus) : '–', b: b.httpStatus ? String(b.httpStatus) : '–', differs: a.httpStatus !== b.httpStatus },
    numberRow('First event', a.firstEventMs, b.firstEventMs, ms),
    numberRow('Duration', a.durationMs, b.durationMs, ms),
    numberRow('Events', a.eventCount, b.eventCount, formatCount),
    numberRow('Bytes', a.bytes, b.bytes, formatBytes),
  ];
}

export interface ValueDifference {
  /** JSON pointer of the value. */
  pointer: string;
  kind: 'only-a' | 'only-b' | 'changed';
  a?: unknown;
  b?: unknown;
}

const escapePointer = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The members of a run's body that say which API and mode it is for, not what it asks: the
 * legacy API names the agent in the body, the current one says stream or durable there.
 */
const API_MEMBERS: ReadonlySet<string> = new Set(['/agent_id', '/stream', '/execution_mode']);

/** A legacy-against-current comparison's body differences: those the APIs make, and the rest, which the requests do. */
export function splitByApi(differences: readonly ValueDifference[]): { api: ValueDifference[]; requests: ValueDifference[] } {
  const api: ValueDifference[] = [];
  const requests: ValueDifference[] = [];
  for (const d of differences) (API_MEMBERS.has(d.pointer) ? api : requests).push(d);
  return { api, requests };
}

/** Where two JSON values differ, by pointer: a member only one has, or a value that changed. */
export function bodyDiff(a: unknown, b: unknown, pointer = ''): ValueDifference[] {
  const out: ValueDifference[] = [];
  collectBodyDiff(a, b, pointer, out);
  return out;
}

/**
 * Differences go into one list passed down, never spread into a push: a spread of more than
 * about 100,000 differences (one large array changed) throws RangeError, and copying each
 * level's list into its parent's cost as much again per level of nesting.
 */
function collectBodyDiff(a: unknown, b: unknown, pointer: string, out: ValueDifference[]): void {
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of keys) {
      const p = `${pointer}/${escapePointer(k)}`;
      if (!Object.hasOwn(b, k)) out.push({ pointer: p, kind: 'only-a', a: a[k] });
      else if (!Object.hasOwn(a, k)) out.push({ pointer: p, kind: 'only-b', b: b[k] });
      else collectBodyDiff(a[k], b[k], p, out);
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const p = `${pointer}/${i}`;
      if (i >= b.length) out.push({ pointer: p, kind: 'only-a', a: a[i] });
      else if (i >= a.length) out.push({ pointer: p, kind: 'only-b', b: b[i] });
      else collectBodyDiff(a[i], b[i], p, out);
    }
    return;
  }
  if (!Object.is(a, b)) out.push({ pointer, kind: 'changed', a, b });
}

export interface HeaderDifference {
  name: string;
  a?: string;
  b?: string;
}

/** Headers that differ on every answer by nature, which would hide the ones that tell something. */
const VOLATILE = new Set(['date', 'x-request-id', 'request-id', 'content-length', 'etag', 'age', 'server-timing', 'x-response-time', 'keep-alive', 'connection']);

/** Response headers that differ between the two answers (names compared ignoring case), by name. */
export function headerDiff(a: HeaderList | undefined, b: HeaderList | undefined): HeaderDifference[] {
  const map = (list: HeaderList | undefined) => {
    const m = new Map<string, string>();
    for (const [k, v] of list ?? []) {
      const key = k.toLowerCase();
      m.set(key, m.has(key) ? `${m.get(key)}, ${v}` : v);
    }
    return m;
  };
  const ma = map(a);
  const mb = map(b);
  const names = [...new Set([...ma.keys(), ...mb.keys()])].filter((n) => !VOLATILE.has(n)).sort();
  return names.filter((n) => ma.get(n) !== mb.get(n)).map((name) => ({ name, ...(ma.has(name) && { a: ma.get(name) }), ...(mb.has(name) && { b: mb.get(name) }) }));
}

/** How one run differs from the other in what it sent: API, mode, agent, profile. */
export function sentDifferences(a: { request: RunRequest; profileLabel: string }, b: { request: RunRequest; profileLabel: string }): string[] {
  const out: string[] = [];
  const api = (r: RunRequest) => (r.flavour === 'legacy' ? 'legacy API' : 'current API');
  if (a.request.flavour !== b.request.flavour) out.push(`${api(a.request)} against ${api(b.request)}`);
  if (a.request.mode !== b.request.mode) out.push(`${a.request.mode} against ${b.request.mode}`);
  if (a.request.agentId !== b.request.agentId) out.push(`agent ${a.request.agentId} against ${b.request.agentId}`);
  if (a.profileLabel !== b.profileLabel) out.push(`profile ${a.profileLabel} against ${b.profileLabel}`);
  return out;
}

/** The answers' texts agree (ignoring whitespace at either end). */
export const answersMatch = (a: string, b: string) => a.trim() === b.trim();

/** One side of a comparison, as the page and the export read it: never a token, nor a base URL. */
export interface ComparedRun {
  id: string;
  request: RunRequest;
  profileLabel: string;
  startedAt: number;
  figures: SideFigures;
  transcript: string;
  headers?: HeaderList;
}

/** Headers an export leaves out whatever they hold. */
const PRIVATE_HEADERS = new Set(['set-cookie', 'authorization', 'cookie', 'proxy-authorization']);

/** The comparison as a file: both requests and answers, and what differs. Nothing of a token. */
export function comparisonFileOf(a: ComparedRun, b: ComparedRun, exportedAt = Date.now()) {
  const side = (r: ComparedRun) => ({
    id: r.id,
    agentId: r.request.agentId,
    ...(r.request.agentName !== undefined && { agentName: r.request.agentName }),
    api: r.request.flavour === 'legacy' ? 'legacy' : 'current',
    mode: r.request.mode,
    method: 'POST',
    path: r.request.path,
    body: r.request.body,
    profile: r.profileLabel,
    startedAt: new Date(r.startedAt).toISOString(),
    ...r.figures,
    transcript: r.transcript,
    headers: (r.headers ?? []).filter(([k]) => !PRIVATE_HEADERS.has(k.toLowerCase())),
  });
  const text = wordDiff(a.transcript, b.transcript);
  return {
    format: 'metadata-agents-console/comparison',
    version: 1,
    exportedAt: new Date(exportedAt).toISOString(),
    a: side(a),
    b: side(b),
    differences: {
      sent: sentDifferences({ request: a.request, profileLabel: a.profileLabel }, { request: b.request, profileLabel: b.profileLabel }),
      answersMatch: answersMatch(a.transcript, b.transcript),
      onlyInA: text.parts.filter((p) => p.removed).map((p) => p.value),
      onlyInB: text.parts.filter((p) => p.added).map((p) => p.value),
      figures: metricRows(a.figures, b.figures).filter((r) => r.differs),
      body: bodyDiff(a.request.body, b.request.body),
      headers: headerDiff(a.headers, b.headers).filter((h) => !PRIVATE_HEADERS.has(h.name)),
    },
  };
}
