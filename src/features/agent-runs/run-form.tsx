import { useEffect, useMemo } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import type { JsonSchema } from '../../contract/agents';
import { isProblemDetail } from '../../contract/problem';
import type { ApiError } from '../../lib/api-client';
import { local } from '../../lib/storage';
import { InputFields } from './input-fields';
import { MessagesComposer } from './messages-composer';
import { runFormResolver, runParts, type RunFormValues } from './run-form-values';
import { formPathOf, mergeSaved, type FormField } from './schema-form';

const savedKey = (agentId: string) => `runForm.${agentId}`;

/** Field names a 400 answer names, from problem `errors[]` or the legacy error string. */
function fieldsNamedIn(error: ApiError): string[] {
  if (isProblemDetail(error.body) && Array.isArray(error.body.errors)) {
    return error.body.errors.filter((e) => e.pointer.startsWith('/input/')).map((e) => formPathOf(e.pointer, '/input'));
  }
  const text = typeof error.body === 'string' ? error.body : error.detail;
  const match = /Missing form field\(s\): ([^.]+)\./.exec(text);
  return match ? match[1]!.split(',').map((s) => s.trim()) : [];
}

export interface RunFormProps {
  agentId: string;
  schema: JsonSchema;
  fields: FormField[];
  takesMessages: boolean;
  refusal: ApiError | undefined;
  onChange(parts: ReturnType<typeof runParts>): void;
  onSubmit(parts: ReturnType<typeof runParts>): void;
  children: React.ReactNode;
}

/** The input form built from the agent's schema, and the messages composer; values survive a reload. */
export function RunForm({ agentId, schema, fields, takesMessages, refusal, onChange, onSubmit, children }: RunFormProps) {
  const initial = useMemo<RunFormValues>(() => {
    const saved = local.get<Partial<RunFormValues> | null>(savedKey(agentId), null);
    const messages = Array.isArray(saved?.messages) && saved.messages.length ? saved.messages : [{ role: 'USER' as const, text: '' }];
    return { input: mergeSaved(schema, saved?.input), messages };
  }, [agentId, schema]);
  const resolver = useMemo(() => runFormResolver(schema, fields, takesMessages), [schema, fields, takesMessages]);
  const form = useForm<RunFormValues>({ defaultValues: initial, resolver, mode: 'onChange' });
  const values = useWatch({ control: form.control }) as RunFormValues;

  useEffect(() => {
    local.set(savedKey(agentId), values);
    onChange(runParts(values, fields, takesMessages));
  }, [values, agentId, fields, takesMessages, onChange]);

  // A refusal that names fields marks them; the values stay as typed.
  useEffect(() => {
    if (refusal?.status !== 400) return;
    for (const path of fieldsNamedIn(refusal)) {
      form.setError(`input.${path}` as 'input', { type: 'server', message: `The service says: ${refusal.detail}` });
    }
  }, [refusal, form]);

  const errors = form.formState.errors;
  return (
    <form className="panel" aria-labelledby="input-heading" onSubmit={form.handleSubmit((v) => onSubmit(runParts(v, fields, takesMessages)))} noValidate>
      <h2 id="input-heading">Input</h2>
      {fields.length > 0 && (
        <>
          <p className="hint">Fields marked * are required. Every field is sent, optional ones included.</p>
          <InputFields fields={fields} register={form.register} errors={errors} />
        </>
      )}
      {takesMessages && <MessagesComposer control={form.control} register={form.register} errors={errors} />}
      {!fields.length && !takesMessages && <p className="muted">This agent declares no input fields and takes no messages.</p>}
      {errors.root?.message && <p className="error" role="alert">{errors.root.message}</p>}
      {children}
    </form>
  );
}
