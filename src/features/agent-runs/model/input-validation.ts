import type { JsonSchema } from '../../../contract/agents';
import { completeInputSchema, inputProblemsOf } from '../../../contract/agent-input';
import { compileSchemaCheck, type SchemaCheck } from '../../../lib/schema-check';
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

/** Problems with `input`, keyed by form path ('' for the whole object). */
export function validateInput(schema: JsonSchema, input: Record<string, unknown>): Record<string, string> {
  const check = checkOf(schema);
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
