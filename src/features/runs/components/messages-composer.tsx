import { useId } from 'react';
import { useFieldArray, useFormContext } from 'react-hook-form';
import type { RunFormValues } from '../model/run-form-values';

/** Messages for agents that take them: role USER or GLEAN_AI, one text block each. */
export function MessagesComposer() {
  const {
    control,
    register,
    formState: { errors },
  } = useFormContext<RunFormValues>();
  const { fields, append, remove } = useFieldArray({ control, name: 'messages' });
  const rootError = errors.messages?.root?.message;
  const errorId = useId();
  return (
    <fieldset className="nested">
      <legend>Messages</legend>
      {fields.map((field, i) => (
        <div className="message-row" key={field.id}>
          <select aria-label={`Message ${i + 1} role`} {...register(`messages.${i}.role`)}>
            <option value="USER">USER</option>
            <option value="GLEAN_AI">GLEAN_AI</option>
          </select>
          <textarea
            aria-label={`Message ${i + 1} text`}
            rows={2}
            // The messages' error is said beside the first, which a failed Run focuses.
            aria-invalid={rootError && i === 0 ? true : undefined}
            aria-describedby={rootError && i === 0 ? errorId : undefined}
            {...register(`messages.${i}.text`)}
          />
          <button type="button" onClick={() => remove(i)} disabled={fields.length === 1} aria-label={`Remove message ${i + 1}`}>
            Remove
          </button>
        </div>
      ))}
      {rootError && (
        <p id={errorId} className="hint error" role="alert">
          {rootError}
        </p>
      )}
      <button type="button" onClick={() => append({ role: 'USER', text: '' })}>
        Add message
      </button>
    </fieldset>
  );
}
