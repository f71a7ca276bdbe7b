import { set, type FieldErrors, type Resolver } from 'react-hook-form';
import type { JsonSchema, Message, MessageRole } from '../../../contract/agents';
import { checkedFieldwise, validateFields, validateInput } from './input-validation';
import type { RunParts } from '../../../engine/run-request';
import { fieldCount, inputOf, LARGE_FORM_FIELDS, type FormField, type FormValues } from './schema-form';

export interface ComposerMessage {
  role: MessageRole;
  text: string;
}

export interface RunFormValues {
  input: FormValues;
  messages: ComposerMessage[];
}

export function messagesOf(list: ComposerMessage[]): Message[] {
  return list.filter((m) => m.text.trim() !== '').map((m) => ({ role: m.role, content: [{ type: 'text', text: m.text }] }));
}

/** What the run sends, from the form: input when the agent has a form, messages when it takes them. */
export function runParts(values: RunFormValues, fields: FormField[], takesMessages: boolean): RunParts {
  const parts: RunParts = {};
  if (fields.length) parts.input = inputOf(fields, values.input);
  if (takesMessages) {
    const messages = messagesOf(values.messages);
    if (messages.length) parts.messages = messages;
  }
  return parts;
}

/** Where a problem with the whole input (an uncompilable schema) is kept: `errors.root.schema`. */
export const SCHEMA_ERROR = 'schema';

/** Longest a full check of a large form runs before it lets the page answer (input, paint). */
const SLICE_MS = 8;
const nextTask = () =>
  new Promise<void>((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });

/** Every field of a large form, a field at a time, giving the page its turn every SLICE_MS. */
async function validateInSlices(schema: JsonSchema, input: Record<string, unknown>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  let since = performance.now();
  for (const name of Object.keys(input)) {
    Object.assign(out, validateFields(schema, input, [name]));
    if (performance.now() - since > SLICE_MS) {
      await nextTask();
      since = performance.now();
    }
  }
  return out;
}

/**
 * Validates the complete input object against the agent's schema, as the API will, with Ajv's
 * messages (lib/schema-check). A large form whose fields can be checked one by one is checked
 * a field at a time: a keystroke checks the field typed in (react-hook-form names it), and a
 * submit checks them all in slices, so the page answers throughout.
 */
export function runFormResolver(schema: JsonSchema, fields: FormField[], takesMessages: boolean): Resolver<RunFormValues> {
  const fieldwise = fieldCount(fields) > LARGE_FORM_FIELDS && checkedFieldwise(schema);
  const resolve = (values: RunFormValues, problems: Record<string, string>) => {
    const errors: FieldErrors<RunFormValues> = {};
    if (fields.length) {
      for (const [path, message] of Object.entries(problems)) {
        if (path === '') errors.root = { [SCHEMA_ERROR]: { type: 'validate', message } };
        // react-hook-form's own path writer, as its resolvers use: nested form paths, nested errors.
        else set(errors, `input.${path}`, { type: 'validate', message });
      }
    }
    if (takesMessages && !fields.length && messagesOf(values.messages).length === 0) {
      errors.messages = { root: { type: 'validate', message: 'Write at least one message.' } };
    }
    return Object.keys(errors).length ? { values: {}, errors } : { values, errors: {} };
  };
  return (values, _context, options) => {
    if (!fields.length) return resolve(values, {});
    const input = inputOf(fields, values.input);
    if (!fieldwise) return resolve(values, validateInput(schema, input));
    // react-hook-form names the one field a change is in; a submit names every mounted field,
    // which in a large form is only those in view: then every field is checked.
    const names = options?.names;
    if (names?.length === 1 && names[0]!.startsWith('input.')) return resolve(values, validateFields(schema, input, [names[0]!.split('.')[1]!]));
    return validateInSlices(schema, input).then((problems) => resolve(values, problems));
  };
}
