import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { completeInputSchema, EMPTY_OPTIONAL_VALUE, formFieldNames, hasInputForm, MESSAGES_SCHEMA } from './agent-input.ts';
import type { JsonSchema } from './agents.ts';

/** An input form with required and optional fields of several types, like the HR agent's. */
const FORM: JsonSchema = {
  type: 'object',
  properties: {
    topic: { type: 'string', minLength: 1 },
    audience: { type: 'string' },
    region: { type: 'string', enum: ['global', 'amer', 'emea', 'apac'] },
    tone: { type: 'string', enum: ['neutral', 'friendly', 'formal'] },
    maxPoints: { type: 'integer', minimum: 1, maximum: 10 },
    includeLinks: { type: 'boolean' },
    ratio: { type: 'number' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['topic', 'region'],
};
const REQUIRED = ['topic', 'region'];
const OPTIONAL = ['audience', 'tone', 'maxPoints', 'includeLinks', 'ratio', 'tags'];

/** A form with nested objects: a required one, an optional one, and one two levels down. */
const NESTED: JsonSchema = {
  type: 'object',
  properties: {
    owner: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1 },
        email: { type: 'string' },
        address: {
          type: 'object',
          properties: { city: { type: 'string', minLength: 1 }, zip: { type: 'integer' } },
          required: ['city'],
        },
      },
      required: ['name', 'address'],
    },
    filters: {
      type: 'object',
      properties: { since: { type: 'integer' }, team: { type: 'string', minLength: 1 } },
      required: ['team'],
    },
  },
  required: ['owner'],
};

const ajv = new Ajv({ allErrors: true, strict: true });
const validatorOf = (schema: JsonSchema) => ajv.compile(completeInputSchema(schema));
const validForm = ajv.compile(completeInputSchema(FORM));
const validNested = ajv.compile(completeInputSchema(NESTED));

const FILLED = { topic: 'leave', audience: 'managers', region: 'emea', tone: 'formal', maxPoints: 3, includeLinks: true, ratio: 0.5, tags: ['a'] };
const MINIMAL = { topic: 'leave', audience: '', region: 'emea', tone: '', maxPoints: '', includeLinks: '', ratio: '', tags: '' };

const NESTED_OK = {
  owner: { name: 'Ann', email: '', address: { city: 'Oslo', zip: '' } },
  filters: '',
};

describe('completeInputSchema: every property is required, at every level', () => {
  it('lists every property as required, in schema order', () => {
    expect(completeInputSchema(FORM).required).toEqual(Object.keys(FORM.properties as object));
  });

  it('accepts the complete object, filled in or with the optional fields as ""', () => {
    expect(validForm(FILLED)).toBe(true);
    expect(validForm(MINIMAL)).toBe(true);
  });

  it.each([...REQUIRED, ...OPTIONAL])('refuses the object without %s, naming it', (field) => {
    const input: Record<string, unknown> = { ...MINIMAL };
    delete input[field];
    expect(validForm(input)).toBe(false);
    expect(validForm.errors).toContainEqual(expect.objectContaining({ keyword: 'required', params: { missingProperty: field } }));
  });

  it('names every missing field at once', () => {
    expect(validForm({ topic: 'leave' })).toBe(false);
    const missing = (validForm.errors ?? []).filter((e) => e.keyword === 'required').map((e) => (e.params as { missingProperty: string }).missingProperty);
    expect(missing.sort()).toEqual(['region', ...OPTIONAL].sort());
  });

  it('the plain schema does not require the optional fields (why the rule is needed)', () => {
    expect(ajv.compile(FORM)({ topic: 'leave', region: 'emea' })).toBe(true);
    expect(validForm({ topic: 'leave', region: 'emea' })).toBe(false);
  });

  it('requires the properties of a nested required object, optional ones included', () => {
    expect(validNested(NESTED_OK)).toBe(true);
    expect(validNested({ ...NESTED_OK, owner: { name: 'Ann', address: { city: 'Oslo', zip: '' } } })).toBe(false);
    expect(validNested.errors).toContainEqual(expect.objectContaining({ instancePath: '/owner', params: { missingProperty: 'email' } }));
  });

  it('requires the properties two levels down', () => {
    expect(validNested({ ...NESTED_OK, owner: { name: 'Ann', email: '', address: { city: 'Oslo' } } })).toBe(false);
    expect(validNested.errors).toContainEqual(expect.objectContaining({ instancePath: '/owner/address', params: { missingProperty: 'zip' } }));
  });

  it('an optional nested object may be "", but when given, all its properties are required', () => {
    expect(validNested({ ...NESTED_OK, filters: '' })).toBe(true);
    expect(validNested({ ...NESTED_OK, filters: { since: '', team: 'core' } })).toBe(true);
    expect(validNested({ ...NESTED_OK, filters: { team: 'core' } })).toBe(false);
    expect(validNested({ ...NESTED_OK, filters: { since: 3 } })).toBe(false);
  });

  it('still requires the nested object itself', () => {
    expect(validNested({ owner: NESTED_OK.owner })).toBe(false);
    expect(validNested.errors).toContainEqual(expect.objectContaining({ instancePath: '', params: { missingProperty: 'filters' } }));
  });
});

describe('completeInputSchema: "" stands for "no value" on optional fields only', () => {
  it.each(OPTIONAL)('optional %s accepts ""', (field) => {
    expect(validForm({ ...FILLED, [field]: EMPTY_OPTIONAL_VALUE })).toBe(true);
  });

  it.each([
    ['topic', 'a string with minLength 1'],
    ['region', 'an enum'],
  ])('required %s (%s) refuses ""', (field) => {
    expect(validForm({ ...FILLED, [field]: '' })).toBe(false);
  });

  it.each([
    ['an integer', { type: 'integer' }],
    ['a number', { type: 'number' }],
    ['a boolean', { type: 'boolean' }],
    ['an array', { type: 'array', items: { type: 'string' } }],
    ['an object', { type: 'object', properties: { a: { type: 'string' } } }],
    ['an enum', { enum: ['x', 'y'] }],
    ['a string with minLength 1', { type: 'string', minLength: 1 }],
  ])('a required field of %s refuses "", an optional one accepts it', (_what, prop) => {
    const required = validatorOf({ type: 'object', properties: { f: prop }, required: ['f'] });
    const optional = validatorOf({ type: 'object', properties: { f: prop } });
    expect(required({ f: '' })).toBe(false);
    expect(optional({ f: '' })).toBe(true);
  });

  it.each([
    ['maxPoints', 'abc'],
    ['maxPoints', 2.5],
    ['maxPoints', 11],
    ['includeLinks', 'yes'],
    ['tone', 'angry'],
    ['tags', [1]],
    ['ratio', ' '],
  ])('optional fields are still checked against their type: %s = %j is refused', (field, value) => {
    expect(validForm({ ...FILLED, [field]: value })).toBe(false);
  });

  it('only the empty string stands for no value: null and undefined do not', () => {
    expect(validForm({ ...MINIMAL, maxPoints: null })).toBe(false);
    expect(validForm({ ...MINIMAL, includeLinks: undefined })).toBe(false);
  });
});

describe('completeInputSchema: edge cases', () => {
  it('leaves a schema without properties as it is', () => {
    const schema = { type: 'string' };
    expect(completeInputSchema(schema)).toBe(schema);
  });

  it('treats a non-array required as no required field', () => {
    const complete = completeInputSchema({ type: 'object', properties: { a: { type: 'integer' } }, required: 'a' });
    const validate = ajv.compile(complete);
    expect(validate({ a: '' })).toBe(true);
    expect(validate({})).toBe(false);
  });

  it('does not change the schema it is given', () => {
    const before = JSON.parse(JSON.stringify(NESTED)) as JsonSchema;
    completeInputSchema(NESTED);
    expect(NESTED).toEqual(before);
  });

  it('keeps the other keywords of the schema', () => {
    const complete = completeInputSchema({ ...FORM, additionalProperties: false, title: 'Form' });
    expect(complete).toMatchObject({ additionalProperties: false, title: 'Form', type: 'object' });
    expect(ajv.compile(complete)({ ...MINIMAL, extra: 1 })).toBe(false);
  });
});

describe('formFieldNames and hasInputForm', () => {
  it('lists the form fields in schema order', () => {
    expect(formFieldNames(FORM)).toEqual([...Object.keys(FORM.properties as object)]);
    expect(hasInputForm(FORM)).toBe(true);
  });

  it.each([
    ['an empty properties object', { type: 'object', properties: {} }],
    ['no properties', { type: 'object' }],
    ['properties that are an array', { type: 'object', properties: ['a'] }],
    ['properties that are null', { type: 'object', properties: null }],
  ])('a schema with %s has no form', (_what, schema) => {
    expect(formFieldNames(schema)).toEqual([]);
    expect(hasInputForm(schema)).toBe(false);
  });
});

describe('MESSAGES_SCHEMA', () => {
  const validate = ajv.compile(MESSAGES_SCHEMA);
  const text = (t: string) => [{ type: 'text', text: t }];

  it('accepts USER and GLEAN_AI messages of text blocks', () => {
    expect(validate([{ role: 'USER', content: text('Hi') }, { role: 'GLEAN_AI', content: text('Hello') }])).toBe(true);
  });

  it.each([
    ['an empty list', []],
    ['an unknown role', [{ role: 'ASSISTANT', content: text('x') }]],
    ['a lowercase role', [{ role: 'user', content: text('x') }]],
    ['no content', [{ role: 'USER' }]],
    ['empty content', [{ role: 'USER', content: [] }]],
    ['a non-text block', [{ role: 'USER', content: [{ type: 'image', text: 'x' }] }]],
    ['a block without text', [{ role: 'USER', content: [{ type: 'text' }] }]],
    ['an extra field on a message', [{ role: 'USER', content: text('x'), author: 'me' }]],
    ['not a list', { role: 'USER', content: text('x') }],
  ])('refuses %s', (_what, messages) => {
    expect(validate(messages)).toBe(false);
  });
});
