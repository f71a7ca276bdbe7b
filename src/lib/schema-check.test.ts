import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { completeInputSchema } from '../contract/agent-input';
import { compileSchemaCheck } from './schema-check';

/**
 * The page checks agent input without Ajv (which compiles code) and must say what Ajv says:
 * the reference service keeps Ajv, and the form showed Ajv's messages. Each case runs both on
 * the same schema and values; the errors (keyword, where, message, params) must be the same,
 * in the same order.
 */
// logger off: Ajv warns of the formats it ignores; the page's Ajv did the same, quietly or not.
const ajv = new Ajv({ allErrors: true, strict: false, logger: false });

const HR_FORM = {
  type: 'object',
  properties: {
    topic: { type: 'string', minLength: 1, description: 'What the policy question is about' },
    region: { type: 'string', enum: ['global', 'amer', 'emea', 'apac'] },
    audience: { type: 'string' },
    tone: { type: 'string', enum: ['neutral', 'friendly', 'formal'] },
    maxPoints: { type: 'integer', minimum: 1, maximum: 10 },
    includeLinks: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    owner: { type: 'object', properties: { name: { type: 'string' }, team: { type: 'string', minLength: 2 } }, required: ['team'] },
  },
  required: ['topic', 'region'],
};

const CASES: [string, unknown, unknown[]][] = [
  [
    'the HR form, complete (every field present, optional ones may be "")',
    completeInputSchema(HR_FORM),
    [
      { topic: 'leave', region: 'emea', audience: '', tone: '', maxPoints: '', includeLinks: false, tags: '', owner: '' },
      { topic: '', region: 'mars', audience: 3, tone: 'angry', maxPoints: 11, includeLinks: 'yes', tags: [1, 'a', {}], owner: { name: 1, team: 'x' } },
      { topic: 'a', region: '', maxPoints: 2.5, owner: { team: '' } },
      { maxPoints: 'abc', tags: 'x', owner: [] },
      {},
      'not an object',
      null,
    ],
  ],
  [
    'keywords of every type at one level',
    {
      type: 'object',
      properties: {
        s: { type: 'string', minLength: 2, maxLength: 4, pattern: '^[a-z]+$', enum: ['abc', 'ABCDE', 'a'] },
        n: { type: 'number', minimum: 0, exclusiveMaximum: 10, multipleOf: 2 },
        x: { type: 'number', exclusiveMinimum: 1, maximum: 5 },
        i: { type: 'integer', enum: [1, 2], const: 2 },
        many: { type: ['string', 'null'] },
        any: { enum: [{ a: 1 }, [1], 'x'] },
        c: { const: { deep: [1, 2] } },
      },
      additionalProperties: false,
      minProperties: 2,
      maxProperties: 4,
    },
    [
      { s: 'abc', n: 4 },
      { s: 'A', n: 11, x: 1, i: 1, many: 3, any: { a: 2 }, c: { deep: [1] }, extra: 1, more: 2 },
      { s: 'ABCDE', n: 3, x: 6, i: 1.5, many: null, any: [1], c: { deep: [1, 2] } },
      { s: 5, n: 'x', i: 'x' },
      { other: true },
    ],
  ],
  [
    'arrays: limits, unique items, tuples, contains',
    {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, maxItems: 3, uniqueItems: true },
        objs: { type: 'array', items: { type: 'object', required: ['id'] }, uniqueItems: true },
        mixed: { type: 'array', uniqueItems: true },
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
        open: { type: 'array', items: [{ const: 1 }], additionalItems: { type: 'string' } },
        has: { type: 'array', contains: { type: 'integer', minimum: 5 } },
      },
    },
    [
      { tags: ['a', 'b'], objs: [{ id: 1 }, { id: 2 }], pair: ['a', 1], has: [6] },
      { tags: [], objs: [{ id: 1 }, {}, { id: 1 }], pair: ['a', 'b', 3, 4], has: [1, 2], mixed: [1, '1', 1, true, true] },
      { tags: ['a', '', 'a', 'b'], objs: [{}, {}], pair: [1], open: [2, 'x', 3, 4], has: 'x', mixed: [{ a: 1 }, [1], { a: 1 }] },
      { tags: ['x', 'y', 'x', 'y'], mixed: ['b', 'a', 'b', 'a'] },
    ],
  ],
  [
    // Pattern properties are left to the service (see "what the page leaves unchecked" below).
    'objects: dependencies, property names, additional property schemas',
    {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'integer' } },
      dependencies: { a: ['b', 'c'], c: { required: ['a'], properties: { a: { minLength: 3 } } } },
      propertyNames: { maxLength: 5, pattern: '^[a-z-]+$' },
      additionalProperties: { type: 'boolean' },
    },
    [
      { a: 'abcd', b: 'x', c: 1 },
      { a: 'x' },
      { c: 2 },
      { c: 2, a: 'ab', 'x-one': 'no', 'x-two': 2, flag: 'yes', TooLongName: true, ok: false },
    ],
  ],
  [
    'combinators, conditions, references and false schemas',
    {
      definitions: { code: { type: 'string', pattern: '^[A-Z]{3}$' }, positive: { type: 'number', minimum: 1 } },
      type: 'object',
      properties: {
        currency: { $ref: '#/definitions/code' },
        amount: { $ref: '#/definitions/positive', maximum: 100 },
        id: { oneOf: [{ type: 'string' }, { type: 'integer' }, { const: 7 }] },
        either: { anyOf: [{ type: 'string', minLength: 3 }, { type: 'array', items: { $ref: '#/definitions/code' } }] },
        both: { allOf: [{ type: 'string' }, { minLength: 2 }, { pattern: 'z' }] },
        never: false,
        notThis: { not: { type: 'string' } },
        kind: { type: 'string' },
        when: { if: { type: 'string' }, then: { minLength: 3 }, else: { type: 'integer', minimum: 10 } },
        emailed: { type: 'string', format: 'email', enum: ['a@b.c'] },
        three: { oneOf: [{}, { type: 'integer' }, { minimum: 0 }] },
      },
      if: { properties: { kind: { const: 'card' } }, required: ['kind'] },
      then: { required: ['currency'] },
      else: { required: ['amount'] },
    },
    [
      { kind: 'card', currency: 'EUR', amount: 5, id: 'a', either: 'abcd', both: 'zz', notThis: 1, when: 'abc', emailed: 'a@b.c' },
      { kind: 'card', amount: 0, id: 7, either: 'ab', both: 'a', never: 1, notThis: 'x', when: 'ab', emailed: 5 },
      { kind: 'cash', currency: 'eu', amount: 200, id: true, either: ['eur', 'USD', 3], both: 3, when: 5 },
      { when: true, emailed: 'not-an-email', three: 5 },
      { three: -1 },
      { three: 'x' },
    ],
  ],
];

const ajvErrors = (schema: unknown, value: unknown) => {
  const validate = ajv.compile(schema as object);
  validate(value);
  return (validate.errors ?? []).map(({ keyword, instancePath, message, params }) => ({ keyword, instancePath, message, params }));
};
const ours = (schema: unknown, value: unknown) => compileSchemaCheck(schema)(value).map(({ keyword, instancePath, message, params }) => ({ keyword, instancePath, message, params }));

describe('the same errors as Ajv, in the same order', () => {
  for (const [name, schema, values] of CASES) {
    it.each(values.map((v) => [JSON.stringify(v), v]))(`${name}: %s`, (_, value) => {
      expect(ours(schema, value)).toEqual(ajvErrors(schema, value));
    });
  }

  it('on a thousand values drawn at random, field by field', () => {
    // A fixed seed: the same values on every run, so a difference is reproducible.
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pool: unknown[] = [undefined, '', 'a', 'abc', 'ABC', 'EUR', 'mars', 'emea', 'card', 0, 1, 5, 7, 11, 2.5, -3, true, false, null, [], ['a'], ['a', 'a'], [1, 2, 1], [{ id: 1 }, { id: 1 }], {}, { team: 'x' }, { name: 'n', team: 'core' }];
    let compared = 0;
    for (const [, schema, values] of CASES) {
      const check = compileSchemaCheck(schema);
      const validate = ajv.compile(schema as object);
      const names = [...new Set(values.flatMap((v) => (typeof v === 'object' && v !== null ? Object.keys(v) : [])))];
      for (let n = 0; n < 200; n++) {
        const value: Record<string, unknown> = {};
        for (const name of names) {
          const pick = pool[Math.floor(random() * pool.length)];
          if (pick !== undefined) value[name] = pick;
        }
        validate(value);
        const expected = (validate.errors ?? []).map(({ keyword, instancePath, message, params }) => ({ keyword, instancePath, message, params }));
        expect(check(value).map(({ keyword, instancePath, message, params }) => ({ keyword, instancePath, message, params })), JSON.stringify(value)).toEqual(expected);
        compared++;
      }
    }
    expect(compared).toBe(1000);
  });

  it('has cases where the value fails, many ways at once', () => {
    const failing = CASES.flatMap(([, schema, values]) => values.map((v) => ajvErrors(schema, v).length));
    expect(failing.filter((n) => n >= 5).length).toBeGreaterThanOrEqual(5);
  });
});

describe('the schemas Ajv refuses to compile are refused with its words', () => {
  it.each([
    ['a type that does not exist', { type: 'object', properties: { a: { type: 'text' } } }],
    ['keywords of the wrong shape', { type: 'object', properties: { a: { type: 'string', minLength: -1, enum: 'x' } } }],
    ['a pattern that is not a regular expression', { type: 'object', properties: { a: { type: 'string', pattern: '(' } } }],
    ['a later draft', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' }],
  ])('%s', (_, schema) => {
    let expected = '';
    try {
      ajv.compile(schema);
    } catch (err) {
      expected = (err as Error).message;
    }
    expect(expected).not.toBe('');
    expect(() => compileSchemaCheck(schema)).toThrow(expected);
  });

  it('a reference to nothing, once a value reaches it', () => {
    const schema = { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } };
    expect(() => ajv.compile(schema)).toThrow("can't resolve reference #/definitions/missing from id #");
    expect(() => compileSchemaCheck(schema)({ a: 1 })).toThrow("can't resolve reference #/definitions/missing from id #");
  });

  it('accepts the draft-07 $schema, with or without its #', () => {
    expect(compileSchemaCheck({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' })(1)).toEqual([expect.objectContaining({ message: 'must be string' })]);
    expect(compileSchemaCheck({ $schema: 'http://json-schema.org/draft-07/schema', type: 'string' })('x')).toEqual([]);
  });
});

describe('the schema it is given', () => {
  it('is left as it was: the walker annotates a copy', () => {
    const schema = completeInputSchema(HR_FORM);
    const before = JSON.stringify(schema);
    const props = Object.getOwnPropertyNames((schema.properties as Record<string, object>).topic);
    compileSchemaCheck(schema)({});
    expect(JSON.stringify(schema)).toBe(before);
    expect(Object.getOwnPropertyNames((schema.properties as Record<string, object>).topic)).toEqual(props);
  });
});

describe('what the page leaves unchecked: patterns never run on the backtracking engine', () => {
  const TRAP = '^(a+)+$';
  const HOSTILE = `${'a'.repeat(40)}!`;

  it('checks a catastrophic pattern in linear time, with Ajv’s error', () => {
    const schema = { type: 'object', properties: { code: { type: 'string', pattern: TRAP } } };
    const check = compileSchemaCheck(schema);
    const started = performance.now();
    expect(ours(schema, { code: HOSTILE })).toEqual([{ keyword: 'pattern', instancePath: '/code', message: `must match pattern "${TRAP}"`, params: { pattern: TRAP } }]);
    expect(check({ code: 'aaaa' })).toEqual([]);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(check.unchecked).toEqual([]);
  });

  it('names a pattern the linear engine does not take, and does not hold a value to it', () => {
    const schema = { type: 'object', properties: { pin: { type: 'string', pattern: '^(?=.*\\d).+$', minLength: 2 } } };
    const check = compileSchemaCheck(schema);
    expect(check.unchecked).toEqual([{ schemaPath: '/properties/pin/pattern', keyword: 'pattern', pattern: '^(?=.*\\d).+$', why: expect.stringMatching(/^the page matches patterns in linear time/) }]);
    expect(check({ pin: 'no digits' })).toEqual([]);
    expect(check({ pin: 'x' }).map((e) => e.keyword)).toEqual(['minLength']);
  });

  it('leaves pattern properties, and the additional properties beside them, to the service', () => {
    const schema = {
      type: 'object',
      properties: { [HOSTILE]: { type: 'string' } },
      patternProperties: { [TRAP]: { type: 'integer' } },
      additionalProperties: false,
    };
    const check = compileSchemaCheck(schema);
    const started = performance.now();
    expect(check({ [HOSTILE]: 'x', other: 1 })).toEqual([]);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(check.unchecked).toEqual([{ schemaPath: '/patternProperties', keyword: 'patternProperties', pattern: TRAP, why: 'the page does not match the property names of a value against patterns' }]);
  });

  it('refuses a schema, or a value, nested deeper than it walks, instead of overflowing the stack', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 2_000; i++) deep = { type: 'object', properties: { a: deep } };
    expect(() => compileSchemaCheck(deep)).toThrow('the schema nests deeper than 128 levels');
    let value: unknown = 'x';
    for (let i = 0; i < 2_000; i++) value = [value];
    expect(() => compileSchemaCheck({ type: 'array' })(value)).toThrow('the value nests deeper than 128 levels');
  });
});
