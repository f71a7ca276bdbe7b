/**
 * What every tab of the console shows and holds now, as retention and the cut-off sweep must
 * know it: a conversation on screen in any tab is never let go, and a run whose request a tab
 * still has open is not cut off.
 *
 * With Web Locks (a secure context), a tab holds a lock per item it shows (shared) and per run
 * whose request is open (the run store's, exclusive); the browser lets them go when the tab
 * closes or crashes, and any tab reads them all with `locks.query()`.
 *
 * Without them (plain http on a LAN address), each tab keeps a row in the database saying what
 * it shows and holds, written again every HEARTBEAT_MS while it has anything to say. A row older
 * than TAB_STALE_MS is a tab that was closed without cleaning up (or crashed): what it said no
 * longer counts, and it is deleted. A hidden tab's timers may be held to one a minute, so the
 * bound leaves room for that; a reloaded page deletes its row as it goes, when the browser lets it.
 */

import { RUN_LOCK_PREFIX } from '../../engine/run-writes';
import type { ConsoleDb } from '../console-db';

/** The Web Lock (or row entry) a tab holds while its request of a run is open: the run store's. */
export { RUN_LOCK_PREFIX };
/** The Web Lock a tab holds while it shows an item. */
export const SHOWN_LOCK_PREFIX = 'mac-shown:';
export const HEARTBEAT_MS = 15_000;
export const TAB_STALE_MS = 3 * 60_000;
/** The database rows of tabs without Web Locks: `meta` rows keyed `tab:<id>`. */
export const TAB_ROW_PREFIX = 'tab:';

export interface PresenceSnapshot {
  /** Items some tab shows. */
  shown: ReadonlySet<string>;
  /** Names some tab holds (runs in flight: `mac-run:<id>`). */
  held: ReadonlySet<string>;
}

export interface Presence {
  /** Marks an item as shown by this tab until the returned function is called. */
  show(itemId: string): () => void;
  /** Holds `name` until the returned function is called; resolves once every tab can see it held. */
  hold(name: string): Promise<() => void>;
  /** What every tab shows and holds now. */
  snapshot(): Promise<PresenceSnapshot>;
}

interface TabRow {
  beatAt: number;
  shown: string[];
  held: string[];
}

/** Presence through the page's Web Locks. */
export function lockPresence(locks: LockManager): Presence {
  const holdLock = (name: string, mode: LockMode) =>
    new Promise<() => void>((granted, refused) => {
      locks.request(name, { mode }, () => new Promise<void>((release) => granted(release))).catch(refused);
    });
  return {
    show(itemId) {
      const held = holdLock(`${SHOWN_LOCK_PREFIX}${itemId}`, 'shared');
      let released = false;
      return () => {
        if (released) return;
        released = true;
        void held.then((release) => release(), () => undefined);
      };
    },
    hold: (name) => holdLock(name, 'exclusive'),
    async snapshot() {
      const state = await locks.query();
      // A lock asked for and not yet granted is a tab about to show the item: it counts too.
      const names = [...(state.held ?? []), ...(state.pending ?? [])].map((l) => l.name ?? '');
      return {
        shown: new Set(names.filter((n) => n.startsWith(SHOWN_LOCK_PREFIX)).map((n) => n.slice(SHOWN_LOCK_PREFIX.length))),
        held: new Set((state.held ?? []).map((l) => l.name ?? '')),
      };
    },
  };
}

/** Presence through a row per tab in the database, for pages without Web Locks. */
export function rowPresence(db: ConsoleDb, options: { tabId?: string; now?: () => number } = {}): Presence {
  const now = options.now ?? Date.now;
  const key = `${TAB_ROW_PREFIX}${options.tabId ?? crypto.getRandomValues(new Uint32Array(2)).join('-')}`;
  const shown = new Map<string, number>();
  const held = new Set<string>();
  let beat: ReturnType<typeof setInterval> | undefined;
  let writing = Promise.resolve();
  // Rows are written one after another, so the last one written says what this tab does now.
  const write = () =>
    (writing = writing
      .then(async () => {
        if (shown.size || held.size) await db.meta.put({ key, value: { beatAt: now(), shown: [...shown.keys()], held: [...held] } satisfies TabRow });
        else await db.meta.delete(key);
      })
      .catch(() => undefined));
  const changed = () => {
    const busy = shown.size > 0 || held.size > 0;
    if (busy && beat === undefined) beat = setInterval(() => void write(), HEARTBEAT_MS);
    if (!busy && beat !== undefined) {
      clearInterval(beat);
      beat = undefined;
    }
    return write();
  };
  if (typeof window !== 'undefined') window.addEventListener('pagehide', () => void db.meta.delete(key).catch(() => undefined));
  return {
    show(itemId) {
      shown.set(itemId, (shown.get(itemId) ?? 0) + 1);
      void changed();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const n = (shown.get(itemId) ?? 1) - 1;
        if (n > 0) shown.set(itemId, n);
        else shown.delete(itemId);
        void changed();
      };
    },
    async hold(name) {
      held.add(name);
      await changed();
      return () => {
        held.delete(name);
        void changed();
      };
    },
    async snapshot() {
      const rows = await db.meta.where('key').startsWith(TAB_ROW_PREFIX).toArray();
      const fresh = now() - TAB_STALE_MS;
      const out = { shown: new Set<string>(), held: new Set<string>() };
      const stale: string[] = [];
      for (const row of rows) {
        const tab = row.value as TabRow;
        if (!(tab.beatAt > fresh)) {
          stale.push(row.key);
          continue;
        }
        for (const s of tab.shown) out.shown.add(s);
        for (const h of tab.held) out.held.add(h);
      }
      if (stale.length) await db.meta.bulkDelete(stale).catch(() => undefined);
      return out;
    },
  };
}

/** This page's presence: Web Locks where the page has them, else a row in the database. */
export function pagePresence(db: ConsoleDb): Presence {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  return locks ? lockPresence(locks) : rowPresence(db);
}
