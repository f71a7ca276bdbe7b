import { useState } from 'react';
import type { ManualField } from '../model/schema-form';

/** Fields typed by hand, for when the agent's schema cannot be loaded. */
export function ManualFields({ fields, onChange }: { fields: ManualField[]; onChange(fields: ManualField[]): void }) {
  const [draft, setDraft] = useState<ManualField>({ name: '', type: 'string', required: false });
  const duplicate = fields.some((f) => f.name === draft.name.trim());
  return (
    <fieldset className="nested">
      <legend>Input fields, added by hand</legend>
      {fields.length > 0 && (
        <ul>
          {fields.map((f, i) => (
            <li key={f.name}>
              <code>{f.name}</code> ({f.type}
              {f.required ? ', required' : ''}){' '}
              <button type="button" onClick={() => onChange(fields.filter((_, j) => j !== i))} aria-label={`Remove field ${f.name}`}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="input-row">
        <input aria-label="New field name" value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} placeholder="field name" />
        <select aria-label="New field type" value={draft.type} onChange={(e) => setDraft({ ...draft, type: e.target.value as ManualField['type'] })}>
          <option value="string">string</option>
          <option value="integer">integer</option>
          <option value="number">number</option>
          <option value="boolean">boolean</option>
        </select>
        <label className="field checkbox">
          <input type="checkbox" checked={draft.required} onChange={(e) => setDraft({ ...draft, required: e.target.checked })} /> required
        </label>
        <button
          type="button"
          disabled={!draft.name.trim() || duplicate}
          onClick={() => {
            onChange([...fields, { ...draft, name: draft.name.trim() }]);
            setDraft({ name: '', type: 'string', required: false });
          }}
        >
          Add field
        </button>
      </div>
      {duplicate && <p className="hint error">A field with that name exists.</p>}
    </fieldset>
  );
}
