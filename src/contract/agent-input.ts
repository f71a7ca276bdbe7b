/**
 * The input rule of form-triggered agents (API.md section 3): `input` must carry every
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
