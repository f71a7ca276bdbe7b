import { useState } from 'react';
import { local } from '../../../lib/storage';
import { NO_FAULT, normalizedFaultFields, type FaultFields } from './fault-fields';
import type { Flavour, Mode } from '../../../engine/run-request';

/**
 * How the next run of an agent will be sent, remembered per agent in this browser: choosing
 * Durable for one agent does not carry over to the next one opened.
 */
export interface RunSettings {
  flavour: Flavour;
  mode: Mode;
  /** Wait mode's client-side timeout in seconds, as typed; '' for none. */
  timeoutSec: string;
  /** X-Sandbox-Fault settings as typed ("Inject a fault (reference service)"); all empty for none. */
  fault: FaultFields;
}

const keyOf = (agentId: string) => `runSettings.${agentId}`;
export const DEFAULT_RUN_SETTINGS: RunSettings = { flavour: 'platform', mode: 'stream', timeoutSec: '', fault: NO_FAULT };

/** The legacy API has no durable runs: a durable choice there becomes wait. */
function normalized(saved: Partial<RunSettings> | null): RunSettings {
  const s = saved ?? {};
  const flavour: Flavour = s.flavour === 'legacy' ? 'legacy' : 'platform';
  const mode: Mode = s.mode === 'wait' || s.mode === 'stream' ? s.mode : s.mode === 'durable' ? (flavour === 'legacy' ? 'wait' : 'durable') : 'stream';
  return { flavour, mode, timeoutSec: typeof s.timeoutSec === 'string' ? s.timeoutSec : DEFAULT_RUN_SETTINGS.timeoutSec, fault: normalizedFaultFields(s.fault) };
}

export function loadRunSettings(agentId: string): RunSettings {
  return normalized(local.get<Partial<RunSettings> | null>(keyOf(agentId), null));
}

export interface RunSettingsState {
  settingsOf(agentId: string): RunSettings;
  /** Whether the user chose how this agent runs (in this browser): else the page may pick a default that fits the agent. */
  chosen(agentId: string): boolean;
  update(agentId: string, patch: Partial<RunSettings>): void;
}

export function useRunSettings(): RunSettingsState {
  const [changed, setChanged] = useState<Record<string, RunSettings>>({});
  const settingsOf = (agentId: string) => changed[agentId] ?? loadRunSettings(agentId);
  const chosen = (agentId: string) => changed[agentId] !== undefined || local.get<unknown>(keyOf(agentId), null) !== null;
  const update = (agentId: string, patch: Partial<RunSettings>) =>
    setChanged((all) => {
      const next = normalized({ ...(all[agentId] ?? loadRunSettings(agentId)), ...patch });
      local.set(keyOf(agentId), next);
      return { ...all, [agentId]: next };
    });
  return { settingsOf, chosen, update };
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
