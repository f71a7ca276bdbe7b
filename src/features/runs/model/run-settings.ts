import { useState } from 'react';
import { local } from '../../../lib/storage';
import { normalizedRunSettings, type RunSettings } from '../../../engine/run-settings';

const keyOf = (agentId: string) => `runSettings.${agentId}`;

export function loadRunSettings(agentId: string): RunSettings {
  return normalizedRunSettings(local.get<Partial<RunSettings> | null>(keyOf(agentId), null));
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
  // Written when the user acts, not inside a state updater, which React may run twice or drop.
  const update = (agentId: string, patch: Partial<RunSettings>) => {
    const next = normalizedRunSettings({ ...settingsOf(agentId), ...patch });
    local.set(keyOf(agentId), next);
    setChanged((all) => ({ ...all, [agentId]: next }));
  };
  return { settingsOf, chosen, update };
}

