/**
 * Assertions judged against one run, whatever its kind: each says pass or fail with what was
 * expected and what the run actually did. The run is read as an Observation, built from what
 * history keeps of a run (its entry and details), so a run of the console, a suite run in the
 * page and one of `npm run suite` are judged alike. Nothing here waits: the spec lens and an
 * agent's output schema are loaded by the caller and handed in.
 */

import type { JsonSchema } from '../../contract/agents';
import type { HeaderList } from '../../lib/api-client';
import { formatCount } from '../../lib/format';
import { linearPattern } from '../../lib/linear-pattern';
import { compileSchemaCheck } from '../../lib/schema-check';
import type { LensAnswer, LensResult, LensStream } from '../../lib/spec-lens/lens';
import type { HistoryDetails, HistoryEntry } from '../history-entry';
import { statusText } from '../run-machine';
import type { Mode } from '../run-request';
import type { PatternVerdict } from './pattern-judge';
import type { Assertion } from './suite';

/** What the assertions read of a run. */
export interface Observation {
  mode: Mode;
  /** The run machine's status (`done`, `failed`, `refused`, `SUCCEEDED`, …). */
  status: string;
  /** A failed or refused run's code: a run.failed or durable error code, a problem's code, else the HTTP status. */
  failureCode?: string;
  httpStatus?: number;
  /** The answer's text (a stream's transcript, a wait's messages, a durable run's output). */
  answer: string;
  durationMs?: number;
  firstEventMs?: number;
  eventCount: number;
  headers: HeaderList;
  /** What the spec lens checks: the answer as received, or a stream's request and events. */
  lens: { answer?: LensAnswer; stream?: LensStream; events?: readonly { event: string; data: string }[] };
}

/** The part of the spec lens the assertions use (the lens itself is loaded by the caller). */
export interface LensChecker {
  checkAnswer(answer: LensAnswer): LensResult;
  checkEvent(stream: LensStream, event: string, data: string): LensResult;
}

export interface JudgeContext {
  lens?: LensChecker;
  /**
   * `answer-matches` verdicts by pattern, judged apart (pattern-judge.ts: in a worker, within a
   * budget). A pattern not among them is matched here, in the caller's thread.
   */
  patterns?: ReadonlyMap<string, PatternVerdict>;
  /** The agent's `output_schema`, or why it could not be read. */
  outputSchema?: { schema: JsonSchema } | { error: string };
}

export interface AssertionResult {
  assertion: Assertion;
  pass: boolean;
  /** What the assertion asks, in words ("the answer contains “Hello”"). */
  expected: string;
  /** What the run did, in words. */
  actual: string;
}

export const SUCCESS_STATUSES = ['done', 'SUCCEEDED'];
/** A stream's events the lens checks at most (each against its event's schema). */
export const LENS_MAX_EVENTS = 2_000;

const header = (headers: HeaderList, name: string) => headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

/**
 * A run as the assertions read it, from what history keeps: its entry and details. `rawBody` is
 * the answer's body as received, when the caller still has it (else it is rebuilt from the details).
 */
export function observationOf(entry: HistoryEntry, details: HistoryDetails = {}, rawBody?: string): Observation {
  const refusal = entry.refusal;
  const meta = entry.meta ?? refusal?.meta;
  const headers = meta?.headers ?? [];
  const failureCode = entry.failure?.code ?? refusal?.code ?? (refusal && refusal.status ? String(refusal.status) : undefined);
  const contentType = header(headers, 'content-type') ?? '';
  const lens: Observation['lens'] = {};
  if (meta) {
    if (refusal?.meta) lens.answer = { method: refusal.meta.method, url: refusal.meta.url, status: refusal.meta.status, contentType, body: refusal.meta.rawBody };
    else if (entry.request.mode === 'stream') {
      lens.stream = { method: meta.method, url: meta.url, status: meta.status };
      lens.events = (details.events ?? []).map((e) => ({ event: e.event, data: e.data }));
    } else {
      const body = rawBody ?? (details.result === undefined ? undefined : JSON.stringify(entry.request.mode === 'durable' ? { run: details.result, request_id: entry.meta?.requestId ?? '' } : details.result));
      if (body !== undefined) lens.answer = { method: meta.method, url: meta.url, status: meta.status, contentType, body };
    }
  }
  return {
    mode: entry.request.mode,
    status: entry.status,
    ...(failureCode !== undefined && { failureCode }),
    ...(meta && { httpStatus: meta.status }),
    answer: entry.transcript,
    durationMs: entry.durationMs,
    ...(entry.firstEventMs !== undefined && { firstEventMs: entry.firstEventMs }),
    eventCount: entry.eventCount,
    headers,
    lens,
  };
}

/** A text as a one-line quotation: cut at `max` characters, line ends shown as \\n. */
const quote = (s: string, max = 160) => `“${(s.length > max ? `${s.slice(0, max)}…` : s).replace(/\r?\n/g, '\\n')}”`;
const ms = (n: number) => `${formatCount(n)} ms`;

function outcomeText(o: Observation): string {
  const words = statusText(o.status);
  return o.failureCode && !SUCCESS_STATUSES.includes(o.status) ? `${words} (${o.failureCode})` : words;
}

/** The assertion in words, as the editor lists it and a report says what was expected. */
/** “1 event”, “12 events”: a case saved from a one-event run read “at least 1 events”. */
const events = (n: number) => `${formatCount(n)} ${n === 1 ? 'event' : 'events'}`;

export function describeAssertion(a: Assertion): string {
  switch (a.kind) {
    case 'outcome':
      return a.expect === 'success' ? 'Done or Succeeded' : a.code ? `fails with code ${a.code}` : 'fails';
    case 'answer-equals':
      return `the answer equals ${quote(a.text)}`;
    case 'answer-contains':
      return `the answer contains ${quote(a.text)}`;
    case 'answer-not-contains':
      return `the answer does not contain ${quote(a.text)}`;
    case 'answer-matches':
      return `the answer matches /${a.pattern}/`;
    case 'answer-schema':
      return a.schema ? 'the answer is JSON valid against the given schema' : 'the answer is JSON valid against the agent’s output_schema';
    case 'first-event-within':
      return `the first event within ${ms(a.ms)}`;
    case 'duration-within':
      return `the run within ${ms(a.ms)}`;
    case 'events-at-least':
      return `at least ${events(a.count)}`;
    case 'events-at-most':
      return `at most ${events(a.count)}`;
    case 'spec-lens':
      return 'the spec lens finds no difference';
    case 'header':
      return `header ${a.name} ${a.present ? 'present' : 'absent'}`;
  }
}

function lensVerdict(o: Observation, lens: LensChecker | undefined): { pass: boolean; actual: string } {
  if (!lens) return { pass: false, actual: 'the spec lens could not be loaded' };
  if (o.lens.events && o.lens.stream) {
    const checked = o.lens.events.slice(0, LENS_MAX_EVENTS);
    let schemas = 0;
    const differing: string[] = [];
    for (const [i, e] of checked.entries()) {
      const r = lens.checkEvent(o.lens.stream, e.event, e.data);
      if (r.kind === 'no-schema') continue;
      schemas++;
      const errors = r.differences.filter((d) => d.severity === 'error');
      if (errors.length) differing.push(`event ${i + 1} (${e.event}): ${errors[0]!.pointer || '(data)'} ${errors[0]!.text}`);
    }
    const more = o.lens.events.length > LENS_MAX_EVENTS ? ` (the first ${formatCount(LENS_MAX_EVENTS)} of ${formatCount(o.lens.events.length)} checked)` : '';
    if (differing.length) return { pass: false, actual: `${formatCount(differing.length)} of ${formatCount(schemas)} events differ${more}: ${differing.slice(0, 3).join('; ')}` };
    return { pass: true, actual: schemas ? `${events(schemas)} ${schemas === 1 ? 'matches' : 'match'}${more}` : 'no event has a public schema to check against' };
  }
  if (!o.lens.answer) return { pass: true, actual: 'no answer to check' };
  const r = lens.checkAnswer(o.lens.answer);
  if (r.kind === 'no-schema') return { pass: true, actual: `no public schema: ${r.reason}` };
  const errors = r.differences.filter((d) => d.severity === 'error');
  if (!errors.length) return { pass: true, actual: `matches ${r.source === 'client-models' ? 'the official client’s model' : 'the public schema'}` };
  return { pass: false, actual: `${formatCount(errors.length)} ${errors.length === 1 ? 'difference' : 'differences'}: ${errors.slice(0, 3).map((d) => `${d.pointer || '(answer)'} ${d.text}`).join('; ')}` };
}

function schemaVerdict(o: Observation, given: { schema: JsonSchema } | { error: string } | undefined): { pass: boolean; actual: string } {
  if (!given) return { pass: false, actual: 'the agent’s output_schema was not read' };
  if ('error' in given) return { pass: false, actual: `the agent’s output_schema could not be read: ${given.error}` };
  const { schema } = given;
  let value: unknown;
  try {
    value = JSON.parse(o.answer);
  } catch {
    return { pass: false, actual: `the answer is not JSON: ${quote(o.answer, 80)}` };
  }
  let errors;
  try {
    errors = compileSchemaCheck(schema)(value);
  } catch (err) {
    return { pass: false, actual: `the schema cannot be used: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!errors.length) return { pass: true, actual: 'valid' };
  return { pass: false, actual: errors.slice(0, 3).map((e) => `${e.instancePath || '(answer)'} ${e.message}`).join('; ') };
}

/** One assertion against one run. */
export function judge(a: Assertion, o: Observation, ctx: JudgeContext = {}): AssertionResult {
  const expected = describeAssertion(a);
  const done = (pass: boolean, actual: string): AssertionResult => ({ assertion: a, pass, expected, actual });
  switch (a.kind) {
    case 'outcome': {
      const ok = SUCCESS_STATUSES.includes(o.status);
      if (a.expect === 'success') return done(ok, outcomeText(o));
      return done(!ok && (a.code === undefined || a.code === '' || a.code === o.failureCode), outcomeText(o));
    }
    case 'answer-equals':
      return done(a.text.trim() === o.answer.trim(), quote(o.answer));
    case 'answer-contains':
      return done(o.answer.includes(a.text), quote(o.answer));
    case 'answer-not-contains': {
      const at = o.answer.indexOf(a.text);
      return done(at === -1, at === -1 ? quote(o.answer) : `contains it at character ${formatCount(at + 1)}: ${quote(o.answer)}`);
    }
    case 'answer-matches': {
      const judged = ctx.patterns?.get(a.pattern);
      if (judged) return judged.ok ? done(judged.matches, quote(o.answer)) : done(false, judged.why);
      const p = linearPattern(a.pattern);
      if (!p.ok) return done(false, `the pattern cannot be matched in linear time: ${p.why}`);
      return done(p.test(o.answer), quote(o.answer));
    }
    case 'answer-schema': {
      const v = schemaVerdict(o, a.schema ? { schema: a.schema } : ctx.outputSchema);
      return done(v.pass, v.actual);
    }
    case 'first-event-within':
      if (o.firstEventMs === undefined) return done(false, 'no event arrived');
      return done(o.firstEventMs <= a.ms, ms(o.firstEventMs));
    case 'duration-within':
      if (o.durationMs === undefined) return done(false, 'the run did not end');
      return done(o.durationMs <= a.ms, ms(o.durationMs));
    case 'events-at-least':
      return done(o.eventCount >= a.count, events(o.eventCount));
    case 'events-at-most':
      return done(o.eventCount <= a.count, events(o.eventCount));
    case 'spec-lens': {
      const v = lensVerdict(o, ctx.lens);
      return done(v.pass, v.actual);
    }
    case 'header': {
      const present = header(o.headers, a.name) !== undefined;
      // Only whether it came: a header's value may hold anything, and is never kept in a result or a file.
      return done(present === a.present, present ? 'present' : 'absent');
    }
  }
}

export function judgeAll(assertions: readonly Assertion[], o: Observation, ctx: JudgeContext = {}): AssertionResult[] {
  return assertions.map((a) => judge(a, o, ctx));
}

/**
 * A bound well above what the run took, in round figures: the same run passes it on a slower or
 * busier machine (a case saved in the console runs later in CI), a run many times slower or one
 * that hangs does not. Three times with floors of 1 s and 2 s failed on a loaded 2-core machine:
 * a first event the console saw within 300 ms took 2,046 ms there from `npm run suite`.
 */
export function boundAbove(observed: number, floor: number): number {
  return Math.ceil(Math.max(floor, observed * 5) / 100) * 100;
}

/**
 * The assertions a case starts with, filled from the run it is saved from: its outcome, its
 * answer (equal to the saved one), timings with room, the spec lens and the `Deprecation`
 * header as they were. Each is kept only if that run passes it, so the run a case comes from
 * always passes its case.
 */
export function assertionsFromRun(o: Observation, ctx: JudgeContext = {}): Assertion[] {
  const ok = SUCCESS_STATUSES.includes(o.status);
  const candidates: Assertion[] = [ok ? { kind: 'outcome', expect: 'success' } : { kind: 'outcome', expect: 'failure', ...(o.failureCode !== undefined && { code: o.failureCode }) }];
  if (o.answer.trim() !== '') candidates.push({ kind: 'answer-equals', text: o.answer });
  if (o.mode === 'stream' && o.firstEventMs !== undefined) candidates.push({ kind: 'first-event-within', ms: boundAbove(o.firstEventMs, 5_000) });
  if (o.durationMs !== undefined) candidates.push({ kind: 'duration-within', ms: boundAbove(o.durationMs, 10_000) });
  if (o.mode === 'stream' && o.eventCount > 0) candidates.push({ kind: 'events-at-least', count: 1 });
  if (ctx.lens && (o.lens.answer || o.lens.events?.length)) candidates.push({ kind: 'spec-lens' });
  if (o.httpStatus !== undefined) candidates.push({ kind: 'header', name: 'Deprecation', present: header(o.headers, 'deprecation') !== undefined });
  return candidates.filter((a) => judge(a, o, ctx).pass);
}
