/**
 * "Inject a fault (reference service)" in the run options: the X-Sandbox-Fault settings as
 * typed (contract/sandbox-fault.ts), turned into the header's value, or into the reason the
 * service would refuse it. An empty field is a setting not asked for.
 */
import { FAULT_SETTINGS, formatSandboxFault, parseSandboxFault, type FaultSetting } from '../contract/sandbox-fault';

export type FaultFields = Record<FaultSetting, string>;

export const NO_FAULT: FaultFields = { status: '', retryAfter: '', delayFirst: '', dropAfter: '', stallAfter: '', slowBytes: '' };

/** Fields read from storage (or an older version without them): strings only, every one there. */
export function normalizedFaultFields(saved: unknown): FaultFields {
  const s = (typeof saved === 'object' && saved !== null ? saved : {}) as Partial<Record<FaultSetting, unknown>>;
  const out = { ...NO_FAULT };
  for (const { key } of FAULT_SETTINGS) if (typeof s[key] === 'string') out[key] = s[key];
  return out;
}

export interface FaultHeader {
  /** The header's value; undefined when no fault is asked for, or the fields are wrong. */
  value?: string;
  /** Why the fields make no fault the service would take (its own words). */
  problem?: string;
  /** The one field whose value is wrong, and why in the form's words (not the header's). */
  field?: { key: FaultSetting; problem: string };
}

/** The X-Sandbox-Fault value the fields ask for. */
export function faultHeaderOf(fields: FaultFields): FaultHeader {
  const parts = FAULT_SETTINGS.filter(({ key }) => fields[key].trim() !== '').map(({ key, name }) => `${name}=${fields[key].trim()}`);
  if (!parts.length) return {};
  const parsed = parseSandboxFault(parts.join('; '));
  if (parsed.ok) return { value: formatSandboxFault(parsed.fault) };
  return { problem: parsed.problem, ...(parsed.setting && { field: parsed.setting }) };
}

/** The fields of a header value a run was sent with (Run again); none when it cannot be read. */
export function faultFieldsOf(value: string | undefined): FaultFields {
  if (value === undefined) return { ...NO_FAULT };
  const parsed = parseSandboxFault(value);
  if (!parsed.ok) return { ...NO_FAULT };
  const out = { ...NO_FAULT };
  for (const { key } of FAULT_SETTINGS) {
    const n = parsed.fault[key];
    if (n !== undefined) out[key] = String(n);
  }
  return out;
}
