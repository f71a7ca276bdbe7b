import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../contract/agents';
import { validateInput } from './input-validation';
import { defaultValues, fieldsOf, formPathOf, formRefusal, inputOf, mergeSaved, schemaOfManualFields, type FormValues } from './schema-form';

const HR_FORM: JsonSchema = {
  type: 'object',
  properties: {
    topic: { type: 'string', title: 'Topic', minLength: 1 },
    audience: { type: 'string' },
    region: { type: 'string', enum: ['global', 'emea'] },
    tone: { type: 'string', enum: ['neutral', 'formal'] },
    maxPoints: { type: 'integer', minimum: 1 },
    includeLinks: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    owner: { type: 'object', properties: { name: { type: 'string' }, team: { type: 'string' } }, required: ['name'] },
  },
  required: ['topic', 'region'],
};

describe('fields from an input schema', () => {
  it('makes one field per property, by type, with required ones marked', () => {
    const fields = fieldsOf(HR_FORM);
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['topic', 'string', true],
      ['audience', 'string', false],
      ['region', 'enum', true],
      ['tone', 'enum', false],
      ['maxPoints', 'integer', false],
      ['includeLinks', 'boolean', false],
      ['tags', 'string-array', false],
      ['owner', 'object', false],
    ]);
    expect(fields[0]!.label).toBe('Topic');
    expect(fields[2]!.enumValues).toEqual(['global', 'emea']);
    expect(fields[7]!.children!.map((c) => c.path)).toEqual(['owner.name', 'owner.team']);
  });

  it('falls back to a JSON field for shapes it has no control for', () => {
    expect(fieldsOf({ type: 'object', properties: { rows: { type: 'array', items: { type: 'object' } } } })[0]!.kind).toBe('json');
  });
});

describe('the complete input object', () => {
  it('sends every field, optional ones as "" and booleans as false, when only required ones are filled', () => {
    const fields = fieldsOf(HR_FORM);
    const values = defaultValues(HR_FORM);
    values.topic = 'parental leave';
    values.region = 'emea';
    const input = inputOf(fields, values);
    expect(input).toEqual({
      topic: 'parental leave',
      audience: '',
      region: 'emea',
      tone: '',
      maxPoints: '',
      includeLinks: false,
      tags: '',
      owner: { name: '', team: '' },
    });
    // The same rule the service applies: this object passes it.
    expect(validateInput(HR_FORM, input)).toEqual({});
  });

  it('converts numbers and lists and keeps non-numbers as typed for validation to name', () => {
    const fields = fieldsOf(HR_FORM);
    const values: FormValues = { ...defaultValues(HR_FORM), topic: 't', region: 'global', maxPoints: '3', tags: 'a\n\n b \n', includeLinks: true };
    expect(inputOf(fields, values)).toMatchObject({ maxPoints: 3, tags: ['a', 'b'], includeLinks: true });
    const bad = inputOf(fields, { ...values, maxPoints: 'abc' });
    expect(bad.maxPoints).toBe('abc');
    expect(validateInput(HR_FORM, bad)).toHaveProperty('maxPoints');
  });

  it('names missing required fields and wrong enum values by form path', () => {
    const fields = fieldsOf(HR_FORM);
    const problems = validateInput(HR_FORM, inputOf(fields, { ...defaultValues(HR_FORM), topic: '', region: 'mars' }));
    expect(Object.keys(problems).sort()).toEqual(['region', 'topic']);
    expect(problems.topic).toBe('Required.');
    expect(problems.region).toMatch(/allowed values/);
    const { topic: _t, ...withoutTopic } = inputOf(fields, defaultValues(HR_FORM));
    expect(validateInput(HR_FORM, withoutTopic).topic).toBe('Missing.');
  });

  it('uses schema defaults and keeps saved values that still fit the schema', () => {
    const schema: JsonSchema = { type: 'object', properties: { count: { type: 'integer', default: 1000 }, on: { type: 'boolean', default: true } } };
    expect(defaultValues(schema)).toEqual({ count: '1000', on: true });
    expect(mergeSaved(schema, { count: '5', on: 'yes', gone: 'x' })).toEqual({ count: '5', on: true });
  });
});

describe('helpers', () => {
  it('maps API pointers and Ajv paths to form paths', () => {
    expect(formPathOf('/input/owner/name', '/input')).toBe('owner.name');
    expect(formPathOf('/maxPoints')).toBe('maxPoints');
    expect(formPathOf('/a~1b')).toBe('a/b');
  });

  it('builds a schema from fields added by hand', () => {
    expect(schemaOfManualFields([{ name: ' q ', type: 'string', required: true }, { name: 'n', type: 'integer', required: false }])).toEqual({
      type: 'object',
      properties: { q: { type: 'string' }, n: { type: 'integer' } },
      required: ['q'],
    });
  });
});

describe('a schema nested deeper than a form is built for (issue 27)', () => {
  const nested = (levels: number) => {
    let schema: JsonSchema = { type: 'object', properties: { leaf: { type: 'string' } } };
    for (let i = 1; i < levels; i++) schema = { type: 'object', properties: { [`level${i}`]: schema } };
    return schema;
  };

  it('is refused with a message, found without recursion, for 2,000 levels', () => {
    expect(formRefusal(nested(2_000))).toMatch(/^The agent’s input schema nests deeper than 24 levels of fields/);
  });

  it('is not refused at 24 levels, whose form is built and checked', () => {
    const schema = nested(24);
    expect(formRefusal(schema)).toBeUndefined();
    const fields = fieldsOf(schema);
    expect(validateInput(schema, inputOf(fields, defaultValues(schema)))).toEqual({});
  });
});
