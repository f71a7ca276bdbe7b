import { useMemo, useState } from 'react';
import { useForm, useWatch, type Control } from 'react-hook-form';
import { formatCount } from '../../lib/format';
import { CodeSnippets } from '../../components/code-snippets';
import { isListType, type CustomProperty, type MetadataSchema } from '../../contract/metadata';
import { docIdProblem } from '../../contract/names';
import { SpecBadge } from '../../components/spec-badge';
import { ResponseSummary } from '../../components/response-meta';
import { ApiError } from '../../lib/api-client';
import type { ActiveConnection } from '../../lib/connection';
import { useRemoveDocumentValues, useSetDocumentValues } from './api/schema';

interface Values {
  docId: string;
  fields: Record<string, string>;
}

function describe(error: unknown): string {
  return error instanceof ApiError ? `${error.status ? `${error.status} ` : ''}${error.title}: ${error.detail}` : String(error);
}

/** Lines of a list field become its values; blank lines are dropped. */
function listOf(text: string): string[] {
  return text.split('\n').map((s) => s.trim()).filter(Boolean);
}

/** The values the form's fields set: empty fields are left out, list fields split into lines. */
function valuesOf(schema: MetadataSchema, fields: Record<string, string | undefined>): CustomProperty[] {
  const values: CustomProperty[] = [];
  for (const key of schema.metadataKeys) {
    const raw = fields[key.name] ?? '';
    if (isListType(key.propertyType)) {
      const list = listOf(raw);
      if (list.length) values.push({ name: key.name, value: list });
    } else if (raw.trim()) values.push({ name: key.name, value: raw.trim() });
  }
  return values;
}

/** The PUT and DELETE this form sends, as they are typed. */
function DocumentCode({ connection, group, schema, control }: { connection: ActiveConnection; group: string; schema: MetadataSchema; control: Control<Values> }) {
  const docId = (useWatch({ control, name: 'docId' }) ?? '').trim() || 'DOCUMENT-ID';
  const fields = useWatch({ control, name: 'fields' }) ?? {};
  return (
    <details className="document-code">
      <summary>Code for these requests</summary>
      <h4>Set values (PUT)</h4>
      <CodeSnippets call={{ op: 'putValues', group, docId, values: valuesOf(schema, fields) }} connection={connection} />
      <h4>Remove all values (DELETE)</h4>
      <CodeSnippets call={{ op: 'deleteValues', group, docId }} connection={connection} />
    </details>
  );
}

/**
 * Most value fields in the page at once. A group has at most 20 keys, but an instance may answer
 * thousands, and a field each held the page for 40 s: past this, a search finds the others.
 */
export const DOC_FIELDS_SHOWN = 50;

/** Sets or removes this group's values on one document, with a form built from the schema. */
export function DocumentValues({ connection, group, schema }: { connection: ActiveConnection; group: string; schema: MetadataSchema }) {
  const form = useForm<Values>({ defaultValues: { docId: '', fields: {} }, mode: 'onSubmit' });
  const [find, setFind] = useState('');
  const keys = schema.metadataKeys;
  const many = keys.length > DOC_FIELDS_SHOWN;
  const matching = useMemo(() => {
    const q = find.trim().toLowerCase();
    return q ? keys.filter((k) => k.name.toLowerCase().includes(q)) : keys;
  }, [keys, find]);
  const shown = matching.slice(0, DOC_FIELDS_SHOWN);
  const set = useSetDocumentValues(connection, group);
  const remove = useRemoveDocumentValues(connection, group);
  const docIdError = form.formState.errors.docId?.message;
  const rootError = form.formState.errors.root?.message;

  const onSet = form.handleSubmit(({ docId, fields }) => {
    const values = valuesOf(schema, fields);
    if (!values.length) {
      form.setError('root', { message: 'Enter at least one value. To remove all values, use “Remove all values”.' });
      return;
    }
    remove.reset();
    set.mutate({ docId: docId.trim(), values });
  });
  const onRemove = form.handleSubmit(({ docId }) => {
    set.reset();
    remove.mutate({ docId: docId.trim() });
  });

  const last = set.isSuccess ? `Values set on ${set.variables.docId}.` : remove.isSuccess ? `All ${group} values removed from ${remove.variables.docId}.` : null;
  const failure = set.error ?? remove.error;
  // The answer the lens checks: the last success, or a failure that got an HTTP answer.
  const answered = set.isSuccess ? set.data : remove.isSuccess ? remove.data : failure instanceof ApiError ? failure.meta : undefined;

  return (
    <form className="panel" aria-labelledby="doc-heading" onSubmit={onSet} noValidate>
      <h3 id="doc-heading">Document values in {group}</h3>
      <div className="field">
        <label htmlFor="doc-id">Document id</label>
        <input
          id="doc-id"
          autoComplete="off"
          aria-invalid={!!docIdError}
          aria-describedby="doc-id-hint"
          {...form.register('docId', { validate: (v) => docIdProblem(v.trim()) ?? true })}
        />
        <p id="doc-id-hint" className={docIdError ? 'hint error' : 'hint'}>
          {docIdError ?? 'The id the document was indexed with.'}
        </p>
      </div>
      {many && (
        <div className="field">
          <label htmlFor="doc-find">Find a key</label>
          <input id="doc-find" type="search" value={find} onChange={(e) => setFind(e.target.value)} aria-describedby="doc-find-hint" />
          <p id="doc-find-hint" className="hint" role="note">
            ✂ This group has {formatCount(keys.length)} keys: fields are shown for the first {formatCount(shown.length)}
            {find.trim() ? ` of the ${formatCount(matching.length)} that match` : ''}. What you type in one is kept when it is not shown.
          </p>
        </div>
      )}
      {shown.map((key) => {
        const id = `doc-field-${key.name}`;
        return (
          <div className="field" key={key.name}>
            <label htmlFor={id}>
              {key.name} <span className="muted">({key.propertyType}{isListType(key.propertyType) ? ', one value per line' : ''})</span>
            </label>
            {isListType(key.propertyType) ? <textarea id={id} rows={3} {...form.register(`fields.${key.name}`)} /> : <input id={id} {...form.register(`fields.${key.name}`)} />}
          </div>
        );
      })}
      <p className="hint">Empty fields are left out. Setting values replaces this group’s values on the document.</p>
      {rootError && <p className="error">{rootError}</p>}
      <div className="input-row">
        <button type="submit" disabled={set.isPending}>
          Set values
        </button>
        <button type="button" onClick={() => void onRemove()} disabled={remove.isPending}>
          Remove all values
        </button>
      </div>
      <div role="status" aria-live="polite">
        {last && <p>{last}</p>}
        {failure && <p className="error">{describe(failure)}</p>}
      </div>
      {answered && <ResponseSummary meta={answered} />}
      {answered && <SpecBadge answer={answered} inError={failure !== null} />}
      <DocumentCode connection={connection} group={group} schema={schema} control={form.control} />
    </form>
  );
}
