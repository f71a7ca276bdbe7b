import { useId, useState } from 'react';
import { SANDBOX_FAULT_HEADER, type FaultSetting } from '../../../contract/sandbox-fault';
import { faultHeaderOf, NO_FAULT, type FaultFields } from '../../../engine/fault-fields';

const FIELDS: { key: FaultSetting; label: string; hint: string }[] = [
  { key: 'dropAfter', label: 'Drop the stream after N events', hint: 'The connection breaks, with no run.failed.' },
  { key: 'delayFirst', label: 'Hold the first event, ms', hint: 'Keep-alives meanwhile; a wait’s answer is held as long.' },
  { key: 'stallAfter', label: 'Stall after N events', hint: 'Nothing more is sent, and the connection stays open.' },
  { key: 'slowBytes', label: 'Slow network, bytes a second', hint: 'The whole answer at that rate.' },
  { key: 'status', label: 'Answer with error status', hint: 'In the API’s own error format; nothing runs.' },
  { key: 'retryAfter', label: 'Retry-After, seconds', hint: 'With status 429 or 503.' },
];

/**
 * "Inject a fault (reference service)": X-Sandbox-Fault settings for the next run, so a user
 * sees how the console meets a dropped stream, a slow first event or a 429. Only the bundled
 * reference service honours the header, so it is added only when the profile connects there.
 */
export function FaultOptions({ fields, onChange, bundled }: { fields: FaultFields; onChange(fields: FaultFields): void; bundled: boolean }) {
  const id = useId();
  const header = faultHeaderOf(fields);
  const asked = header.value !== undefined || header.problem !== undefined;
  // Open from the start when a fault is set (remembered, or loaded by Run again): it is never hidden.
  const [open, setOpen] = useState(asked);
  return (
    <details className="fault-options" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary id={`${id}-summary`}>
        Inject a fault (reference service){header.value && bundled && <span className="muted">: {header.value}</span>}
      </summary>
      <div role="group" aria-labelledby={`${id}-summary`}>
        {!bundled && (
          <p className="hint" role="note">
            Only the bundled reference service honours <code>{SANDBOX_FAULT_HEADER}</code>; this profile connects elsewhere, so runs are sent without it.
          </p>
        )}
        <div className="fault-fields">
          {FIELDS.map(({ key, label, hint }) => (
            <div className="field" key={key}>
              <label htmlFor={`${id}-${key}`}>{label}</label>
              <input
                id={`${id}-${key}`}
                inputMode="numeric"
                placeholder="off"
                value={fields[key]}
                disabled={!bundled}
                aria-invalid={header.field?.key === key || undefined}
                aria-describedby={header.field?.key === key ? `${id}-${key}-hint ${id}-problem` : `${id}-${key}-hint`}
                onChange={(e) => onChange({ ...fields, [key]: e.target.value })}
              />
              <span className="hint" id={`${id}-${key}-hint`}>
                {hint}
              </span>
            </div>
          ))}
        </div>
        {header.problem && (
          <p className="hint error" role="alert" id={`${id}-problem`}>
            {header.field ? `${FIELDS.find((f) => f.key === header.field!.key)!.label}: ${header.field.problem}` : header.problem}
          </p>
        )}
        {header.value && bundled && (
          <p className="hint" role="status">
            The run sends <code>{`${SANDBOX_FAULT_HEADER}: ${header.value}`}</code>.
          </p>
        )}
        {asked && (
          <button type="button" onClick={() => onChange(NO_FAULT)}>
            No fault
          </button>
        )}
      </div>
    </details>
  );
}
