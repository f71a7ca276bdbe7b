import { describe, expect, it } from 'vitest';
import type { PatternVerdict } from './pattern-judge';
import type { LensResult } from '../../lib/spec-lens/lens';
import type { HistoryEntry } from '../history-entry';
import { runRequest } from '../run-request';
import { assertionsFromRun, describeAssertion, judge, observationOf, type LensChecker, type Observation } from './assertions';
import type { Assertion } from './suite';

const current = runRequest('platform', 'stream', { id: 'echo-assistant' }, { messages: [{ role: 'USER', content: [{ type: 'text', text: 'Hi' }] }] });

function entry(patch: Partial<HistoryEntry> = {}): HistoryEntry {
  return {
    id: 'r1',
    startedAt: 1,
    request: current,
    target: { profileLabel: 'Reference', mode: 'same-origin', baseUrl: '' },
    status: 'done',
    durationMs: 400,
    firstEventMs: 30,
    eventCount: 12,
    bytes: 900,
    transcript: 'You asked: "Hi". Hello there.',
    meta: { method: 'POST', url: '/api/agents/echo-assistant/runs', status: 200, durationMs: 5, headers: [['content-type', 'text/event-stream'], ['x-request-id', 'req_1']], receivedAt: 0 },
    ...patch,
  };
}

const obs = (patch: Partial<HistoryEntry> = {}, details = {}) => observationOf(entry(patch), details);
const pass = (a: Assertion, o: Observation = obs(), ctx = {}) => judge(a, o, ctx).pass;

describe('every kind of assertion, against a run', () => {
  it('outcome: Done or Succeeded, or a failure with the code it names', () => {
    expect(pass({ kind: 'outcome', expect: 'success' })).toBe(true);
    expect(pass({ kind: 'outcome', expect: 'success' }, obs({ status: 'SUCCEEDED' }))).toBe(true);
    const failed = obs({ status: 'failed', failure: { title: 'Spend', detail: 'limit', code: 'spend_limit_exceeded' } });
    expect(judge({ kind: 'outcome', expect: 'success' }, failed)).toMatchObject({ pass: false, actual: 'Failed (spend_limit_exceeded)' });
    expect(pass({ kind: 'outcome', expect: 'failure', code: 'spend_limit_exceeded' }, failed)).toBe(true);
    expect(pass({ kind: 'outcome', expect: 'failure', code: 'other' }, failed)).toBe(false);
    expect(pass({ kind: 'outcome', expect: 'failure' }, failed)).toBe(true);
    expect(pass({ kind: 'outcome', expect: 'failure' })).toBe(false);
    // A refusal's code is its problem's code, else its HTTP status.
    const refused = obs({ status: 'refused', refusal: { kind: 'http', status: 404, title: 'Not found', detail: 'no agent' } });
    expect(judge({ kind: 'outcome', expect: 'failure', code: '404' }, refused)).toMatchObject({ pass: true, actual: 'Refused (404)' });
  });

  it('the answer: equals (ignoring the ends’ whitespace), contains, does not contain, matches a pattern in linear time', () => {
    expect(pass({ kind: 'answer-equals', text: ' You asked: "Hi". Hello there.\n' })).toBe(true);
    expect(judge({ kind: 'answer-equals', text: 'You asked: "Hi".' }, obs())).toMatchObject({ pass: false, expected: 'the answer equals “You asked: "Hi".”', actual: '“You asked: "Hi". Hello there.”' });
    expect(pass({ kind: 'answer-contains', text: 'Hello' })).toBe(true);
    expect(pass({ kind: 'answer-contains', text: 'hello' })).toBe(false);
    expect(pass({ kind: 'answer-not-contains', text: 'error' })).toBe(true);
    expect(judge({ kind: 'answer-not-contains', text: 'Hello' }, obs())).toMatchObject({ pass: false, actual: expect.stringContaining('at character 18') });
    expect(pass({ kind: 'answer-matches', pattern: '^You asked: "\\w+"' })).toBe(true);
    expect(pass({ kind: 'answer-matches', pattern: 'Goodbye' })).toBe(false);
    // A pattern that would backtrack is refused, not run.
    expect(judge({ kind: 'answer-matches', pattern: '(?<=a)b' }, obs())).toMatchObject({ pass: false, actual: expect.stringContaining('linear time') });
    // Judged apart (in a worker, within its budget): the verdict given is the one used, a budget passed fails saying so.
    const apart = (verdict: PatternVerdict) => judge({ kind: 'answer-matches', pattern: 'Goodbye' }, obs(), { patterns: new Map([['Goodbye', verdict]]) });
    expect(apart({ ok: true, matches: true })).toMatchObject({ pass: true, actual: '“You asked: "Hi". Hello there.”' });
    expect(apart({ ok: false, why: 'not judged: … took longer than 2,000 ms' })).toMatchObject({ pass: false, actual: 'not judged: … took longer than 2,000 ms' });
  });

  it('a JSON answer validates against a schema given, or the agent’s output_schema', () => {
    const json = obs({ transcript: '{"points": ["a", "b"], "region": "emea"}' });
    const schema = { type: 'object', required: ['points'], properties: { points: { type: 'array', items: { type: 'string' } }, region: { enum: ['amer', 'emea'] } } };
    expect(pass({ kind: 'answer-schema', schema }, json)).toBe(true);
    expect(judge({ kind: 'answer-schema', schema: { ...schema, required: ['points', 'audience'] } }, json)).toMatchObject({ pass: false, actual: "(answer) must have required property 'audience'" });
    expect(judge({ kind: 'answer-schema', schema }, obs())).toMatchObject({ pass: false, actual: expect.stringContaining('not JSON') });
    expect(pass({ kind: 'answer-schema' }, json, { outputSchema: { schema } })).toBe(true);
    expect(judge({ kind: 'answer-schema' }, json, { outputSchema: { error: '404 Not found' } })).toMatchObject({ pass: false, actual: expect.stringContaining('404 Not found') });
  });

  it('timing: the first event and the duration within N ms, at least or at most N events', () => {
    expect(pass({ kind: 'first-event-within', ms: 30 })).toBe(true);
    expect(judge({ kind: 'first-event-within', ms: 29 }, obs())).toMatchObject({ pass: false, actual: '30 ms' });
    expect(judge({ kind: 'first-event-within', ms: 1000 }, obs({ firstEventMs: undefined }))).toMatchObject({ pass: false, actual: 'no event arrived' });
    expect(pass({ kind: 'duration-within', ms: 400 })).toBe(true);
    expect(pass({ kind: 'duration-within', ms: 399 })).toBe(false);
    expect(pass({ kind: 'events-at-least', count: 12 })).toBe(true);
    expect(pass({ kind: 'events-at-least', count: 13 })).toBe(false);
    expect(pass({ kind: 'events-at-most', count: 12 })).toBe(true);
    expect(judge({ kind: 'events-at-most', count: 11 }, obs())).toMatchObject({ pass: false, actual: '12 events' });
    expect(describeAssertion({ kind: 'events-at-least', count: 1 })).toBe('at least 1 event');
    expect(judge({ kind: 'events-at-least', count: 2 }, obs({ eventCount: 1 }))).toMatchObject({ pass: false, actual: '1 event' });
  });

  it('the spec lens: no difference in any event (or in the answer); a lens that could not load fails it', () => {
    const events = [
      { seq: 1, id: '1', event: 'message', at: 1, gap: 1, bytes: 10, data: '{}' },
      { seq: 2, id: '2', event: 'run.failed', at: 2, gap: 1, bytes: 10, data: '{"code":1}' },
    ];
    const checked = (errors: number): LensResult => ({ kind: 'checked', against: 'x', source: 'public-spec', differences: Array.from({ length: errors }, () => ({ pointer: '/code', text: 'must be string', severity: 'error' as const })) });
    const lens = (bad: string | null): LensChecker => ({
      checkAnswer: () => checked(bad ? 1 : 0),
      checkEvent: (_s, event) => (event === 'message' ? { kind: 'no-schema', reason: 'none' } : checked(event === bad ? 1 : 0)),
    });
    const o = obs({}, { events });
    expect(judge({ kind: 'spec-lens' }, o, { lens: lens(null) })).toMatchObject({ pass: true, actual: '1 event matches' });
    expect(judge({ kind: 'spec-lens' }, o, { lens: lens('run.failed') })).toMatchObject({ pass: false, actual: expect.stringContaining('event 2 (run.failed): /code must be string') });
    expect(pass({ kind: 'spec-lens' }, o)).toBe(false);
    const wait = obs({ request: runRequest('platform', 'wait', { id: 'echo-assistant' }, { messages: [] }), meta: { ...entry().meta!, headers: [['content-type', 'application/json']] } }, { result: { messages: [] } });
    expect(wait.lens.answer?.body).toBe('{"messages":[]}');
    expect(pass({ kind: 'spec-lens' }, wait, { lens: lens('x') })).toBe(false);
  });

  it('headers: present or absent, by name in any case; the value is never said', () => {
    const legacy = obs({ meta: { ...entry().meta!, headers: [['Deprecation', '@1787616000']] } });
    expect(pass({ kind: 'header', name: 'deprecation', present: true }, legacy)).toBe(true);
    expect(judge({ kind: 'header', name: 'Deprecation', present: false }, legacy)).toEqual({ assertion: { kind: 'header', name: 'Deprecation', present: false }, pass: false, expected: 'header Deprecation absent', actual: 'present' });
    expect(pass({ kind: 'header', name: 'Deprecation', present: false })).toBe(true);
  });
});

describe('assertions filled from a run', () => {
  it('are passed by the run they come from: outcome, answer, timings with room, no Deprecation on the current API', () => {
    const o = obs();
    const filled = assertionsFromRun(o);
    expect(filled).toEqual([
      { kind: 'outcome', expect: 'success' },
      { kind: 'answer-equals', text: 'You asked: "Hi". Hello there.' },
      { kind: 'first-event-within', ms: 5000 },
      { kind: 'duration-within', ms: 10000 },
      { kind: 'events-at-least', count: 1 },
      { kind: 'header', name: 'Deprecation', present: false },
    ]);
    expect(filled.every((a) => judge(a, o).pass)).toBe(true);
    expect(filled.map(describeAssertion)).toContain('the first event within 5,000 ms');
  });

  it('keep a failure as a failure with its code, and leave out what the run does not pass (a lens that finds differences)', () => {
    const o = obs({ status: 'failed', failure: { title: 't', detail: 'd', code: 'spend_limit_exceeded' }, durationMs: 5_000 }, { events: [{ seq: 1, id: '1', event: 'run.failed', at: 1, gap: 1, bytes: 1, data: '{}' }] });
    const differs: LensChecker = { checkAnswer: () => ({ kind: 'no-schema', reason: '' }), checkEvent: () => ({ kind: 'checked', against: '', source: 'public-spec', differences: [{ pointer: '', text: 'no', severity: 'error' }] }) };
    const filled = assertionsFromRun(o, { lens: differs });
    expect(filled[0]).toEqual({ kind: 'outcome', expect: 'failure', code: 'spend_limit_exceeded' });
    expect(filled).toContainEqual({ kind: 'duration-within', ms: 25_000 });
    expect(filled.some((a) => a.kind === 'spec-lens')).toBe(false);
  });
});
