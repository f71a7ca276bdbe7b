/**
 * How the next run of an agent is sent (API, mode, wait timeout, fault), as the run options
 * hold it: the page remembers it per agent (features/runs), Run on both and the tools list read it.
 */
import { NO_FAULT, normalizedFaultFields, type FaultFields } from './fault-fields';
import type { Flavour, Mode } from './run-request';

/** Choosing Durable for one agent does not carry over to the next one opened: the page keeps one per agent. */
export interface RunSettings {
  flavour: Flavour;
  mode: Mode;
  /** Wait mode's client-side timeout in seconds, as typed; '' for none. */
  timeoutSec: string;
  /** X-Sandbox-Fault settings as typed ("Inject a fault (reference service)"); all empty for none. */
  fault: FaultFields;
}

export const DEFAULT_RUN_SETTINGS: RunSettings = { flavour: 'platform', mode: 'stream', timeoutSec: '', fault: NO_FAULT };

/** The legacy API has no durable runs: a durable choice there becomes wait. */
export function normalizedRunSettings(saved: Partial<RunSettings> | null): RunSettings {
  const s = saved ?? {};
  const flavour: Flavour = s.flavour === 'legacy' ? 'legacy' : 'platform';
  const mode: Mode = s.mode === 'wait' || s.mode === 'stream' ? s.mode : s.mode === 'durable' ? (flavour === 'legacy' ? 'wait' : 'durable') : 'stream';
  return { flavour, mode, timeoutSec: typeof s.timeoutSec === 'string' ? s.timeoutSec : DEFAULT_RUN_SETTINGS.timeoutSec, fault: normalizedFaultFields(s.fault) };
}

/** The timeout the settings ask for, in ms; undefined when none or not a positive number. */
export function timeoutMsOf(settings: RunSettings): number | undefined {
  return settings.mode === 'wait' ? waitTimeoutMsOf(settings) : undefined;
}

/** The timeout set for waits, whatever the mode now: a wait B of "Run on both" from a stream keeps it. */
export function waitTimeoutMsOf(settings: RunSettings): number | undefined {
  const sec = Number(settings.timeoutSec);
  return settings.timeoutSec.trim() !== '' && Number.isFinite(sec) && sec > 0 ? sec * 1000 : undefined;
}
