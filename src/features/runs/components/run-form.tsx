import { useEffect, useMemo, type ReactNode } from 'react';
import { FormProvider, useForm, type FieldErrors } from 'react-hook-form';
import type { JsonSchema } from '../../../contract/agents';
import { isProblemDetail } from '../../../contract/problem';
import type { ApiError } from '../../../lib/api-client';
import { local } from '../../../lib/storage';
import { savedFormKey as savedKey } from '../model/run-draft';
import { uncheckedNotes } from '../model/input-validation';
import { runFormResolver, runParts, SCHEMA_ERROR, type RunFormValues } from '../model/run-form-values';
import type { RunParts } from '../../../engine/run-request';
import { formPathOf, mergeSaved, type FormField } from '../model/schema-form';
import { InputFields } from './input-fields';
import { MessagesComposer } from './messages-composer';

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
  /** The form element's id, so a Run button elsewhere on the page can submit it. */
  formId: string;
  agentId: string;
  schema: JsonSchema;
  fields: FormField[];
  takesMessages: boolean;
  /** The last refusal of a run of this agent, whose named fields are marked. */
  refusal: ApiError | undefined;
  /** `submitter`: the button that sent the form (none for Ctrl+Enter), which says how to run it. */
  onRun(parts: RunParts, submitter: HTMLElement | null): void;
  /** Rendered inside the form's context, after the fields: whatever reads the values (preview, code). */
  children?: ReactNode;
}

/**
 * The input form built from the agent's schema, and the messages composer. Values live in
 * react-hook-form only; whatever needs them reads them through its context (useWatch), and
 * they are saved as typed so a reload keeps them.
 */
export function RunForm({ formId, agentId, schema, fields, takesMessages, refusal, onRun, children }: RunFormProps) {
  const initial = useMemo<RunFormValues>(() => {
    const saved = local.get<Partial<RunFormValues> | null>(savedKey(agentId), null);
    const messages = Array.isArray(saved?.messages) && saved.messages.length ? saved.messages : [{ role: 'USER' as const, text: '' }];
    return { input: mergeSaved(schema, saved?.input), messages };
  }, [agentId, schema]);
  const resolver = useMemo(() => runFormResolver(schema, fields, takesMessages), [schema, fields, takesMessages]);
  const notes = useMemo(() => uncheckedNotes(schema), [schema]);
  const form = useForm<RunFormValues>({ defaultValues: initial, resolver, mode: 'onChange' });

  // A subscription to the form, writing to storage: no state, no render.
  useEffect(
    () => form.subscribe({ formState: { values: true }, callback: ({ values }) => local.set(savedKey(agentId), values) }),
    [form, agentId],
  );

  // A refusal that names fields marks them; the values stay as typed.
  useEffect(() => {
    if (refusal?.status !== 400) return;
    for (const path of fieldsNamedIn(refusal)) {
      form.setError(`input.${path}`, { type: 'server', message: `The service says: ${refusal.detail}` });
    }
  }, [refusal, form]);

  const schemaError = form.formState.errors.root?.[SCHEMA_ERROR]?.message;
  // A field's error focuses that field (react-hook-form); the messages' own (none written) has
  // no field, so focus goes to the first message, beside it: the Run button may sit in another
  // column or under the fold, and a click that seemed to do nothing left the user guessing.
  const focusMessagesProblem = (errors: FieldErrors<RunFormValues>) => {
    if (errors.messages?.root && !errors.input) form.setFocus('messages.0.text');
  };
  return (
    <FormProvider {...form}>
      <form id={formId} aria-labelledby={`${formId}-heading`} onSubmit={form.handleSubmit((v, e) => onRun(runParts(v, fields, takesMessages), (e?.nativeEvent as SubmitEvent | undefined)?.submitter ?? null), focusMessagesProblem)} noValidate>
        <h2 id={`${formId}-heading`}>Input</h2>
        {fields.length > 0 && (
          <>
            <p className="hint">Fields marked * are required. Every field is sent, optional ones included.</p>
            {notes[''] && <p className="hint">{notes['']}</p>}
            <InputFields fields={fields} notes={notes} />
          </>
        )}
        {takesMessages && <MessagesComposer />}
        {!fields.length && !takesMessages && <p className="muted">This agent declares no input fields and takes no messages.</p>}
        {schemaError && (
          <p className="error" role="alert">
            {schemaError}
          </p>
        )}
      </form>
      {children}
    </FormProvider>
  );
}
