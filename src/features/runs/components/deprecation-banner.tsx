import { LEGACY_RUNS_DEPRECATED_AT, LEGACY_RUNS_SUNSET_AT } from '../../../contract/agents';
import { deprecationOf, type Mode } from '../../../engine/run-request';
import { RUN_ON_BOTH, type PairTarget } from '../../../engine/run-pair';

const day = (d: Date) => d.toISOString().slice(0, 10);

/** Shown while the legacy run endpoints are chosen; one click moves the same input to the replacement. */
export function DeprecationBanner({ headers, mode, onSwitch, formId, canCompare }: {
  headers?: [string, string][];
  mode: Mode;
  onSwitch(): void;
  /** The run form, which the comparison button sends (the same input on both APIs). */
  formId?: string;
  canCompare?: boolean;
}) {
  const d = deprecationOf(headers, { deprecatedAt: LEGACY_RUNS_DEPRECATED_AT, sunsetAt: LEGACY_RUNS_SUNSET_AT });
  return (
    <div className="warning" role="note" aria-label="Deprecated endpoint">
      <p>
        <strong>Deprecated endpoint.</strong> <code>/rest/api/v1/agents/runs/stream|wait</code> were deprecated on {day(d.deprecatedAt)} and are
        scheduled for removal on {day(d.sunsetAt)}
        {d.fromHeaders ? ' (as the last answer’s Deprecation and Sunset headers say)' : ''}. The replacement is{' '}
        {/* The successor Link names a path: the method is the one the legacy run was sent with. */}
        <code>POST {d.successor ?? '/api/agents/{agent_id}/runs'}</code>
        {mode === 'stream' ? (
          <>
            {' '}
            with <code>"stream": true</code> in the body.
          </>
        ) : (
          <>
            {' '}
            with <code>"stream": false</code> (the default), which answers once the run is over.
          </>
        )}
      </p>
      <div className="toolbar">
        <button type="button" onClick={onSwitch}>
          Switch to the replacement, keeping this input
        </button>
        {formId && (
          <button type="submit" form={formId} name={RUN_ON_BOTH} value={JSON.stringify({ kind: 'api' } satisfies PairTarget)} disabled={!canCompare}>
            Compare with the replacement (runs both)
          </button>
        )}
      </div>
    </div>
  );
}
