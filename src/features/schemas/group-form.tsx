import { useForm } from 'react-hook-form';
import { NAME_RULE, nameProblem } from '../../contract/names';

/** The "Group name" field, checked against the API's name rule before anything is sent. */
export function GroupForm({ initial, recent, onOpen }: { initial: string; recent: string[]; onOpen(group: string): void }) {
  const { register, handleSubmit, formState, setValue } = useForm<{ group: string }>({
    values: { group: initial },
    resetOptions: { keepDirtyValues: true },
    mode: 'onChange',
  });
  const error = formState.errors.group?.message;
  return (
    <form className="group-form" onSubmit={handleSubmit(({ group }) => onOpen(group.trim()))} noValidate>
      <div className="field">
        <label htmlFor="group-name">Group name</label>
        <div className="input-row">
          <input
            id="group-name"
            autoComplete="off"
            spellCheck={false}
            aria-invalid={!!error}
            aria-describedby="group-name-hint"
            {...register('group', { validate: (v) => nameProblem(v.trim(), 'group name') ?? true })}
          />
          <button type="submit">Open schema</button>
        </div>
        <p id="group-name-hint" className={error ? 'hint error' : 'hint'}>
          {/* The rule stays in view beside the problem, so the fix is clear without clearing the field. */}
          {error ? `${error} Rule: ${NAME_RULE}.` : `Rule: ${NAME_RULE}.`}
        </p>
      </div>
      {recent.length > 0 && (
        <nav aria-label="Recent groups" className="recent">
          <span className="muted">Recent:</span>
          {recent.map((g) => (
            <button
              key={g}
              type="button"
              className="chip"
              onClick={() => {
                setValue('group', g);
                onOpen(g);
              }}
            >
              {g}
            </button>
          ))}
        </nav>
      )}
    </form>
  );
}
