import { Ajv, type ValidateFunction } from 'ajv';
import type { JsonSchema } from '../../contract/agents';
import { completeInputSchema } from '../../contract/agent-input';
import { formPathOf } from './schema-form';

const ajv = new Ajv({ allErrors: true, strict: false });
const cache = new WeakMap<JsonSchema, ValidateFunction | Error>();

/** Compiles the agent's schema as the API applies it: every field present. */
function validatorOf(schema: JsonSchema): ValidateFunction | Error {
  let v = cache.get(schema);
  if (!v) {
    try {
      v = ajv.compile(completeInputSchema(schema));
    } catch (err) {
      v = err instanceof Error ? err : new Error(String(err));
    }
    cache.set(schema, v);
  }
  return v;
}

function valueAt(input: Record<string, unknown>, path: string): unknown {
  let node: unknown = input;
  for (const part of path.split('.')) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
  return node;
}

/** Problems with `input`, keyed by form path ('' for the whole object). */
export function validateInput(schema: JsonSchema, input: Record<string, unknown>): Record<string, string> {
  const validate = validatorOf(schema);
  if (validate instanceof Error) return { '': `The agent's input schema cannot be checked here: ${validate.message}` };
  if (validate(input)) return {};
  const out: Record<string, string> = {};
  for (const e of validate.errors ?? []) {
    if (e.keyword === 'anyOf' || (e.keyword === 'const' && e.schemaPath.includes('anyOf'))) continue;
    const missing = e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : undefined;
    const path = formPathOf(e.instancePath + (missing ? `/${missing}` : ''));
    // Optional fields accept "", so an empty value that fails belongs to a required field:
    // say so, instead of Ajv's "must NOT have fewer than 1 characters" or "must be equal to…".
    const empty = !missing && valueAt(input, path) === '';
    out[path] ??= missing ? 'Missing.' : empty ? 'Required.' : `${e.message ?? 'Invalid'}.`;
  }
  return out;
}
