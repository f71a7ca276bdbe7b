/**
 * Run again: a kept run's request loaded into the form, exactly (agent, API, mode, input,
 * messages), through the same saved values the form keeps as it is typed. Nothing is sent.
 */

import type { Message } from '../../../contract/agents';
import { transcriptOf } from '../../../contract/agents';
import { local } from '../../../lib/storage';
import type { HistoryEntry } from '../../../engine/history-entry';
import type { ComposerMessage, RunFormValues } from './run-form-values';
import { partsOf } from '../../../engine/run-request';
import type { FormValues } from './schema-form';

export const savedFormKey = (agentId: string) => `runForm.${agentId}`;

/** An input object as form values: text for text-like fields, booleans as they are, objects field by field. */
export function formValuesOfInput(input: Record<string, unknown>): FormValues {
  const out: FormValues = {};
  for (const [name, v] of Object.entries(input)) {
    if (typeof v === 'boolean' || typeof v === 'string') out[name] = v;
    else if (typeof v === 'number') out[name] = String(v);
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[name] = v.join('\n');
    else if (typeof v === 'object' && v !== null && !Array.isArray(v)) out[name] = formValuesOfInput(v as Record<string, unknown>);
    else out[name] = v === null || v === undefined ? '' : JSON.stringify(v, null, 2);
  }
  return out;
}

function composerOf(messages: Message[] | undefined): ComposerMessage[] {
  const list = (messages ?? []).filter((m) => m && (m.role === 'USER' || m.role === 'GLEAN_AI')).map((m) => ({ role: m.role, text: transcriptOf([m]) }));
  return list.length ? list : [{ role: 'USER', text: '' }];
}

/** Writes the run's input and messages as the agent's form values, so the form opens with them. */
export function loadIntoForm(entry: HistoryEntry): void {
  const parts = partsOf(entry.request);
  const values: RunFormValues = { input: formValuesOfInput(parts.input ?? {}), messages: composerOf(parts.messages) };
  local.set(savedFormKey(entry.request.agentId), values);
}

/** What the form says of a run it was loaded from. */
export interface LoadedRun {
  entryId: string;
  agentName: string;
  startedAt: number;
  profileId?: string;
  profileLabel: string;
}

export function loadedRunOf(entry: HistoryEntry): LoadedRun {
  return {
    entryId: entry.id,
    agentName: entry.request.agentName ?? entry.request.agentId,
    startedAt: entry.startedAt,
    ...(entry.target.profileId !== undefined && { profileId: entry.target.profileId }),
    profileLabel: entry.target.profileLabel,
  };
}
