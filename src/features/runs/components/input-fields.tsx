import { useVirtualizer } from '@tanstack/react-virtual';
import { useDeferredValue, useId, useMemo, useRef, useState } from 'react';
import { useFormContext, useWatch, type FieldErrors } from 'react-hook-form';
import { formatCount } from '../../../lib/format';
import { LARGE_FORM_FIELDS, type FormField } from '../model/schema-form';
import type { RunFormValues } from '../model/run-form-values';

/** Past this many values, an enum is a text field that suggests matches, not a select of every value. */
export const MAX_SELECT_OPTIONS = 500;
/** How many matching values such a field suggests at once. */
export const ENUM_SUGGESTIONS = 100;

/** Notes on a field that are not problems with its value (a pattern not checked here), by form path. */
export type FieldNotes = Readonly<Record<string, string>>;

function errorAt(errors: FieldErrors<RunFormValues>, path: string): string | undefined {
  let node: unknown = errors.input;
  for (const part of path.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  return (node as { message?: string } | undefined)?.message;
}

/** The form paths that have an error message, in the errors' own order. */
function problemPaths(node: unknown, prefix = '', out: string[] = []): string[] {
  if (typeof node !== 'object' || node === null) return out;
  if (typeof (node as { message?: unknown }).message === 'string' && prefix) out.push(prefix);
  for (const [key, child] of Object.entries(node)) {
    if (key === 'ref' || key === 'message' || key === 'type' || key === 'types') continue;
    problemPaths(child, prefix ? `${prefix}.${key}` : key, out);
  }
  return out;
}

/** The fields, nested ones after their object, each with its depth: the rows of a large form. */
function rowsOf(fields: FormField[], depth = 0, out: { field: FormField; depth: number }[] = []) {
  // Iterative over siblings, recursive over nesting, which the schema's depth bounds (schema-form).
  for (const field of fields) {
    out.push({ field, depth });
    if (field.kind === 'object') rowsOf(field.children ?? [], depth + 1, out);
  }
  return out;
}

/** One control per schema property, by type; nested objects become fieldsets; a large form, a searchable list of the fields in view. */
export function InputFields({ fields, notes = {} }: { fields: FormField[]; notes?: FieldNotes }) {
  const rows = useMemo(() => rowsOf(fields), [fields]);
  if (rows.length > LARGE_FORM_FIELDS) return <LargeForm rows={rows} notes={notes} />;
  return <SmallForm fields={fields} notes={notes} />;
}

function SmallForm({ fields, notes }: { fields: FormField[]; notes: FieldNotes }) {
  return (
    <>
      {fields.map((f) =>
        f.kind === 'object' ? (
          <fieldset key={f.path} className="nested">
            <legend>
              <FieldLabel field={f} />
            </legend>
            {notes[f.path] && <p className="hint">{notes[f.path]}</p>}
            <SmallForm fields={f.children ?? []} notes={notes} />
          </fieldset>
        ) : (
          <FieldControl key={f.path} field={f} note={notes[f.path]} />
        ),
      )}
    </>
  );
}

function FieldLabel({ field }: { field: FormField }) {
  return (
    <>
      {field.label}
      {field.required ? <span aria-hidden="true"> *</span> : <span className="muted"> (optional)</span>}
    </>
  );
}

/** One field: its control, its problem and its help, and a note on what is not checked here. */
function FieldControl({ field: f, note }: { field: FormField; note?: string }) {
  const {
    register,
    formState: { errors },
  } = useFormContext<RunFormValues>();
  const id = `input-${f.path}`;
  const name = `input.${f.path}` as const;
  const error = errorAt(errors, f.path);
  const hintId = `${id}-hint`;
  const label = <FieldLabel field={f} />;
  const bigEnum = f.kind === 'enum' && (f.enumValues?.length ?? 0) > MAX_SELECT_OPTIONS;
  // The label already says "(optional)"; a description that says it again is trimmed.
  const description = f.required ? f.description : f.description?.replace(/\s*\(optional\)\s*$/i, '');
  const help = [
    description,
    bigEnum && `${formatCount(f.enumValues!.length)} allowed values: type to find one (the list offers the first ${ENUM_SUGGESTIONS} that contain what you typed)`,
    f.kind !== 'boolean' && !f.required ? 'sent as "" when empty' : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const hint = (
    // A problem comes first; the field's own help stays beside it, then what is not checked here.
    <p id={hintId} className="hint">
      {error && <span className="error">{error} </span>}
      {help}
      {note && <span className="pattern-note"> {note}</span>}
    </p>
  );
  const common = { id, 'aria-invalid': !!error, 'aria-describedby': hintId, 'aria-required': f.required };
  if (f.kind === 'boolean') {
    return (
      <div className="field checkbox">
        <input type="checkbox" {...common} {...register(name)} />
        <label htmlFor={id}>{label}</label>
        {hint}
      </div>
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {bigEnum ? (
        <>
          <input type="text" autoComplete="off" list={`${id}-values`} {...common} {...register(name)} />
          <EnumSuggestions id={`${id}-values`} name={name} values={f.enumValues!} />
        </>
      ) : f.kind === 'enum' ? (
        <select {...common} {...register(name)}>
          <option value="">{f.required ? 'Choose…' : '(none)'}</option>
          {f.enumValues?.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      ) : f.kind === 'string-array' || f.kind === 'json' || f.multiline ? (
        <textarea rows={f.kind === 'json' ? 4 : 3} {...common} {...register(name)} placeholder={f.kind === 'string-array' ? 'one item per line' : f.kind === 'json' ? 'JSON' : ''} />
      ) : (
        <input type={f.kind === 'integer' || f.kind === 'number' ? 'number' : 'text'} step={f.kind === 'integer' ? 1 : 'any'} {...common} {...register(name)} />
      )}
      {hint}
    </div>
  );
}

/** The values of a large enum that contain what is typed, at most ENUM_SUGGESTIONS of them. */
function EnumSuggestions({ id, name, values }: { id: string; name: `input.${string}`; values: string[] }) {
  const typed = useWatch<RunFormValues>({ name });
  const query = useDeferredValue(typeof typed === 'string' ? typed.toLowerCase() : '');
  const matches = useMemo(() => {
    const out: string[] = [];
    for (const v of values) {
      if (v.toLowerCase().includes(query)) out.push(v);
      if (out.length === ENUM_SUGGESTIONS) break;
    }
    return out;
  }, [values, query]);
  return (
    <datalist id={id}>
      {matches.map((v) => (
        <option key={v} value={v} />
      ))}
    </datalist>
  );
}

const ROW_ESTIMATE = 86;

/**
 * A form too large to put in the page whole (an instance may declare 20,000 fields): the
 * fields in view are rendered, the others keep their values in the form (react-hook-form keeps
 * the values of fields that are not mounted), and a search narrows the list by label or name.
 */
function LargeForm({ rows, notes }: { rows: { field: FormField; depth: number }[]; notes: FieldNotes }) {
  const searchId = useId();
  const [query, setQuery] = useState('');
  const deferred = useDeferredValue(query.trim().toLowerCase());
  const shown = useMemo(
    () => (deferred ? rows.filter(({ field }) => field.label.toLowerCase().includes(deferred) || field.path.toLowerCase().includes(deferred)) : rows),
    [rows, deferred],
  );
  const parent = useRef<HTMLDivElement>(null);
  // The project does not use the React Compiler, so its memoization warning does not apply.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({ count: shown.length, getScrollElement: () => parent.current, estimateSize: () => ROW_ESTIMATE, overscan: 4 });
  const {
    formState: { errors },
  } = useFormContext<RunFormValues>();
  const byPath = useMemo(() => new Map(rows.map((r) => [r.field.path, r])), [rows]);
  // Read from the errors themselves (as many as there are problems), not from every field; not
  // memoized: react-hook-form changes its errors object in place.
  const problems = problemPaths(errors.input)
    .map((path) => byPath.get(path))
    .filter((r): r is { field: FormField; depth: number } => r !== undefined && r.field.kind !== 'object');
  return (
    <div className="large-form">
      <p className="hint">
        This form has {formatCount(rows.length)} fields: the page holds those in view, and keeps what you type in the others. Every field is sent.
      </p>
      <div className="field">
        <label htmlFor={searchId}>Find a field</label>
        <input id={searchId} type="search" value={query} onChange={(e) => setQuery(e.target.value)} aria-describedby={`${searchId}-count`} />
        <p id={`${searchId}-count`} className="hint" aria-live="polite">
          {deferred ? `${formatCount(shown.length)} of ${formatCount(rows.length)} fields match.` : `${formatCount(rows.length)} fields.`}
        </p>
      </div>
      {problems.length > 0 && (
        <p className="error">
          {formatCount(problems.length)} {problems.length === 1 ? 'field has a problem' : 'fields have problems'}:{' '}
          {problems.slice(0, 5).map(({ field }, i) => (
            <span key={field.path}>
              {i > 0 && ', '}
              <button type="button" className="link-button" onClick={() => setQuery(field.label)}>
                {field.label}
              </button>
            </span>
          ))}
          {problems.length > 5 && ` and ${formatCount(problems.length - 5)} more`}
        </p>
      )}
      {/* Its height set here, not only in the style sheet: without one the list would hold every field. */}
      <div ref={parent} className="large-form-list" style={{ height: '28rem', overflow: 'auto' }}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const { field, depth } = shown[item.index]!;
            return (
              <div
                key={field.path}
                data-index={item.index}
                ref={virtualizer.measureElement}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${item.start}px)`, paddingInlineStart: `${Math.min(depth, 8)}rem` }}
              >
                {field.kind === 'object' ? (
                  <p className="large-form-group">
                    <FieldLabel field={field} />
                    {notes[field.path] && <span className="hint"> {notes[field.path]}</span>}
                  </p>
                ) : (
                  <FieldControl field={field} note={notes[field.path]} />
                )}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
