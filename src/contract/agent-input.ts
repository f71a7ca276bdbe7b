/**
 * The input rule of form-triggered agents (docs/api.md, "The input rule"): `input` must carry every
 * form field, optional ones included, and an optional field with no value is sent as "".
 * Both the service (to answer 400 naming missing fields) and the console (to build and
 * check the object before sending) derive their validation schema from here.
 */

import type { JsonSchema } from './agents.ts';

export const EMPTY_OPTIONAL_VALUE = '';

function isObjectSchema(schema: JsonSchema): schema is JsonSchema & { properties: Record<string, JsonSchema> } {
  return typeof schema.properties === 'object' && schema.properties !== null && !Array.isArray(schema.properties);
}

/** The agent's form fields, in schema order. */
export function formFieldNames(schema: JsonSchema): string[] {
  return isObjectSchema(schema) ? Object.keys(schema.properties) : [];
}

/** True when the agent is triggered by an input form, so a run must carry `input`. */
export function hasInputForm(schema: JsonSchema): boolean {
  return formFieldNames(schema).length > 0;
}

/**
 * A schema that requires every property at every object level and lets optional
 * properties be "" whatever their declared type.
 */
export function completeInputSchema(schema: JsonSchema): JsonSchema {
  if (!isObjectSchema(schema)) return schema;
  const declared = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const properties: Record<string, JsonSchema> = {};
  for (const [name, prop] of Object.entries(schema.properties)) {
    const inner = completeInputSchema(prop);
    properties[name] = declared.has(name) ? inner : { anyOf: [inner, { const: EMPTY_OPTIONAL_VALUE }] };
  }
  return { ...schema, type: 'object', properties, required: Object.keys(properties) };
}

/** JSON Schema of the `messages` array both run endpoints take. */
export const MESSAGES_SCHEMA: JsonSchema = {
  type: 'array',
  minItems: 1,
  items: {
    type: 'object',
    required: ['role', 'content'],
    additionalProperties: false,
    properties: {
      role: { enum: ['USER', 'GLEAN_AI'] },
      content: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['type', 'text'],
          additionalProperties: false,
          properties: { type: { const: 'text' }, text: { type: 'string' } },
        },
      },
    },
  },
};

/**
 * The parts of an Ajv error this mapping reads (structural, so contract needs no Ajv import):
 * the service's Ajv errors, and the page's own checker's, which restates its findings as Ajv's.
 */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** One problem with a run's `input` or `messages`, as a JSON pointer into the request body. */
export interface InputProblem {
  /** JSON pointer from the body's root, e.g. `/input/topic`. */
  pointer: string;
  code: 'missing_required_field' | 'invalid_parameter';
  /** A sentence for an API answer. */
  detail: string;
  /** What a form shows beside the field. */
  fieldMessage: string;
}

function valueAtPointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

/**
 * Validation errors of the complete-input schema (or the messages schema) as problems, one per
 * pointer, for the service's 400 answers and the console's field messages alike. `value` is
 * what was validated, found at `base` in the body.
 */
export function inputProblemsOf(errors: readonly SchemaError[] | null | undefined, base: string, value?: unknown): InputProblem[] {
  const seen = new Set<string>();
  const out: InputProblem[] = [];
  for (const e of errors ?? []) {
    // anyOf branches repeat what the type branch already said.
    if (e.keyword === 'anyOf' || (e.keyword === 'const' && e.schemaPath.includes('anyOf'))) continue;
    const missing = e.keyword === 'required' ? String(e.params.missingProperty) : undefined;
    const relative = `${e.instancePath}${missing !== undefined ? `/${missing}` : ''}`;
    const pointer = `${base}${relative}`;
    if (seen.has(pointer)) continue;
    seen.add(pointer);
    if (missing !== undefined) {
      out.push({ pointer, code: 'missing_required_field', detail: `Missing form field "${relative.slice(1)}".`, fieldMessage: 'Missing.' });
      continue;
    }
    // Optional fields accept "", so an empty value that fails belongs to a required field:
    // say so, instead of "must NOT have fewer than 1 characters" or "must be equal to…".
    const empty = valueAtPointer(value, relative) === EMPTY_OPTIONAL_VALUE;
    out.push({
      pointer,
      code: 'invalid_parameter',
      detail: `${pointer} ${e.message ?? 'is invalid'}.`,
      fieldMessage: empty ? 'Required.' : `${e.message ?? 'Invalid'}.`,
    });
  }
  return out;
}
