import fc from 'fast-check';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { runRequest } from '../run-request';
import { caseLine, junitXml } from './reports';
import type { CaseResult } from './runner';

function result(name: string, actual: string, pass = false): CaseResult {
  return {
    key: name,
    caseId: name,
    name,
    verdict: pass ? 'passed' : 'failed',
    assertions: [{ assertion: { kind: 'answer-equals', text: 'x' }, pass, expected: 'the answer equals “x”', actual }],
    entry: { id: name, startedAt: 0, request: runRequest('platform', 'stream', { id: 'echo-assistant' }, { messages: [] }), target: { profileLabel: '', mode: 'direct', baseUrl: '' }, status: 'done', durationMs: 1234, eventCount: 1, bytes: 1, transcript: actual },
    details: {},
  };
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => ['testcase', 'failure'].includes(n), trimValues: false, htmlEntities: true, parseAttributeValue: false });
const meta = { suiteName: 'S & <co>', baseUrl: 'http://127.0.0.1:1', startedAt: 0, durationMs: 2000 };

describe('JUnit XML', () => {
  it('is well-formed for any name and answer, and reads back with both values (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40, unit: 'binary' }), fc.string({ maxLength: 80, unit: 'binary' }), (name, actual) => {
        const text = junitXml([result(name, actual)], meta);
        expect(XMLValidator.validate(text)).toBe(true);
        const testcase = parser.parse(text).testsuites.testsuite.testcase[0];
        // Characters XML cannot hold come back as U+FFFD; everything else as it was.
        // eslint-disable-next-line no-control-regex
        const kept = (s: string) => s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
        expect(String(testcase.name)).toBe(kept(name));
        expect(testcase.failure[0].message).toBe(kept(`the answer equals “x”: got ${actual}`));
      }),
      { numRuns: 200 },
    );
  }, 30_000);

  it('has a testcase per case, at most one failure in each that lists every failed assertion, counts and time', () => {
    const r = result('two', 'y');
    r.assertions.push({ assertion: { kind: 'events-at-least', count: 3 }, pass: false, expected: 'at least 3 events', actual: '1 event' });
    r.assertions.push({ assertion: { kind: 'outcome', expect: 'success' }, pass: true, expected: 'Done or Succeeded', actual: 'Done' });
    const parsed = parser.parse(junitXml([r, result('ok', 'x', true)], meta));
    expect(parsed.testsuites.testsuite).toMatchObject({ name: 'S & <co>', tests: '2', failures: '1', time: '2.000' });
    const [a, b] = parsed.testsuites.testsuite.testcase;
    expect(a.failure).toHaveLength(1);
    expect(a.failure[0]).toMatchObject({ type: 'answer-equals, events-at-least', message: '2 of 3 assertions failed: the answer equals “x”: got y; at least 3 events: got 1 event' });
    expect(a.failure[0]['#text']).toBe('expected: the answer equals “x”\nactual: y\n\nexpected: at least 3 events\nactual: 1 event');
    expect(a).toMatchObject({ classname: 'echo-assistant.current.stream', time: '1.234' });
    expect(b.failure).toBeUndefined();
  });

  it('a case the agent is gone for fails once, however many of its assertions failed', () => {
    const gone = result('gone', 'Refused (resource_not_found)');
    gone.assertions = ['Done or Succeeded', 'the answer contains “x”', 'at least 1 event', 'header Deprecation absent'].map((expected) => ({ assertion: { kind: 'outcome', expect: 'success' }, pass: false, expected, actual: 'Refused (resource_not_found)' }));
    const testcase = parser.parse(junitXml([gone], meta)).testsuites.testsuite.testcase[0];
    expect(testcase.failure).toHaveLength(1);
    expect(testcase.failure[0].message).toMatch(/^4 of 4 assertions failed: Done or Succeeded: got Refused/);
    expect(testcase.failure[0]['#text'].match(/^expected: /gm)).toHaveLength(4);
  });

  it('a stopped case is skipped, never also failed', () => {
    const stopped = { ...result('stopped', 'Stopped by you.'), verdict: 'stopped' as const };
    const parsed = parser.parse(junitXml([stopped], meta)).testsuites.testsuite;
    expect(parsed).toMatchObject({ tests: '1', failures: '0', skipped: '1' });
    expect(parsed.testcase[0].skipped).toBeDefined();
    expect(parsed.testcase[0].failure).toBeUndefined();
  });
});

describe('a case’s line in the terminal', () => {
  it('says why a failed case failed when its run had a problem (a replay’s 404 names the closest recording), in one line and bounded', () => {
    const refused = result('Leave policy echo', 'Refused (resource_not_found)');
    refused.entry = { ...refused.entry, status: 'refused', problem: 'No recording matches POST /api/agents/echo-assistant/runs.\nThe closest: 0003-post-api-agents-echo-assistant-runs.json (the body differs at /messages/0).' };
    const line = caseLine(refused).split('\n');
    expect(line[0]).toMatch(/^FAIL {2}Leave policy echo/);
    expect(line[1]).toBe('      ✗ the answer equals “x”: got Refused (resource_not_found)');
    expect(line[2]).toBe('      No recording matches POST /api/agents/echo-assistant/runs. The closest: 0003-post-api-agents-echo-assistant-runs.json (the body differs at /messages/0).');
    const long = result('long', 'Refused');
    long.entry = { ...long.entry, problem: 'x'.repeat(1_000) };
    expect(caseLine(long).split('\n')[2]).toHaveLength(6 + 300 + 1);
    expect(caseLine(result('passed', 'x', true))).not.toMatch(/\n/);
  });
});
