import { useFormContext, type FieldErrors } from 'react-hook-form';
import type { FormField } from '../model/schema-form';
import type { RunFormValues } from '../model/run-form-values';

function errorAt(errors: FieldErrors<RunFormValues>, path: string): string | undefined {
  let node: unknown = errors.input;
  for (const part of path.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  return (node as { message?: string } | undefined)?.message;
}

/** One control per schema property, by type; nested objects become fieldsets. */
export function InputFields({ fields }: { fields: FormField[] }) {
  const {
    register,
    formState: { errors },
  } = useFormContext<RunFormValues>();
  return (
    <>
      {fields.map((f) => {
        const id = `input-${f.path}`;
        const name = `input.${f.path}` as const;
        const error = errorAt(errors, f.path);
        const hintId = `${id}-hint`;
        const label = (
          <>
            {f.label}
            {f.required ? <span aria-hidden="true"> *</span> : <span className="muted"> (optional)</span>}
          </>
        );
        // The label already says "(optional)"; a description that says it again is trimmed.
        const description = f.required ? f.description : f.description?.replace(/\s*\(optional\)\s*$/i, '');
        const help = [description, f.kind !== 'boolean' && !f.required && f.kind !== 'object' ? 'sent as "" when empty' : ''].filter(Boolean).join(' · ');
        const hint = (
          // A problem comes first; the field's own help stays beside it.
          <p id={hintId} className="hint">
            {error && <span className="error">{error} </span>}
            {help}
          </p>
        );
        const common = { id, 'aria-invalid': !!error, 'aria-describedby': hintId, 'aria-required': f.required };
        if (f.kind === 'object') {
          return (
            <fieldset key={f.path} className="nested">
              <legend>{label}</legend>
              <InputFields fields={f.children ?? []} />
            </fieldset>
          );
        }
        if (f.kind === 'boolean') {
          return (
            <div className="field checkbox" key={f.path}>
              <input type="checkbox" {...common} {...register(name)} />
              <label htmlFor={id}>{label}</label>
              {hint}
            </div>
          );
        }
        return (
          <div className="field" key={f.path}>
            <label htmlFor={id}>{label}</label>
            {f.kind === 'enum' ? (
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
      })}
    </>
  );
}
