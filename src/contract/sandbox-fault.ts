/**
 * `X-Sandbox-Fault`: a request header the reference service (and its replays) honours, so a
 * client's developer can see how their code handles a slow first event, a dropped stream or
 * a 429 (README, "Testing your own client"). Sandbox only: a production instance never reads
 * it, and the console's server never forwards it to an upstream.
 *
 * The value is settings separated by `;`, each `name=value` in plain decimal digits:
 * `status=429; retry-after=7`. One parser for both sides: the service answers 400 with its
 * reason, and the console's form shows the same reason before anything is sent.
 */

export const SANDBOX_FAULT_HEADER = 'X-Sandbox-Fault';

export interface SandboxFault {
  /** Break the stream's connection after this many events, with no terminal event. */
  dropAfter?: number;
  /** Hold a stream's first event (a JSON answer: the answer) this many ms; keep-alives meanwhile. */
  delayFirst?: number;
  /**
   * Answer this error status, in the API family's format; no run starts. Alone, at once (before
   * the token is read); with delayFirst or slowBytes, once the request is admitted, held or paced.
   */
  status?: number;
  /** Seconds in `Retry-After`, with status 429 or 503. */
  retryAfter?: number;
  /** Stop sending after this many events, without closing the connection. */
  stallAfter?: number;
  /** Send the answer's body at this many bytes a second. */
  slowBytes?: number;
}

export type FaultSetting = keyof SandboxFault;

/** Each setting's name in the header, its range and what it takes, in the order a value is written. */
export const FAULT_SETTINGS: readonly { key: FaultSetting; name: string; min: number; max: number; unit: string }[] = [
  { key: 'status', name: 'status', min: 400, max: 599, unit: 'an HTTP error status' },
  { key: 'retryAfter', name: 'retry-after', min: 0, max: 86_400, unit: 'seconds' },
  { key: 'delayFirst', name: 'delay-first', min: 0, max: 600_000, unit: 'milliseconds' },
  { key: 'dropAfter', name: 'drop-after', min: 0, max: 1_000_000, unit: 'events' },
  { key: 'stallAfter', name: 'stall-after', min: 0, max: 1_000_000, unit: 'events' },
  { key: 'slowBytes', name: 'slow-bytes', min: 1, max: 10_000_000, unit: 'bytes a second' },
];

/** Statuses that say when to come back: only these take `retry-after`. */
export const RETRY_AFTER_STATUSES: readonly number[] = [429, 503];

export type FaultParse =
  | { ok: true; fault: SandboxFault }
  /** `setting`: the one setting whose value is out of its range, and why in words a form can show beside it. */
  | { ok: false; problem: string; setting?: { key: FaultSetting; problem: string } };

const USAGE =
  'It takes settings separated by ";": drop-after=N, delay-first=MS, status=CODE (with retry-after=S for 429 or 503), stall-after=N, slow-bytes=N.';

const DECIMAL = /^[0-9]+$/;

function shown(raw: string): string {
  return JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
}

/** The header's value as settings, or why it is refused (a sentence that names the setting). */
export function parseSandboxFault(value: string): FaultParse {
  const bad = (why: string, setting?: { key: FaultSetting; problem: string }): FaultParse => ({ ok: false, problem: `${SANDBOX_FAULT_HEADER}: ${why} ${USAGE}`, ...(setting && { setting }) });
  if (value.length > 200) return bad('the value is longer than 200 characters.');
  // A trailing ";" (or spaces around one) is forgiven; an empty setting between two is not.
  const parts = value.split(';').map((p) => p.trim());
  if (parts.length > 1 && parts.at(-1) === '') parts.pop();
  if (parts.length === 1 && parts[0] === '') return bad('the value is empty.');
  const fault: SandboxFault = {};
  for (const part of parts) {
    if (part === '') return bad('there is an empty setting between two ";".');
    const eq = part.indexOf('=');
    if (eq < 0) return bad(`${shown(part)} has no "=": write name=value.`);
    const name = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    const setting = FAULT_SETTINGS.find((s) => s.name === name);
    if (!setting) return bad(`${shown(name)} is not a setting.`);
    if (fault[setting.key] !== undefined) return bad(`${name} is given twice.`);
    const n = DECIMAL.test(raw) ? Number(raw) : NaN;
    if (!(n >= setting.min && n <= setting.max)) {
      const range = `from ${setting.min.toLocaleString('en-US')} to ${setting.max.toLocaleString('en-US')}`;
      const what = setting.unit.startsWith('an ') ? setting.unit : `a whole number of ${setting.unit}`;
      return bad(`${name} takes ${setting.unit}, a whole number ${range} in plain digits; not ${shown(raw)}.`, {
        key: setting.key,
        problem: `${what} ${range}, in plain digits; not ${shown(raw)}.`,
      });
    }
    fault[setting.key] = n;
  }
  if (fault.retryAfter !== undefined && !RETRY_AFTER_STATUSES.includes(fault.status ?? 0)) {
    return bad('retry-after goes with status=429 or status=503.');
  }
  if (fault.status !== undefined && (fault.dropAfter !== undefined || fault.stallAfter !== undefined)) {
    return bad('status answers an error at once, with no stream: it cannot go with drop-after or stall-after.');
  }
  if (fault.dropAfter !== undefined && fault.stallAfter !== undefined) {
    return bad('give drop-after or stall-after, not both: a stream either breaks or stalls.');
  }
  return { ok: true, fault };
}

/** The header value of `fault`, settings in one order; '' for none. */
export function formatSandboxFault(fault: SandboxFault): string {
  return FAULT_SETTINGS.filter((s) => fault[s.key] !== undefined)
    .map((s) => `${s.name}=${fault[s.key]}`)
    .join('; ');
}

/** Settings that shape an event stream: a JSON answer has no events to drop or stall after. */
export function shapesStream(fault: SandboxFault): boolean {
  return fault.dropAfter !== undefined || fault.stallAfter !== undefined;
}
