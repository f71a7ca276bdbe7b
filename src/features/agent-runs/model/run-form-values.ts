import { set, type FieldErrors, type Resolver } from 'react-hook-form';
import type { JsonSchema, Message, MessageRole } from '../../../contract/agents';
import { validateInput } from './input-validation';
import type { RunParts } from './run-request';
import { inputOf, type FormField, type FormValues } from './schema-form';

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

/** Validates the complete input object against the agent's schema, as the API will, with Ajv's messages (lib/schema-check). */
export function runFormResolver(schema: JsonSchema, fields: FormField[], takesMessages: boolean): Resolver<RunFormValues> {
  return (values) => {
    const errors: FieldErrors<RunFormValues> = {};
    if (fields.length) {
      const problems = validateInput(schema, inputOf(fields, values.input));
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
}
