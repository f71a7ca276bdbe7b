import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { set, useFieldArray, useForm, useWatch, type Control, type FieldErrors, type Resolver, type UseFormRegister } from 'react-hook-form';
import { CodeSnippets } from '../../components/code-snippets';
import { TableScroll } from '../../components/table-scroll';
import { MAX_KEYS_PER_GROUP, PROPERTY_TYPE_MEANING, PROPERTY_TYPES, type MetadataSchema } from '../../contract/metadata';
import { NAME_RULE } from '../../contract/names';
import { ApiError, type ResponseMeta } from '../../lib/api-client';
import { ResponseSummary } from '../../components/response-meta';
import type { ActiveConnection } from '../../lib/connection';
import { useMediaQuery } from '../../lib/use-media-query';
import { useSaveSchema } from './api/schema';
import { diffSchemas, isEmptyDiff, toRows, toSchema, validateKeys, type EditorValues } from './schema-rules';

const resolver: Resolver<EditorValues> = (values) => {
  const errors: FieldErrors<EditorValues> = {};
  for (const [path, message] of Object.entries(validateKeys(values.keys))) {
    // react-hook-form's own path writer: `keys.2.name` becomes errors.keys[2].name.
    set(errors, path === 'keys' ? 'keys.root' : path, { type: 'validate', message });
  }
  return Object.keys(errors).length ? { values: {}, errors } : { values, errors: {} };
};

function explain(error: unknown): string {
  if (!(error instanceof ApiError)) return String(error);
  if (error.status === 409) {
    // The service's detail says what to do; this adds only what the console knows.
    return `409 Conflict: ${error.detail} The stored schema is unchanged and your edits are kept.`;
  }
  if (error.status === 401) return `401: this token may not change this group. ${error.detail}`;
  return `${error.status ? `${error.status} ` : ''}${error.title}: ${error.detail}`;
}

/**
 * Below this width each key is a card of its own: the table's four fixed columns need about
 * 620 px of form, and squeezed under that the type is cut ("PICKL") and Remove leaves the screen.
 */
const KEY_CARDS = '(max-width: 700px)';

/** One key's controls, named "Key N …" wherever they are laid out (a table row or a card). */
function keyControls(i: number, ids: string, register: UseFormRegister<EditorValues>, nameError: string | undefined, onRemove: () => void) {
  const errorId = `${ids}-key-${i}-error`;
  return {
    name: (
      <>
        <input
          id={`${ids}-key-${i}-name`}
          aria-label={`Key ${i + 1} name`}
          aria-invalid={!!nameError}
          aria-describedby={nameError ? errorId : undefined}
          {...register(`keys.${i}.name`)}
        />
        {nameError && (
          <p id={errorId} className="hint error">
            {nameError}
          </p>
        )}
      </>
    ),
    type: (
      <select id={`${ids}-key-${i}-type`} aria-label={`Key ${i + 1} type`} {...register(`keys.${i}.propertyType`)}>
        {PROPERTY_TYPES.map((t) => (
          <option key={t} value={t} title={PROPERTY_TYPE_MEANING[t]}>
            {t}
          </option>
        ))}
      </select>
    ),
    skip: <input id={`${ids}-key-${i}-skip`} type="checkbox" aria-label={`Key ${i + 1} skip indexing`} {...register(`keys.${i}.skipIndexing`)} />,
    remove: (
      <button type="button" onClick={onRemove} aria-label={`Remove key ${i + 1}`}>
        Remove
      </button>
    ),
  } satisfies Record<string, ReactNode>;
}

/** Create or edit a group's keys, review the difference, then save with PUT. */
export function SchemaEditor({ connection, group, stored, onDone }: {
  connection: ActiveConnection;
  group: string;
  stored: MetadataSchema | undefined;
  /** The answer of the PUT when the schema was written; null when editing was abandoned. */
  onDone(answer: ResponseMeta | null): void;
}) {
  const form = useForm<EditorValues>({
    defaultValues: { keys: stored ? toRows(stored) : [{ name: '', propertyType: 'TEXT', skipIndexing: false }] },
    resolver,
    mode: 'onChange',
  });
  const { fields, append, remove } = useFieldArray({ control: form.control, name: 'keys' });
  const [review, setReview] = useState<MetadataSchema | null>(null);
  const save = useSaveSchema(connection, group);
  const errors = form.formState.errors;
  const ids = useId();
  const cards = useMediaQuery(KEY_CARDS);
  const controlsOf = (i: number) => keyControls(i, ids, form.register, errors.keys?.[i]?.name?.message, () => remove(i));
  // The button pressed (Review changes, Back to editing) goes away with its view: focus goes to
  // the review's heading, or back to Review changes, not to the top of the page.
  const reviewHeading = useRef<HTMLHeadingElement>(null);
  const reviewButton = useRef<HTMLButtonElement>(null);
  // Opened (Edit schema, Create): focus starts in the first key's name, where editing begins;
  // the button pressed to open it is gone.
  const { setFocus } = form;
  useEffect(() => setFocus('keys.0.name'), [setFocus]);
  const [switchedView, setSwitchedView] = useState(false);
  useEffect(() => {
    if (switchedView) (review ? reviewHeading : reviewButton).current?.focus();
  }, [review, switchedView]);
  const showReview = (next: MetadataSchema | null) => {
    setSwitchedView(true);
    setReview(next);
  };

  if (review) {
    const diff = diffSchemas(stored, review);
    return (
      <section className="panel" aria-labelledby="review-heading">
        <h3 id="review-heading" ref={reviewHeading} tabIndex={-1}>
          Review changes to {group}
        </h3>
        {isEmptyDiff(diff) ? (
          <p>No changes against the stored schema.</p>
        ) : (
          <ul className="diff">
            {diff.added.map((k) => (
              <li key={`a-${k.name}`} className="added">
                + {k.name}: {k.propertyType}
                {k.skipIndexing ? ' (skipIndexing)' : ''}
              </li>
            ))}
            {diff.changed.map(({ before, after }) => (
              <li key={`c-${after.name}`} className="changed">
                ~ {before.name}: {before.propertyType}
                {before.skipIndexing ? ' (skipIndexing)' : ''} → {after.name}: {after.propertyType}
                {after.skipIndexing ? ' (skipIndexing)' : ''}
              </li>
            ))}
            {diff.removed.map((k) => (
              <li key={`r-${k.name}`} className="removed">
                − {k.name}: {k.propertyType}
              </li>
            ))}
          </ul>
        )}
        <div role="status" aria-live="polite">
          {save.isError && <p className="error">{explain(save.error)}</p>}
        </div>
        {save.error instanceof ApiError && save.error.meta && <ResponseSummary meta={save.error.meta} />}
        <div className="input-row">
          <button type="button" disabled={save.isPending} onClick={() => save.mutate(review, { onSuccess: (answer) => onDone(answer) })}>
            {save.isPending ? 'Saving…' : stored ? 'Save schema' : 'Create schema'}
          </button>
          <button type="button" onClick={() => showReview(null)}>
            Back to editing
          </button>
        </div>
        <CodeSnippets call={{ op: 'putSchema', group, schema: review }} connection={connection} />
      </section>
    );
  }

  return (
    <form className="panel" aria-labelledby="editor-heading" onSubmit={form.handleSubmit((v) => showReview(toSchema(v)))} noValidate>
      <h3 id="editor-heading">{stored ? `Edit schema of ${group}` : `New schema for ${group}`}</h3>
      <p className="hint">
        At most {MAX_KEYS_PER_GROUP} keys. Names: {NAME_RULE}, unique ignoring case.
      </p>
      {cards ? (
        // On a phone each key is a card: every control whole, on screen and labelled where it is.
        <ol className="key-cards" aria-label="Keys being edited">
          {fields.map((field, i) => {
            const c = controlsOf(i);
            return (
              <li key={field.id}>
                <fieldset className="key-card">
                  <legend>Key {i + 1}</legend>
                  <div className="field key-name">
                    <label htmlFor={`${ids}-key-${i}-name`}>Name</label>
                    {c.name}
                  </div>
                  <div className="field key-type">
                    <label htmlFor={`${ids}-key-${i}-type`}>Type</label>
                    {c.type}
                  </div>
                  <div className="field checkbox">
                    {c.skip}
                    <label htmlFor={`${ids}-key-${i}-skip`}>Skip indexing</label>
                  </div>
                  <div className="key-remove">{c.remove}</div>
                </fieldset>
              </li>
            );
          })}
        </ol>
      ) : (
        <TableScroll label="Keys being edited">
          <table className="editor">
            <thead>
              <tr>
                <th scope="col">Key name</th>
                <th scope="col">Type</th>
                <th scope="col">Skip indexing</th>
                <th scope="col">
                  <span className="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {fields.map((field, i) => {
                const c = controlsOf(i);
                return (
                  <tr key={field.id}>
                    <td>{c.name}</td>
                    <td>{c.type}</td>
                    <td>{c.skip}</td>
                    <td>{c.remove}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
      {errors.keys?.root?.message && <p className="error" role="alert">{errors.keys.root.message}</p>}
      <div className="input-row">
        <button type="button" onClick={() => append({ name: '', propertyType: 'TEXT', skipIndexing: false })} disabled={fields.length >= MAX_KEYS_PER_GROUP}>
          Add key
        </button>
        <button type="submit" ref={reviewButton}>
          Review changes
        </button>
        <button type="button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
      <PutCode connection={connection} group={group} control={form.control} />
    </form>
  );
}

/** The PUT this editor will send, as the keys are typed: the code shown is the request about to be made. */
function PutCode({ connection, group, control }: { connection: ActiveConnection; group: string; control: Control<EditorValues> }) {
  const keys = useWatch({ control, name: 'keys' });
  return (
    <>
      {/* As typed, before the checks: a name the form refuses shows here until Review changes says so. */}
      <p className="hint">The PUT as typed so far; <strong>Review changes</strong> checks the keys before anything is sent.</p>
      <CodeSnippets call={{ op: 'putSchema', group, schema: toSchema({ keys }) }} connection={connection} />
    </>
  );
}
