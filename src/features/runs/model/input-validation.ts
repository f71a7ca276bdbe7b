import type { JsonSchema } from '../../../contract/agents';
import { completeInputSchema, inputProblemsOf } from '../../../contract/agent-input';
import { compileSchemaCheck, uncheckedOf, type SchemaCheck } from '../../../lib/schema-check';
import { formPathOf } from './schema-form';

/**
 * One check per schema object, held only as long as the schema is: a form whose fields are
 * edited by hand makes a new schema at every edit, and the checks of the old ones must go
 * with them (Ajv's instance kept every schema it ever compiled).
 */
const checks = new WeakMap<JsonSchema, SchemaCheck | Error>();

/** The check of the agent's schema as the API applies it: every field present. */
function checkOf(schema: JsonSchema): SchemaCheck | Error {
  let check = checks.get(schema);
  if (!check) {
    try {
      check = compileSchemaCheck(completeInputSchema(schema));
    } catch (err) {
      check = err instanceof Error ? err : new Error(String(err));
    }
    checks.set(schema, check);
  }
  return check;
}

/**
 * What the page does not check of the agent's schema, and why, keyed by the form path of the
 * field it belongs to ('' for the whole object): the service still checks it all.
 */
export function uncheckedNotes(schema: JsonSchema): Record<string, string> {
  const out: Record<string, string> = {};
  for (const u of uncheckedOf(schema)) {
    // The field is the chain of property names on the way to the keyword (anyOf, items… are not fields).
    const tokens = u.schemaPath.split('/').slice(1);
    const names: string[] = [];
    for (let i = 0; i < tokens.length - 1; i++) if (tokens[i] === 'properties') names.push(tokens[++i]!.replace(/~1/g, '/').replace(/~0/g, '~'));
    const path = names.join('.');
    const text = `${u.keyword === 'pattern' ? 'Pattern' : 'Pattern properties'} not checked here (${u.pattern}): ${u.why}. The service checks it when the run is sent.`;
    out[path] = out[path] ? `${out[path]} ${text}` : text;
  }
  return out;
}

/** Problems with `input`, keyed by form path ('' for the whole object). */
export function validateInput(schema: JsonSchema, input: Record<string, unknown>): Record<string, string> {
  return problemsOf(checkOf(schema), input);
}

function problemsOf(check: SchemaCheck | Error, input: Record<string, unknown>): Record<string, string> {
  if (check instanceof Error) return { '': `The agent's input schema cannot be checked here: ${check.message}` };
  let errors;
  try {
    errors = check(input);
  } catch (err) {
    // A reference to nothing is found only once a value reaches it.
    return { '': `The agent's input schema cannot be checked here: ${err instanceof Error ? err.message : String(err)}` };
  }
  const out: Record<string, string> = {};
  for (const p of inputProblemsOf(errors, '', input)) out[formPathOf(p.pointer)] ??= p.fieldMessage;
  return out;
}

/**
 * Keywords a schema's root may have for its fields to be checked one by one: nothing at the
 * root then constrains one field by another (the form always sends every field, and only them).
 */
const FIELDWISE_ROOT = new Set(['type', 'properties', 'required', 'title', 'description', '$schema', '$id', '$comment', 'additionalProperties', 'default', 'examples']);

/** Whether the fields of `schema` can be checked one at a time, each against its own property schema. */
export function checkedFieldwise(schema: JsonSchema): boolean {
  return Object.keys(schema).every((k) => FIELDWISE_ROOT.has(k)) && typeof schema.properties === 'object' && schema.properties !== null;
}

/** One check per top-level field, made when the field is first checked, held as long as the schema is. */
const fieldChecks = new WeakMap<JsonSchema, Map<string, SchemaCheck | Error>>();

function fieldCheckOf(schema: JsonSchema, name: string): SchemaCheck | Error {
  let checks = fieldChecks.get(schema);
  if (!checks) fieldChecks.set(schema, (checks = new Map()));
  let check = checks.get(name);
  if (!check) {
    const prop = (schema.properties as Record<string, JsonSchema>)[name]!;
    const required = Array.isArray(schema.required) && (schema.required as unknown[]).includes(name) ? [name] : [];
    try {
      check = compileSchemaCheck(completeInputSchema({ type: 'object', properties: { [name]: prop }, required }));
    } catch (err) {
      check = err instanceof Error ? err : new Error(String(err));
    }
    checks.set(name, check);
  }
  return check;
}

/**
 * Problems with the top-level fields `names` of `input` (checkedFieldwise schemas only): what a
 * keystroke costs in a form of 20,000 fields is the one field's check, not the whole form's.
 */
export function validateFields(schema: JsonSchema, input: Record<string, unknown>, names: Iterable<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    if (!Object.prototype.hasOwnProperty.call(schema.properties, name)) continue;
    Object.assign(out, problemsOf(fieldCheckOf(schema, name), { [name]: input[name] }));
  }
  return out;
}
