import { useEffect, useId, useState } from 'react';
import { useFieldArray, useForm, useWatch, type Control, type UseFormRegister } from 'react-hook-form';
import type { Decision } from '../../../contract/durable-runs';
import { linearPatternProblem } from '../../../lib/linear-pattern';
import { compileSchemaCheck } from '../../../lib/schema-check';
import { describeAssertion } from '../../../engine/suites/assertions';
import { parseRows, rowsAsText } from '../../../engine/suites/rows';
import { placeholdersOf, type ApprovalPolicy, type Assertion, type AssertionKind, type SuiteCase } from '../../../engine/suites/suite';

/** A pattern field's check: compiled once (a long pattern takes seconds, and is not kept). */
function patternCheck(source: string): true | string {
  const why = linearPatternProblem(source);
  return why ? `Cannot be matched in linear time: ${why}` : true;
}

/** An assertion as the form holds it: every kind's fields, as text; only the kind's own are read. */
interface AssertionFields {
  kind: AssertionKind;
  expect: 'success' | 'failure';
  code: string;
  text: string;
  pattern: string;
  schema: string;
  number: string;
  name: string;
  present: 'present' | 'absent';
}

interface CaseFields {
  name: string;
  assertions: AssertionFields[];
  policy: ApprovalPolicy['kind'];
  tools: { toolId: string; name: string; decision: Decision }[];
  otherwise: Decision;
  rows: string;
}

const KINDS: { kind: AssertionKind; label: string }[] = [
  { kind: 'outcome', label: 'Outcome' },
  { kind: 'answer-equals', label: 'Answer equals' },
  { kind: 'answer-contains', label: 'Answer contains' },
  { kind: 'answer-not-contains', label: 'Answer does not contain' },
  { kind: 'answer-matches', label: 'Answer matches a regex' },
  { kind: 'answer-schema', label: 'Answer is JSON valid against a schema' },
  { kind: 'first-event-within', label: 'First event within (ms)' },
  { kind: 'duration-within', label: 'Duration within (ms)' },
  { kind: 'events-at-least', label: 'At least N events' },
  { kind: 'events-at-most', label: 'At most N events' },
  { kind: 'spec-lens', label: 'Spec lens: no difference' },
  { kind: 'header', label: 'Response header' },
];

const blank: AssertionFields = { kind: 'outcome', expect: 'success', code: '', text: '', pattern: '', schema: '', number: '', name: '', present: 'absent' };

function fieldsOf(a: Assertion): AssertionFields {
  switch (a.kind) {
    case 'outcome':
      return { ...blank, kind: a.kind, expect: a.expect, code: a.code ?? '' };
    case 'answer-equals':
    case 'answer-contains':
    case 'answer-not-contains':
      return { ...blank, kind: a.kind, text: a.text };
    case 'answer-matches':
      return { ...blank, kind: a.kind, pattern: a.pattern };
    case 'answer-schema':
      return { ...blank, kind: a.kind, schema: a.schema ? JSON.stringify(a.schema, null, 2) : '' };
    case 'first-event-within':
    case 'duration-within':
      return { ...blank, kind: a.kind, number: String(a.ms) };
    case 'events-at-least':
    case 'events-at-most':
      return { ...blank, kind: a.kind, number: String(a.count) };
    case 'spec-lens':
      return { ...blank, kind: a.kind };
    case 'header':
      return { ...blank, kind: a.kind, name: a.name, present: a.present ? 'present' : 'absent' };
  }
}

function assertionOf(f: AssertionFields): Assertion {
  switch (f.kind) {
    case 'outcome':
      return f.expect === 'success' ? { kind: 'outcome', expect: 'success' } : { kind: 'outcome', expect: 'failure', ...(f.code.trim() && { code: f.code.trim() }) };
    case 'answer-equals':
    case 'answer-contains':
    case 'answer-not-contains':
      return { kind: f.kind, text: f.text };
    case 'answer-matches':
      return { kind: f.kind, pattern: f.pattern };
    case 'answer-schema':
      return f.schema.trim() ? { kind: f.kind, schema: JSON.parse(f.schema) as Record<string, unknown> } : { kind: f.kind };
    case 'first-event-within':
    case 'duration-within':
      return { kind: f.kind, ms: Number(f.number) };
    case 'events-at-least':
    case 'events-at-most':
      return { kind: f.kind, count: Number(f.number) };
    case 'spec-lens':
      return { kind: f.kind };
    case 'header':
      return { kind: f.kind, name: f.name.trim(), present: f.present === 'present' };
  }
}

const wholeNumber = (v: string) => (/^\d{1,10}$/.test(v.trim()) && Number(v) <= 2_147_483_647 ? true : 'A whole number, 0 or more.');
const schemaRule = (v: string) => {
  if (!v.trim()) return true;
  try {
    compileSchemaCheck(JSON.parse(v));
    return true;
  } catch (err) {
    return `Not a usable JSON Schema: ${err instanceof Error ? err.message : String(err)}`;
  }
};

function AssertionRow({ index, control, register, errors, onRemove }: { index: number; control: Control<CaseFields>; register: UseFormRegister<CaseFields>; errors: Partial<Record<keyof AssertionFields, { message?: string }>> | undefined; onRemove(): void }) {
  const id = useId();
  const kind = useWatch({ control, name: `assertions.${index}.kind` });
  const expect = useWatch({ control, name: `assertions.${index}.expect` });
  const field = (name: keyof AssertionFields, label: string, input: React.ReactNode) => (
    <div className="field">
      <label htmlFor={`${id}-${name}`}>{label}</label>
      {input}
      {errors?.[name]?.message && (
        <span className="error" role="alert">
          {errors[name]!.message}
        </span>
      )}
    </div>
  );
  return (
    <li className="assertion-edit">
      {field(
        'kind',
        `Assertion ${index + 1}`,
        <select id={`${id}-kind`} {...register(`assertions.${index}.kind`)}>
          {KINDS.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.label}
            </option>
          ))}
        </select>,
      )}
      {kind === 'outcome' && (
        <>
          {field(
            'expect',
            'Expected outcome',
            <select id={`${id}-expect`} {...register(`assertions.${index}.expect`)}>
              <option value="success">Done or Succeeded</option>
              <option value="failure">A failure</option>
            </select>,
          )}
          {expect === 'failure' && field('code', 'Failure code (empty: any failure)', <input id={`${id}-code`} {...register(`assertions.${index}.code`)} />)}
        </>
      )}
      {(kind === 'answer-equals' || kind === 'answer-contains' || kind === 'answer-not-contains') &&
        field('text', 'Text ({{column}} reads a row’s column)', <textarea id={`${id}-text`} rows={2} {...register(`assertions.${index}.text`)} />)}
      {kind === 'answer-matches' &&
        field('pattern', 'Regular expression', <input id={`${id}-pattern`} {...register(`assertions.${index}.pattern`, { validate: (v) => (v ? patternCheck(v) : 'A pattern is needed.') })} />)}
      {kind === 'answer-schema' && field('schema', 'JSON Schema (empty: the agent’s output_schema)', <textarea id={`${id}-schema`} rows={3} {...register(`assertions.${index}.schema`, { validate: schemaRule })} />)}
      {(kind === 'first-event-within' || kind === 'duration-within' || kind === 'events-at-least' || kind === 'events-at-most') &&
        field('number', kind.startsWith('events') ? 'Events' : 'Milliseconds', <input id={`${id}-number`} inputMode="numeric" {...register(`assertions.${index}.number`, { validate: wholeNumber })} />)}
      {kind === 'header' && (
        <>
          {field('name', 'Header name', <input id={`${id}-name`} {...register(`assertions.${index}.name`, { validate: (v) => (/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(v.trim()) ? true : 'A header name (letters, digits, - and a few marks).') })} />)}
          {field(
            'present',
            'Expected',
            <select id={`${id}-present`} {...register(`assertions.${index}.present`)}>
              <option value="present">present</option>
              <option value="absent">absent</option>
            </select>,
          )}
        </>
      )}
      <button type="button" onClick={onRemove}>
        Remove assertion {index + 1}
      </button>
    </li>
  );
}

/**
 * A case's assertions, approval policy and rows, edited with react-hook-form: nothing is saved
 * until **Save case**, and a value refused says why beside it (nothing typed is cleared).
 */
export function CaseEditor({ value, onSave, onCancel }: { value: SuiteCase; onSave(next: SuiteCase): Promise<void>; onCancel(): void }) {
  const id = useId();
  const [saveError, setSaveError] = useState<string>();
  const policy = value.policy ?? { kind: 'approve-all' as const };
  const form = useForm<CaseFields>({
    defaultValues: {
      name: value.name,
      assertions: value.assertions.map(fieldsOf),
      policy: policy.kind,
      tools: policy.kind === 'per-tool' ? policy.tools.map((t) => ({ toolId: t.toolId, name: t.name ?? '', decision: t.decision })) : [],
      otherwise: policy.kind === 'per-tool' ? policy.otherwise : 'REJECT',
      rows: value.rows?.length ? rowsAsText(value.rows) : '',
    },
  });
  const { register, control, handleSubmit, formState } = form;
  // The editor opens below the list of cases, out of view under a long one: it takes focus, which brings it into view.
  useEffect(() => document.getElementById(`${id}-name`)?.focus(), [id]);
  const assertions = useFieldArray({ control, name: 'assertions' });
  const tools = useFieldArray({ control, name: 'tools' });
  const policyKind = useWatch({ control, name: 'policy' });
  const rowsText = useWatch({ control, name: 'rows' });
  const rows = rowsText.trim() ? parseRows(rowsText) : undefined;
  // An exact answer that reads no column holds every row to the run it was saved from: say so.
  const assertionsNow = useWatch({ control, name: 'assertions' });
  // A placeholder no row has a column for (a typo: {{mesage}}) stays as written, in every row alike.
  const readsAColumn = (text: string) => rows?.ok === true && placeholdersOf(text).some((name) => rows.columns.includes(name));
  const sameForEveryRow = rows?.ok && rows.rows.length > 1 ? assertionsNow.filter((a) => a.kind === 'answer-equals' && !readsAColumn(a.text)) : [];
  const submit = handleSubmit(async (f) => {
    setSaveError(undefined);
    const parsed = f.rows.trim() ? parseRows(f.rows) : undefined;
    const next: SuiteCase = {
      ...value,
      name: f.name.trim(),
      assertions: f.assertions.map(assertionOf),
      ...(value.mode === 'durable' && {
        policy: f.policy === 'per-tool' ? { kind: 'per-tool', tools: f.tools.filter((t) => t.toolId.trim()).map((t) => ({ toolId: t.toolId.trim(), ...(t.name && { name: t.name }), decision: t.decision })), otherwise: f.otherwise } : { kind: f.policy },
      }),
    };
    if (parsed?.ok) next.rows = parsed.rows;
    else delete next.rows;
    try {
      await onSave(next);
    } catch (err) {
      setSaveError(err instanceof Error ? err.message : String(err));
    }
  });
  return (
    <form className="case-editor panel" onSubmit={(e) => void submit(e)} aria-label={`Edit case ${value.name}`}>
      <div className="field">
        <label htmlFor={`${id}-name`}>Case name</label>
        <input id={`${id}-name`} {...register('name', { validate: (v) => (v.trim() ? true : 'A case needs a name.') })} />
        {formState.errors.name && <span className="error">{formState.errors.name.message}</span>}
      </div>
      <fieldset className="nested">
        <legend>Assertions</legend>
        <ol className="assertion-list">
          {assertions.fields.map((f, i) => (
            <AssertionRow key={f.id} index={i} control={control} register={register} errors={formState.errors.assertions?.[i] as never} onRemove={() => assertions.remove(i)} />
          ))}
        </ol>
        <button type="button" onClick={() => assertions.append({ ...blank, kind: 'answer-contains' })}>
          Add assertion
        </button>
        <p className="hint">Saved: {value.assertions.map(describeAssertion).join('; ') || 'none'}.</p>
      </fieldset>
      {value.mode === 'durable' && (
        <fieldset className="nested">
          <legend>Approvals</legend>
          <select aria-label="Approval policy" {...register('policy')}>
            <option value="approve-all">Approve all</option>
            <option value="reject-all">Reject all</option>
            <option value="per-tool">A decision per tool</option>
          </select>
          {policyKind === 'per-tool' && (
            <>
              {tools.fields.map((t, i) => (
                <div key={t.id} className="input-row">
                  <input aria-label={`Tool id ${i + 1}`} {...register(`tools.${i}.toolId`)} placeholder="tool id" />
                  <select aria-label={`Decision for tool ${i + 1}`} {...register(`tools.${i}.decision`)}>
                    <option value="APPROVE">Approve</option>
                    <option value="REJECT">Reject</option>
                  </select>
                  <button type="button" onClick={() => tools.remove(i)}>
                    Remove tool {i + 1}
                  </button>
                </div>
              ))}
              <button type="button" onClick={() => tools.append({ toolId: '', name: '', decision: 'APPROVE' })}>
                Add tool
              </button>
              <label>
                Any other tool:{' '}
                <select {...register('otherwise')}>
                  <option value="APPROVE">Approve</option>
                  <option value="REJECT">Reject</option>
                </select>
              </label>
            </>
          )}
        </fieldset>
      )}
      <div className="field">
        <label htmlFor={`${id}-rows`}>Rows of inputs (CSV with a header line, or a JSON array of objects; each row is one run)</label>
        <textarea
          id={`${id}-rows`}
          rows={4}
          placeholder={value.input ? 'topic,region\nLeave,emea\nTravel,amer' : 'message\nHello\nBonjour'}
          {...register('rows', { validate: (v) => (!v.trim() || parseRows(v).ok ? true : (parseRows(v) as { error: string }).error) })}
        />
        <span className="hint">
          {value.input ? 'Each column sets the input field of its name.' : 'The column “message” replaces the last question.'} Assertion texts read a column as {'{{column}}'}.
          {rows?.ok && ` ${rows.rows.length} ${rows.rows.length === 1 ? 'row' : 'rows'}: ${rows.columns.join(', ')}.`}
        </span>
        {formState.errors.rows && (
          <span className="error" role="alert">
            {formState.errors.rows.message}
          </span>
        )}
        {sameForEveryRow.length > 0 && (
          <p className="warning" role="status">
            The answer must equal {sameForEveryRow.map((a) => `“${a.text.length > 60 ? `${a.text.slice(0, 60)}…` : a.text}”`).join(' and ')} in every row: {sameForEveryRow.length === 1 ? 'that assertion reads' : 'those assertions read'} no column. Write a {'{{column}}'} into it, or remove it.
          </p>
        )}
      </div>
      {saveError && (
        <p className="error" role="alert">
          Not saved: {saveError}
        </p>
      )}
      <div className="toolbar">
        <button type="submit" className="primary" disabled={formState.isSubmitting}>
          Save case
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
