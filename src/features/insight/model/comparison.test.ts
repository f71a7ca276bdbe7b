import { describe, expect, it } from 'vitest';
import type { Message } from '../../../contract/agents';
import { formatBytes } from '../../../lib/format';
import { answersMatch, bodyDiff, comparisonFileOf, headerDiff, metricRows, sentDifferences, splitByApi } from './comparison';
import { counterpart, runRequest } from '../../../engine/run-request';

describe('comparison', () => {
  it('answers differing only in surrounding whitespace match', () => {
    expect(answersMatch('Hi\n', 'Hi')).toBe(true);
    expect(answersMatch('Hi', 'Ho')).toBe(false);
  });

  it('a body member is told by its own name, even one every object inherits', () => {
    expect(bodyDiff({ input: { constructor: 'x' } }, { input: {} })).toEqual([{ pointer: '/input/constructor', kind: 'only-a', a: 'x' }]);
    expect(bodyDiff({ input: {} }, { input: { toString: 'y' } })).toEqual([{ pointer: '/input/toString', kind: 'only-b', b: 'y' }]);
  });

  it('gives each figure of the second run as a difference from the first', () => {
    const rows = metricRows(
      { status: 'Done', httpStatus: 200, durationMs: 1_000, firstEventMs: 40, eventCount: 10, bytes: 2_000 },
      { status: 'Done', httpStatus: 200, durationMs: 1_250, firstEventMs: 30, eventCount: 10, bytes: 1_500 },
    );
    const by = Object.fromEntries(rows.map((r) => [r.label, r]));
    expect(by['Duration']).toEqual({ label: 'Duration', a: '1,000 ms', b: '1,250 ms', delta: '+250 ms', differs: true });
    expect(by['First event']!.delta).toBe('−10 ms');
    expect(by['Events']).toMatchObject({ delta: 'same', differs: false });
    expect(by['Bytes']!.delta).toBe(`−${formatBytes(500)}`);
    expect(by['Status']!.differs).toBe(false);
  });

  it('a figure one run lacks has no difference, and differs', () => {
    const rows = metricRows({ status: 'Done', eventCount: 0, bytes: 10 }, { status: 'Failed', firstEventMs: 5, eventCount: 1, bytes: 10 });
    const first = rows.find((r) => r.label === 'First event')!;
    expect(first).toEqual({ label: 'First event', a: '–', b: '5 ms', differs: true });
    expect(rows.find((r) => r.label === 'Status')!.differs).toBe(true);
  });

  it('a wait run has no event count: a dash, not 0', () => {
    const rows = metricRows({ status: 'Done', firstEventMs: 40, eventCount: 12, bytes: 10 }, { status: 'Done', bytes: 10 });
    expect(rows.find((r) => r.label === 'Events')).toEqual({ label: 'Events', a: '12', b: '–', differs: true });
  });

  it('tells the legacy and current request bodies apart by pointer', () => {
    const messages: Message[] = [{ role: 'USER', content: [{ type: 'text', text: 'Hi' }] }];
    const current = runRequest('platform', 'stream', { id: 'echo' }, { messages });
    const legacy = counterpart(current);
    expect(bodyDiff(legacy.body, current.body)).toEqual([
      { pointer: '/agent_id', kind: 'only-a', a: 'echo' },
      { pointer: '/stream', kind: 'only-b', b: true },
    ]);
    expect(sentDifferences({ request: legacy, profileLabel: 'P' }, { request: current, profileLabel: 'P' })).toEqual(['legacy API against current API']);
  });

  it('finds changed values deep in arrays and objects, with escaped pointers', () => {
    expect(bodyDiff({ a: [1, { 'x/y': 'p' }], b: null }, { a: [1, { 'x/y': 'q' }, 3], b: null })).toEqual([
      { pointer: '/a/1/x~1y', kind: 'changed', a: 'p', b: 'q' },
      { pointer: '/a/2', kind: 'only-b', b: 3 },
    ]);
    expect(bodyDiff({ n: 1 }, { n: '1' })).toEqual([{ pointer: '/n', kind: 'changed', a: 1, b: '1' }]);
    expect(bodyDiff({ same: { x: [1] } }, { same: { x: [1] } })).toEqual([]);
  });

  it('lists every difference of two large bodies (200,000 changed items under a member) without a RangeError', () => {
    const n = 200_000;
    const a = { messages: { items: Array.from({ length: n }, (_, i) => i) } };
    const b = { messages: { items: Array.from({ length: n }, (_, i) => -i - 1) } };
    const diff = bodyDiff(a, b);
    expect(diff).toHaveLength(n);
    expect(diff[0]).toEqual({ pointer: '/messages/items/0', kind: 'changed', a: 0, b: -1 });
    expect(diff.at(-1)).toEqual({ pointer: `/messages/items/${n - 1}`, kind: 'changed', a: n - 1, b: -n });
  });

  it('lists the headers that differ, names ignoring case, leaving out those that differ on every answer', () => {
    const legacy: [string, string][] = [
      ['Content-Type', 'text/event-stream'],
      ['Deprecation', '@1767225600'],
      ['Sunset', 'Wed, 30 Sep 2026 00:00:00 GMT'],
      ['Date', 'Mon, 23 Nov 2026 10:00:00 GMT'],
      ['X-Request-Id', 'req_1'],
    ];
    const current: [string, string][] = [
      ['content-type', 'text/event-stream'],
      ['date', 'Mon, 23 Nov 2026 10:00:01 GMT'],
      ['x-request-id', 'req_2'],
    ];
    expect(headerDiff(legacy, current)).toEqual([
      { name: 'deprecation', a: '@1767225600' },
      { name: 'sunset', a: 'Wed, 30 Sep 2026 00:00:00 GMT' },
    ]);
    expect(headerDiff(undefined, [['X-Extra', '1']])).toEqual([{ name: 'x-extra', b: '1' }]);
  });

  it('says how the two requests were sent differently: mode, agent, profile', () => {
    const a = runRequest('platform', 'stream', { id: 'echo' }, {});
    const b = runRequest('platform', 'wait', { id: 'other' }, {});
    expect(sentDifferences({ request: a, profileLabel: 'Sandbox' }, { request: b, profileLabel: 'Production' })).toEqual([
      'stream against wait',
      'agent echo against other',
      'profile Sandbox against Production',
    ]);
  });
});

describe('comparison file', () => {
  it('carries both requests, answers and differences, and never a cookie or authorization header', () => {
    const current = runRequest('platform', 'wait', { id: 'echo', name: 'Echo' }, { messages: [] });
    const legacy = counterpart(current);
    const side = (id: string, request: typeof current, transcript: string, headers: [string, string][]) => ({
      id,
      request,
      profileLabel: 'Reference service',
      startedAt: Date.UTC(2026, 10, 25),
      figures: { status: 'Done', httpStatus: 200, durationMs: 10, eventCount: 0, bytes: 20 },
      transcript,
      headers,
    });
    const file = comparisonFileOf(
      side('a', legacy, 'Echo: hi', [['Deprecation', '@1'], ['Set-Cookie', 'sid=secret']]),
      side('b', current, 'Echo: hi there', [['Authorization', 'Bearer sandbox-x']]),
      Date.UTC(2026, 10, 25, 1),
    );
    const text = JSON.stringify(file);
    expect(text).not.toMatch(/secret|Bearer|sandbox-x/);
    expect(file.a).toMatchObject({ api: 'legacy', path: '/rest/api/v1/agents/runs/wait', body: { agent_id: 'echo' } });
    expect(file.b).toMatchObject({ api: 'current', path: '/api/agents/echo/runs', body: { stream: false } });
    expect(file.differences).toMatchObject({
      sent: ['legacy API against current API'],
      answersMatch: false,
      onlyInB: [' there'],
      headers: [{ name: 'deprecation', a: '@1' }],
    });
  });
});

describe('splitByApi', () => {
  it('tells the members an API puts in a body from what the requests themselves differ in', () => {
    const user = (text: string): Message => ({ role: 'USER', content: [{ type: 'text', text }] });
    const agent = { id: 'echo-assistant' };
    // A conversation's third turn (current API) against a first question on the legacy API.
    const current = runRequest('platform', 'wait', agent, { messages: [user('hi'), { role: 'GLEAN_AI', content: [{ type: 'text', text: 'Echo: hi' }] }, user('again')] });
    const legacy = runRequest('legacy', 'wait', agent, { messages: [user('hi')] });
    const { api, requests } = splitByApi(bodyDiff(legacy.body, current.body));
    expect(api.map((d) => d.pointer)).toEqual(['/agent_id', '/stream']);
    expect(requests.map((d) => d.pointer)).toEqual(['/messages/1', '/messages/2']);
    // The same question on both: only the APIs' members.
    expect(splitByApi(bodyDiff(legacy.body, counterpart(legacy).body)).requests).toEqual([]);
  });
});
