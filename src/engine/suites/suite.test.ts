import fc from 'fast-check';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import schemaJson from '../../../docs/suite-file.schema.json';
import { compileSchemaCheck } from '../../lib/schema-check';
import type { Transition } from '../run-machine';
import { decide, policyFromRun } from './policy';
import { parseRows, rowsAsText } from './rows';
import { assertionsFor, caseRequest, itemsOf, partsFor, type Assertion, type SuiteCase } from './suite';
import { parseSuiteFile, suiteFileOf } from './suite-file';
import { compareSuiteRuns, percentile, summarize } from './summary';

const hr: SuiteCase = {
  id: 'c1',
  name: 'Leave policy',
  agent: { id: 'hr-policy-form', name: 'HR Policy Agent' },
  api: 'platform',
  mode: 'wait',
  input: { topic: 'Leave', region: 'emea', maxPoints: 3, includeLinks: false, audience: '', tone: '' },
  assertions: [{ kind: 'answer-contains', text: '{{topic}}' }],
};
const echo: SuiteCase = {
  id: 'c2',
  name: 'Echo',
  agent: { id: 'echo-assistant' },
  api: 'platform',
  mode: 'stream',
  messages: [
    { role: 'USER', content: [{ type: 'text', text: 'first' }] },
    { role: 'GLEAN_AI', content: [{ type: 'text', text: 'answer' }] },
    { role: 'USER', content: [{ type: 'text', text: 'second' }] },
  ],
  assertions: [{ kind: 'answer-equals', text: 'You asked: "{{message}}".' }],
};

describe('a case’s runs', () => {
  it('send the request as saved, on the API and to the agent a suite run says', () => {
    expect(caseRequest(hr)).toMatchObject({ path: '/api/agents/hr-policy-form/runs', body: { input: hr.input, stream: false }, mode: 'wait', agentName: 'HR Policy Agent' });
    expect(caseRequest(hr, undefined, { api: 'legacy' })).toMatchObject({ path: '/rest/api/v1/agents/runs/wait', body: { agent_id: 'hr-policy-form', input: hr.input } });
    expect(caseRequest(echo, undefined, { agentId: 'echo-2' })).toMatchObject({ path: '/api/agents/echo-2/runs', agentId: 'echo-2' });
    expect(caseRequest({ ...echo, mode: 'durable' })).toMatchObject({ body: { execution_mode: 'DURABLE' } });
  });

  it('a row puts its columns over the input (typed like the saved value) or replaces the last question; assertions read its columns', () => {
    expect(partsFor(hr, { topic: 'Travel', maxPoints: '5', includeLinks: 'yes' }).input).toEqual({ ...hr.input, topic: 'Travel', maxPoints: 5, includeLinks: true });
    expect(partsFor(hr, { maxPoints: 'many' }).input).toMatchObject({ maxPoints: 'many' });
    const asked = partsFor(echo, { message: 'third' }).messages!;
    expect(asked.map((m) => m.content[0]!.text)).toEqual(['first', 'answer', 'third']);
    expect(assertionsFor(echo.assertions, { message: 'third' })).toEqual([{ kind: 'answer-equals', text: 'You asked: "third".' }]);
    expect(assertionsFor(hr.assertions, { other: 1 })).toEqual([{ kind: 'answer-contains', text: '{{topic}}' }]);
    const items = itemsOf([{ ...hr, rows: [{ topic: 'A' }, { topic: 'B' }] }, echo]);
    expect(items.map((i) => i.key)).toEqual(['c1#1', 'c1#2', 'c2']);
  });
});

describe('a row’s input', () => {
  const schema = { type: 'object', properties: { topic: { type: 'string' }, region: { type: 'string', enum: ['emea', 'amer'] }, maxPoints: { type: 'integer' }, includeLinks: { type: 'boolean' }, tags: { type: 'array' } }, required: ['topic'] };
  const saved = { ...hr, input: { topic: 'Leave', region: 'emea', maxPoints: '', includeLinks: '', tags: '' } };

  it('types a CSV cell by the agent’s input schema, not by the saved value (an optional number saved empty)', () => {
    const row = { topic: 'Travel', maxPoints: '5', includeLinks: 'no', tags: '["a"]', region: 'amer' };
    expect(partsFor(saved, row, schema).input).toEqual({ topic: 'Travel', region: 'amer', maxPoints: 5, includeLinks: false, tags: ['a'] });
    // An empty cell of an optional number is the input rule's "", one that is not a number is left for the service to name.
    expect(partsFor(saved, { maxPoints: ' ' }, schema).input).toMatchObject({ maxPoints: '' });
    expect(partsFor(saved, { maxPoints: 'many' }, schema).input).toMatchObject({ maxPoints: 'many' });
    // A JSON row's values keep their types.
    expect(partsFor(saved, { maxPoints: 7, topic: 'x' }, schema).input).toMatchObject({ maxPoints: 7 });
    // Without the schema, only the saved value's type is known: "" says nothing.
    expect(partsFor(saved, row).input).toMatchObject({ maxPoints: '5' });
  });

  it('does not send a column only the assertions read; a column no field and no assertion names is sent', () => {
    const c = { ...saved, assertions: [{ kind: 'answer-contains' as const, text: '{{expected}} in {{ region }}' }] };
    const row = { topic: 'Travel', expected: 'Travel policy', other: 'x' };
    expect(partsFor(c, row, schema).input).toEqual({ ...saved.input, topic: 'Travel', other: 'x' });
    expect(partsFor(c, row).input).toEqual({ ...saved.input, topic: 'Travel', other: 'x' });
    // A field the saved input lacks but the schema has is sent, placeholder or not.
    const partial = { ...c, input: { topic: 'Leave' }, assertions: [{ kind: 'answer-contains' as const, text: '{{maxPoints}}' }] };
    expect(partsFor(partial, { maxPoints: '3' }, schema).input).toEqual({ topic: 'Leave', maxPoints: 3 });
    expect(caseRequest(c, row, {}, schema).body).toMatchObject({ input: { topic: 'Travel' } });
    expect(caseRequest(c, row, {}, schema).body.input).not.toHaveProperty('expected');
  });
});

describe('approval policies', () => {
  const pending = [
    { interaction_id: 'i1', type: 'TOOL_APPROVAL', tool_id: 'book_flight', display_name: 'Book flight', description: '', arguments: {} },
    { interaction_id: 'i2', type: 'TOOL_APPROVAL', tool_id: 'book_hotel', display_name: 'Book hotel', description: '', arguments: {} },
  ];
  it('decide every pending approval: all, none, or per tool with a default', () => {
    expect(decide({ kind: 'approve-all' }, pending).map((d) => d.decision)).toEqual(['APPROVE', 'APPROVE']);
    expect(decide({ kind: 'reject-all' }, pending).map((d) => d.decision)).toEqual(['REJECT', 'REJECT']);
    const per = decide({ kind: 'per-tool', tools: [{ toolId: 'book_hotel', decision: 'APPROVE' }], otherwise: 'REJECT' }, pending);
    expect(per).toEqual([
      { interactionId: 'i1', tool: 'book_flight', name: 'Book flight', decision: 'REJECT', byDefault: true },
      { interactionId: 'i2', tool: 'book_hotel', name: 'Book hotel', decision: 'APPROVE' },
    ]);
  });
  it('are offered from what the run asked and decided', () => {
    const t = (decisions: Transition['decisions']): Transition[] => [{ status: 'REQUIRES_INPUT', at: 1, decisions }];
    expect(policyFromRun([])).toEqual({ kind: 'approve-all' });
    expect(policyFromRun(t([{ name: 'Submit expense report', toolId: 'submit_expense', decision: 'REJECT' }]))).toEqual({ kind: 'reject-all' });
    expect(policyFromRun(t([{ name: 'Book flight', toolId: 'book_flight', decision: 'APPROVE' }, { name: 'Book hotel', toolId: 'book_hotel', decision: 'REJECT' }]))).toEqual({
      kind: 'per-tool',
      tools: [{ toolId: 'book_flight', name: 'Book flight', decision: 'APPROVE' }, { toolId: 'book_hotel', name: 'Book hotel', decision: 'REJECT' }],
      otherwise: 'REJECT',
    });
  });
});

// A table whose first column's name starts with [ or { is read as JSON: that is the rule pasting follows.
const column = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() === s && !/^[\uFEFF[{]/.test(s) && s !== '__proto__');
const cell = fc.string({ maxLength: 20 });

describe('rows of inputs', () => {
  it('CSV written by any tool reads back as the same rows (fast-check)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(column, { minLength: 1, maxLength: 5 }), fc.array(fc.array(cell, { minLength: 5, maxLength: 5 }), { minLength: 1, maxLength: 8 }), (columns, cells) => {
        // A row whose cells are all empty is a blank line, which a table skips.
        const rows = cells.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]!]))).filter((r) => Object.values(r).some((v) => v.trim() !== ''));
        fc.pre(rows.length > 0);
        const parsed = parseRows(Papa.unparse({ fields: columns, data: rows.map((r) => columns.map((c) => r[c])) }, { quotes: true }));
        expect(parsed).toEqual({ ok: true, rows, columns });
        // Written back (to edit them again) in the order the rows' keys come, which puts number-like names first.
        expect(parseRows(rowsAsText(rows))).toMatchObject({ ok: true, rows });
      }),
      // Found by loaded runs with random seeds: a `|` in a one-column table's value, or in its name, was taken for a delimiter.
      { examples: [[['!'], [['||-|', '', '', '', '']]], [['|#'], [['!', '', '', '', '']]]] },
    );
  });

  it('JSON rows keep their values and types (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.dictionary(column, fc.oneof(cell, fc.integer(), fc.boolean()), { minKeys: 1, maxKeys: 4 }), { minLength: 1, maxLength: 6 }), (rows) => {
        const parsed = parseRows(JSON.stringify(rows, null, 1));
        expect(parsed.ok && parsed.rows).toEqual(rows);
      }),
    );
  });

  it('anything pasted gets rows or a message, never an exception (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const parsed = parseRows(text);
        if (!parsed.ok) expect(parsed.error.length).toBeGreaterThan(10);
      }),
    );
  });

  it('says what is wrong with a table', () => {
    expect(parseRows('')).toMatchObject({ ok: false, error: expect.stringContaining('Nothing to read') });
    expect(parseRows('topic,topic\na,b')).toMatchObject({ ok: false, error: 'The header line names column “topic” twice.' });
    expect(parseRows('topic,region\n"Leave,emea')).toMatchObject({ ok: false, error: 'CSV: line 2: Quoted field unterminated.' });
    expect(parseRows('[{"a": 1}, 2]')).toMatchObject({ ok: false, error: expect.stringContaining('Row 2 is not an object') });
    expect(parseRows('[{"a": 1},')).toMatchObject({ ok: false, error: expect.stringContaining('not valid JSON') });
    expect(parseRows('__proto__,topic\nx,y')).toMatchObject({ ok: false, error: expect.stringContaining('cannot be named “__proto__”') });
    expect(parseRows('[{"__proto__": {"polluted": 1}}]')).toMatchObject({ ok: false, error: expect.stringContaining('cannot be named “__proto__”') });
    expect(parseRows('topic\n')).toMatchObject({ ok: false, error: 'There is a header line but no row under it.' });
  });

  // Review r6: a case's rows come from JSON as often as from CSV, and the case editor writes them
  // back as text and saves what it reads again, even when the rows were not touched. As CSV, a row
  // whose values are all empty was a blank line, skipped: one run fewer. A row without a column
  // other rows have got "" for it: the run then sent "" over the saved input's value, and an
  // assertion's {{column}}, which stayed as written, became empty.
  it('rows read from JSON and written back for editing read again as the same rows', () => {
    const fromJson = parseRows('[{"topic": "Leave"}, {"topic": ""}, {"region": "emea"}]');
    expect(fromJson).toMatchObject({ ok: true, rows: [{ topic: 'Leave' }, { topic: '' }, { region: 'emea' }] });
    const rows = (fromJson as { rows: Record<string, unknown>[] }).rows;
    expect(parseRows(rowsAsText(rows))).toMatchObject({ ok: true, rows: [{ topic: 'Leave' }, { topic: '' }, expect.not.objectContaining({ topic: expect.anything() })] });
  });

  it('any rows JSON holds are written back as text that reads again as the same rows (fast-check)', () => {
    const value = fc.oneof(cell, fc.integer(), fc.boolean(), fc.constant(null));
    const row = fc.dictionary(column, value, { minKeys: 1, maxKeys: 4 });
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 6 }), (rows) => {
        expect(parseRows(JSON.stringify(rows))).toMatchObject({ ok: true, rows });
        expect(parseRows(rowsAsText(rows))).toEqual(parseRows(JSON.stringify(rows)));
      }),
    );
  });
});

const text = fc.string({ maxLength: 30 });
const assertion: fc.Arbitrary<Assertion> = fc.oneof(
  fc.record({ kind: fc.constant('outcome' as const), expect: fc.constant('success' as const) }),
  fc.record({ kind: fc.constant('outcome' as const), expect: fc.constant('failure' as const), code: fc.string({ minLength: 1, maxLength: 10 }) }),
  fc.record({ kind: fc.constantFrom('answer-equals' as const, 'answer-contains' as const, 'answer-not-contains' as const), text }),
  fc.record({ kind: fc.constant('answer-matches' as const), pattern: fc.constantFrom('^You', 'a+b', '\\d{3}', '[a-z]+$') }),
  fc.record({ kind: fc.constant('answer-schema' as const) }),
  fc.record({ kind: fc.constant('answer-schema' as const), schema: fc.constant({ type: 'object', required: ['a'] }) }),
  fc.record({ kind: fc.constantFrom('first-event-within' as const, 'duration-within' as const), ms: fc.nat({ max: 100_000 }) }),
  fc.record({ kind: fc.constantFrom('events-at-least' as const, 'events-at-most' as const), count: fc.nat({ max: 10_000 }) }),
  fc.record({ kind: fc.constant('spec-lens' as const) }),
  fc.record({ kind: fc.constant('header' as const), name: fc.constantFrom('Deprecation', 'Sunset', 'x-request-id'), present: fc.boolean() }),
);
const message = fc.record({ role: fc.constantFrom('USER' as const, 'GLEAN_AI' as const), content: fc.array(fc.record({ type: fc.constant('text' as const), text }), { maxLength: 2 }) });
const suiteCase: fc.Arbitrary<SuiteCase> = fc
  .record({
    name: fc.string({ minLength: 1, maxLength: 20 }),
    agent: fc.record({ id: fc.constantFrom('echo-assistant', 'hr-policy-form', 'expense-filer') }, { requiredKeys: ['id'] }),
    api: fc.constantFrom('platform' as const, 'legacy' as const),
    mode: fc.constantFrom('stream' as const, 'wait' as const, 'durable' as const),
    content: fc.oneof(fc.record({ input: fc.dictionary(column, fc.oneof(text, fc.integer(), fc.boolean())) }), fc.record({ messages: fc.array(message, { minLength: 1, maxLength: 3 }) })),
    policy: fc.option(fc.oneof(fc.constant({ kind: 'approve-all' as const }), fc.constant({ kind: 'reject-all' as const }), fc.record({ kind: fc.constant('per-tool' as const), tools: fc.array(fc.record({ toolId: fc.string({ minLength: 1, maxLength: 8 }), decision: fc.constantFrom('APPROVE' as const, 'REJECT' as const) }), { maxLength: 3 }), otherwise: fc.constantFrom('APPROVE' as const, 'REJECT' as const) })), { nil: undefined }),
    assertions: fc.array(assertion, { maxLength: 6 }),
    rows: fc.option(fc.array(fc.dictionary(column, text, { minKeys: 1, maxKeys: 3 }), { minLength: 1, maxLength: 3 }), { nil: undefined }),
    deadlineMs: fc.option(fc.integer({ min: 100, max: 86_400_000 }), { nil: undefined }),
  })
  .map(({ content, policy, rows, deadlineMs, ...c }) => ({ ...c, id: '', ...content, ...(policy && { policy }), ...(rows && { rows }), ...(deadlineMs !== undefined && { deadlineMs }) }));

describe('the suite file', () => {
  const check = compileSchemaCheck(schemaJson);

  it('round-trips any suite through its JSON Schema (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 30 }), fc.array(suiteCase, { maxLength: 5 }), (name, raw) => {
        const cases = raw.map((c, i) => ({ ...c, id: `case_${i}` }));
        const file = suiteFileOf({ name, cases }, new Date(0));
        const textOf = JSON.stringify(file, null, 2);
        expect(check(JSON.parse(textOf))).toEqual([]);
        const parsed = parseSuiteFile(textOf);
        expect(parsed).toEqual({ ok: true, file });
        if (parsed.ok) expect(parsed.file.cases).toEqual(cases);
      }),
      { numRuns: 80 },
    );
  }, 30_000);

  it('never writes a token, a profile or a header value', () => {
    const file = suiteFileOf({ name: 'S', cases: [{ ...hr, ...({ token: 'sandbox-agents-1d6f3b9e0a7c2548', target: { baseUrl: 'https://x' } } as object) }] });
    expect(JSON.stringify(file)).not.toMatch(/sandbox-|token|baseUrl|https:/);
    expect(check({ ...JSON.parse(JSON.stringify(file)), token: 't' })).not.toEqual([]);
    expect(check({ ...file, cases: [{ ...hr, assertions: [{ kind: 'header', name: 'Authorization', present: true, value: 'Bearer x' }] }] })).not.toEqual([]);
  });

  it('names the place of every problem: line and column, the case by its name, the path', () => {
    const good = JSON.stringify(suiteFileOf({ name: 'S', cases: [hr, echo] }), null, 2);
    // Said in words, not the parser's code names (ValueExpected, CommaExpected).
    expect(parseSuiteFile('{ "format": ', 'broken.json')).toEqual({ ok: false, problems: ['broken.json:1:13: not valid JSON: a value is missing here'] });
    expect(parseSuiteFile('{"format": "x" "cases": []}', 'b.json')).toEqual({ ok: false, problems: ['b.json:1:16: not valid JSON: a comma is missing here'] });
    expect(parseSuiteFile('{"format": "x", "cases": [1, 2', 'c.json')).toMatchObject({ ok: false, problems: [expect.stringMatching(/^c\.json:1:\d+: not valid JSON: a ] is missing here$/)] });
    expect(parseSuiteFile('{"a": 1}', 'x.json')).toMatchObject({ ok: false, problems: [expect.stringMatching(/^x\.json:1:1: not a suite file/)] });
    const bad = good.replace('"kind": "answer-contains"', '"kind": "answer-contain"');
    const parsed = parseSuiteFile(bad, 's.json');
    const line = bad.split('\n').findIndex((l) => l.includes('answer-contain"')) + 1;
    expect(parsed).toEqual({ ok: false, problems: [expect.stringMatching(new RegExp(`^s\\.json:${line}:\\d+: cases\\[0\\] “Leave policy” › assertions\\[0\\] › kind: must be equal to one of the allowed values \\(outcome, answer-equals`))] });
    const twice = parseSuiteFile(good.replace('"id": "c2"', '"id": "c1"'), 's.json');
    expect(twice).toMatchObject({ ok: false, problems: [expect.stringMatching(/cases\[1\] “Echo” › id: the same id as cases\[0\]/)] });
    const missing = parseSuiteFile(good.replace(/"mode": "stream",\n/, ''), 's.json');
    expect(missing).toMatchObject({ ok: false, problems: [expect.stringContaining("cases[1] “Echo”: must have required property 'mode'")] });
  });
});

describe('a hostile suite file', () => {
  // Files that held the page (import) and the CLI: measured on main as 7.6 s and a RangeError
  // for 40,000 problems in 1.8 MB (the walker spreads every error into one call), and a
  // RangeError from the JSON reader for a file nested 100,000 deep.
  const caseOf = (i: number, assertions: unknown[], extra: object = {}) => ({ ...echo, id: `c${i}`, name: `case ${i}`, assertions, ...extra });
  const fileOf = (cases: unknown[]) => JSON.stringify({ format: 'metadata-agents-console/suite', version: 1, suite: { name: 'H' }, cases });

  it('with a problem in every one of 20,000 assertions (the most a file holds) says the first twenty, in time linear in the file', () => {
    const withProblems = (cases: number) => fileOf(Array.from({ length: cases }, (_, i) => caseOf(i, Array.from({ length: 100 }, () => ({ kind: 'answer-contains', text: 'a', extra: 1 })))));
    const parsed = parseSuiteFile(withProblems(200), 'h.json');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.problems).toHaveLength(20);
      expect(parsed.problems[0]).toMatch(/^h\.json:1:\d+: cases\[0\] “case 0” › assertions\[0\]: must NOT have additional properties/);
    }
    // Linear, not quadratic (the walk of every problem once took 7.6 s): eight times the file
    // takes about eight times as long, where a quadratic walk takes sixty-four. The threshold sits
    // between them, far from both: at four times the file (4 against 16) a pause of the machine
    // or a collection once made a linear walk measure 13. Each side is the quickest of five,
    // after a first walk that warms the code up, the two taken in turn: measured one after the
    // other, a machine busier for the large file's five walks than for the small one's made a
    // linear walk measure 31 (npm test runs the browser tests beside these).
    const small = withProblems(25);
    const large = withProblems(200);
    parseSuiteFile(small, 'h.json');
    const quickest = { small: Infinity, large: Infinity };
    for (let round = 0; round < 5; round++) {
      for (const [side, text] of [['small', small], ['large', large]] as const) {
        const t0 = performance.now();
        parseSuiteFile(text, 'h.json');
        quickest[side] = Math.min(quickest[side], performance.now() - t0);
      }
    }
    expect(quickest.large / quickest.small).toBeLessThan(24);
  });

  it('saved by an editor with a byte order mark (UTF-8 BOM) is read as the same file', () => {
    const text = fileOf([caseOf(0, [{ kind: 'answer-contains', text: 'a' }])]);
    const parsed = parseSuiteFile(text, 'b.json');
    expect(parsed.ok).toBe(true);
    expect(parseSuiteFile(`\uFEFF${text}`, 'b.json')).toEqual(parsed);
  });

  it('nested 100,000 deep says so, naming the file', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(parseSuiteFile(`{"format":"metadata-agents-console/suite","x":${deep}}`, 'd.json')).toEqual({ ok: false, problems: [expect.stringMatching(/^d\.json: nested more than \d[\d,]* levels deep: not a suite file/)] });
  });

  it('with more assertions than a file holds (30,000) says so at once, before walking them', () => {
    // The last assertion is of no kind there is: a walk of the assertions would report it too.
    const cases = Array.from({ length: 300 }, (_, i) => caseOf(i, Array.from({ length: 100 }, () => ({ kind: 'answer-contains', text: 'a' }))));
    (cases.at(-1)!.assertions as unknown[])[99] = { kind: 'no-such-kind' };
    expect(parseSuiteFile(fileOf(cases), 'a.json')).toEqual({ ok: false, problems: ['a.json: 30,000 assertions in all; a suite file holds at most 20,000: split it into several suites'] });
  });

  it('with more cases than a suite holds says so once', () => {
    const parsed = parseSuiteFile(fileOf(Array.from({ length: 5001 }, (_, i) => caseOf(i, []))), 'm.json');
    expect(parsed).toMatchObject({ ok: false, problems: [expect.stringMatching(/^m\.json:1:\d+: cases: must NOT have more than 5000 items/)] });
  });
});

describe('a suite run’s summary and two runs compared', () => {
  const r = (key: string, verdict: 'passed' | 'failed' | 'stopped', durationMs: number, firstEventMs: number | undefined, transcript = 'same answer', failing: string[] = []) => ({
    key,
    name: key,
    verdict,
    assertions: failing.map((expected) => ({ assertion: { kind: 'spec-lens' as const }, pass: false, expected, actual: 'x' })),
    entry: { durationMs, firstEventMs, transcript },
  });

  it('p50 and p95 are measured values (nearest rank); stopped cases are not timed', () => {
    expect(percentile([4, 1, 3, 2], 50)).toBe(2);
    expect(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 95)).toBe(95);
    expect(percentile([], 50)).toBeUndefined();
    const s = summarize([r('a', 'passed', 100, 10), r('b', 'failed', 300, 30), r('c', 'stopped', 5, undefined), r('d', 'passed', 200, undefined)]);
    expect(s).toEqual({ total: 4, passed: 2, failed: 1, stopped: 1, firstEvent: { p50: 10, p95: 30, n: 2 }, duration: { p50: 200, p95: 300, n: 3 } });
  });

  it('lists changed outcomes regressions first, changed answers as a word diff, and timings past the threshold', () => {
    const a = [r('fixed', 'failed', 100, 10), r('reg', 'passed', 100, 10), r('slow', 'passed', 100, 10), r('same', 'passed', 1000, 10, 'You asked: "Hi".'), r('gone', 'passed', 1, 1)];
    const b = [r('fixed', 'passed', 100, 10), r('reg', 'failed', 100, 10, 'same answer', ['the answer equals “x”']), r('slow', 'passed', 400, 10), r('same', 'passed', 1100, 10, 'You asked: "Hello".'), r('new', 'passed', 1, 1)];
    const c = compareSuiteRuns(a, b);
    expect(c.outcomes.map((x) => [x.key, x.outcome])).toEqual([['reg', 'regression'], ['fixed', 'fixed'], ['new', 'new'], ['gone', 'gone']]);
    expect(c.outcomes[0]!.newlyFailing).toEqual(['the answer equals “x”']);
    expect(c.answers.map((x) => x.key)).toEqual(['same']);
    expect(c.answers[0]!.answer!.parts.filter((p) => p.added).map((p) => p.value)).toEqual(['Hello']);
    expect(c.timings.map((x) => [x.key, x.timings])).toEqual([['slow', [{ label: 'duration', a: 100, b: 400 }]]]);
    expect(c.threshold).toEqual({ ratio: 0.5, ms: 200 });
  });
});
