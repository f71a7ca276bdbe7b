/**
 * The pieces that keep error answers small and checks linear: the bounded problem list, the
 * clipping of a client's text, the depth scan that runs before JSON.parse, and the one-pass
 * check of `messages`, which must agree with the contract's MESSAGES_SCHEMA (the rules the
 * console checks with Ajv) on every value.
 */
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it, test } from 'vitest';
import { MESSAGES_SCHEMA } from '../contract/agent-input.ts';
import { checkMessages, type RunInputProblem } from './agents.ts';
import { jsonNestedDeeperThan, MAX_JSON_DEPTH } from './http.ts';
import { clip, listText, MAX_LISTED_PROBLEMS, MAX_QUOTED_CHARS, pointerToken, ProblemList } from './problem-list.ts';

describe('ProblemList', () => {
  test('lists the first 100 problems and counts every one, codes included', () => {
    const list = new ProblemList();
    for (let i = 0; i < 250; i++) list.add({ pointer: `/x/${i}`, detail: 'bad', code: i === 240 ? 'missing_required_field' : 'invalid_parameter' });
    list.countOnly('other');
    expect(list.listed).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(list.listed.at(-1)!.pointer).toBe('/x/99');
    expect(list.total).toBe(251);
    expect(list.omitted).toBe(151);
    expect(list.hasCode('missing_required_field')).toBe(true);
    expect(list.hasCode('other')).toBe(true);
  });
});

describe('a client\'s text in an answer', () => {
  test('is cut to 200 characters, saying how long it was', () => {
    expect(clip('short')).toBe('short');
    const long = 'k'.repeat(1_000_000);
    expect(clip(long)).toBe(`${'k'.repeat(MAX_QUOTED_CHARS)}…(1,000,000 characters)`);
  });

  test('keys become JSON pointer tokens (RFC 6901)', () => {
    expect(pointerToken('a/b~c')).toBe('a~1b~0c');
    expect(pointerToken(7)).toBe('7');
    expect(pointerToken('x'.repeat(500)).length).toBeLessThan(MAX_QUOTED_CHARS + 30);
  });

  test('a list names the first 100 items and counts the rest', () => {
    expect(listText(['a', 'b'])).toBe('a, b');
    expect(listText(['a'], true)).toBe('"a"');
    const many = Array.from({ length: 80_000 }, (_, i) => `k${i}`);
    const text = listText(many);
    expect(text.startsWith('k0, k1, ')).toBe(true);
    expect(text.endsWith('k99 and 79,900 more')).toBe(true);
  });
});

describe('the depth scan before JSON.parse', () => {
  const depthOf = (value: unknown): number =>
    typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;

  it.each([
    ['[]', 1],
    ['{"a":[{"b":[]}]}', 4],
    ['"[[[[[[[["', 0],
    ['{"a":"\\"[[[[","b":[]}', 2],
    ['["\\\\",[["\\\\\\""]]]', 3],
  ])('%s nests %d levels', (text, depth) => {
    expect(depthOf(JSON.parse(text))).toBe(depth);
    expect(jsonNestedDeeperThan(text, depth)).toBe(false);
    expect(jsonNestedDeeperThan(text, depth - 1)).toBe(depth > 0);
  });

  test('agrees with the parsed value on random JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), (value, limit) => {
        const text = JSON.stringify(value);
        expect(jsonNestedDeeperThan(text, limit)).toBe(depthOf(value) > limit);
      }),
      { numRuns: 500 },
    );
  });

  test('reads a 1 MB body nested half a million levels without parsing it', () => {
    const text = '['.repeat(500_000) + ']'.repeat(500_000);
    expect(jsonNestedDeeperThan(text, MAX_JSON_DEPTH)).toBe(true);
  });
});

describe('the check of a run\'s messages', () => {
  const ajv = new Ajv({ allErrors: true, strict: false }).compile(MESSAGES_SCHEMA);
  const problemsOf = (messages: unknown) => {
    const list = new ProblemList<RunInputProblem>();
    checkMessages(messages, list);
    return list;
  };

  /** Values near the shape of messages: most are valid, many differ in one place. */
  const text = fc.oneof(fc.constant('text'), fc.constant('image'), fc.string({ maxLength: 3 }));
  const block = fc.oneof(
    fc.record({ type: text, text: fc.oneof(fc.string({ maxLength: 5 }), fc.integer()) }, { requiredKeys: [] }),
    fc.record({ type: text, text: fc.string(), extra: fc.boolean() }),
    fc.constant(null),
    fc.integer(),
  );
  const message = fc.oneof(
    fc.record(
      { role: fc.constantFrom('USER', 'GLEAN_AI', 'user', 'ASSISTANT'), content: fc.oneof(fc.array(block, { maxLength: 3 }), fc.string()) },
      { requiredKeys: [] },
    ),
    fc.record({ role: fc.constant('USER'), content: fc.array(block, { minLength: 1, maxLength: 2 }), note: fc.string() }),
    fc.constant('hello'),
    fc.array(fc.integer(), { maxLength: 2 }),
  );
  const messages = fc.oneof(fc.array(message, { maxLength: 4 }), fc.anything());

  test('finds a problem exactly when the contract\'s schema does', () => {
    fc.assert(
      fc.property(messages, (value) => {
        expect(problemsOf(value).empty).toBe(ajv(value));
      }),
      { numRuns: 2_000 },
    );
  });

  test('every problem points into the body, where the value is', () => {
    fc.assert(
      fc.property(messages, (value) => {
        for (const p of problemsOf(value).listed) {
          expect(p.pointer.startsWith('/messages')).toBe(true);
          expect(p.detail.startsWith(p.pointer)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    [[{ role: 'ASSISTANT', content: [{ type: 'text', text: 'x' }] }], ['/messages/0/role']],
    [[{ content: [{ type: 'text', text: 'x' }] }], ['/messages/0/role']],
    [[{ role: 'USER', content: [{ type: 'image', text: 'x' }, { text: 5 }] }], ['/messages/0/content/0/type', '/messages/0/content/1/type', '/messages/0/content/1/text']],
    [[{ role: 'USER', content: [], 'a/b': 1 }], ['/messages/0/a~1b', '/messages/0/content']],
    [[], ['/messages']],
    ['hi', ['/messages']],
  ])('%j → problems at %j', (value, pointers) => {
    expect(problemsOf(value).listed.map((p) => p.pointer)).toEqual(pointers);
  });

  test('200,000 bad messages: 100 listed, every one counted', () => {
    const list = problemsOf(Array.from({ length: 200_000 }, () => ({ role: 'X' })));
    expect(list.listed).toHaveLength(100);
    expect(list.total).toBe(400_000);
    expect(list.hasCode('missing_required_field')).toBe(true);
  });
});
