/**
 * The page's run store: runs written through to history (the browser database, loaded on first
 * write), held by Web Locks (where the page has none, by this tab's row in the database: history's
 * presence), read while the tab is shown, rendered at animation frames. Loaded
 * after the first page (hooks/run-store), with the engine it brings.
 */
import { RunStore, type RunStoreOptions } from '../engine/run-store';
import type { WriteRun } from '../engine/run-writes';
import { nextFrame } from '../lib/next-frame';
import { pageVisibility, webLocks } from '../lib/web-locks';

const writeToHistory: WriteRun = async (entry, details, options) => (await import('../db/history')).writeRun(entry, details, options);
const holdInHistory = async (name: string) => (await import('../db/history')).holdRun(name);

export function consoleRunStore(options: RunStoreOptions = {}): RunStore {
  return new RunStore({ save: writeToHistory, visibility: pageVisibility, schedule: nextFrame, lock: webLocks ?? holdInHistory, ...options });
}
