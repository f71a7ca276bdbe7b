import type { Resolver } from 'react-hook-form';
import type { JsonSchema, Message, MessageRole } from '../../contract/agents';
import { validateInput } from './input-validation';
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
export function runParts(values: RunFormValues, fields: FormField[], takesMessages: boolean): { input?: Record<string, unknown>; messages?: Message[] } {
  const parts: { input?: Record<string, unknown>; messages?: Message[] } = {};
  if (fields.length) parts.input = inputOf(fields, values.input);
  if (takesMessages) {
    const messages = messagesOf(values.messages);
    if (messages.length) parts.messages = messages;
  }
  return parts;
}

type ErrorTree = Record<string, unknown>;

function put(tree: ErrorTree, path: string[], message: string): void {
  let node = tree;
  for (const p of path.slice(0, -1)) node = (node[p] ??= {}) as ErrorTree;
  node[path[path.length - 1]!] = { type: 'validate', message };
}

/** Validates the complete input object with Ajv against the agent's schema, as the API will. */
export function runFormResolver(schema: JsonSchema, fields: FormField[], takesMessages: boolean): Resolver<RunFormValues> {
  return (values) => {
    const errors: ErrorTree = {};
    if (fields.length) {
      const problems = validateInput(schema, inputOf(fields, values.input));
      for (const [path, message] of Object.entries(problems)) {
        if (path === '') errors.root = { type: 'validate', message };
        else put(errors, ['input', ...path.split('.')], message);
      }
    }
    if (takesMessages && !fields.length && messagesOf(values.messages).length === 0) {
      put(errors, ['messages', 'root'], 'Write at least one message.');
    }
    return Object.keys(errors).length ? { values: {}, errors: errors as never } : { values, errors: {} };
  };
}
