import { useState } from 'react';
import { local } from '../../../lib/storage';
import type { Flavour, Mode } from './run-request';

/** How the next run will be sent; kept in this browser. The agent is not here: it is in the URL. */
export interface RunSettings {
  flavour: Flavour;
  mode: Mode;
  /** Wait mode's client-side timeout in seconds, as typed; '' for none. */
  timeoutSec: string;
}

const KEY = 'runSettings';
const DEFAULTS: RunSettings = { flavour: 'platform', mode: 'stream', timeoutSec: '' };

function load(): RunSettings {
  const saved = local.get<Partial<RunSettings> | null>(KEY, null) ?? {};
  return {
    flavour: saved.flavour === 'legacy' ? 'legacy' : 'platform',
    mode: saved.mode === 'wait' || (saved.mode === 'durable' && saved.flavour !== 'legacy') ? saved.mode : 'stream',
    timeoutSec: typeof saved.timeoutSec === 'string' ? saved.timeoutSec : DEFAULTS.timeoutSec,
  };
}

export function useRunSettings(): [RunSettings, (patch: Partial<RunSettings>) => void] {
  const [settings, setSettings] = useState(load);
  const update = (patch: Partial<RunSettings>) =>
    setSettings((s) => {
      const next = { ...s, ...patch };
      // The legacy API has no durable runs: choosing it moves a durable choice to wait.
      if (next.flavour === 'legacy' && next.mode === 'durable') next.mode = 'wait';
      local.set(KEY, next);
      return next;
    });
  return [settings, update];
}

/** The timeout the settings ask for, in ms; undefined when none or not a positive number. */
export function timeoutMsOf(settings: RunSettings): number | undefined {
  const sec = Number(settings.timeoutSec);
  return settings.mode === 'wait' && settings.timeoutSec.trim() !== '' && Number.isFinite(sec) && sec > 0 ? sec * 1000 : undefined;
}
