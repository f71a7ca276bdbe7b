import { Ajv, type ValidateFunction } from 'ajv';
import type { JsonSchema } from '../../../contract/agents';
import { completeInputSchema, inputProblemsOf } from '../../../contract/agent-input';
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

/** Problems with `input`, keyed by form path ('' for the whole object). */
export function validateInput(schema: JsonSchema, input: Record<string, unknown>): Record<string, string> {
  const validate = validatorOf(schema);
  if (validate instanceof Error) return { '': `The agent's input schema cannot be checked here: ${validate.message}` };
  if (validate(input)) return {};
  const out: Record<string, string> = {};
  for (const p of inputProblemsOf(validate.errors, '', input)) out[formPathOf(p.pointer)] ??= p.fieldMessage;
  return out;
}
