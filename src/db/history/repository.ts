/**
 * History's one repository: every write of a run (its entry, its details, an import), with the
 * retention it calls for, in one transaction per operation. Items follow the runs by themselves
 * (items.ts); what retention keeps is decided by retention.ts, from what every tab shows and
 * holds (presence.ts).
 *
 * - A run's entry is written first when it starts (so the address it moves to works at once),
 *   then at each change of state; once its state is terminal it is final, never rewritten.
 * - A write that retention would let go of at once (a run too large for history on its own) is
 *   not written at all: its 200 MB of events are never cloned into the database to be deleted.
 */

import type { HistoryDetails, HistoryEntry } from '../../engine/history-entry';
import { isTerminal, type RunStatus, type Transition } from '../../engine/run-machine';
import type { ConsoleDb } from '../console-db';
import { itemIdOf } from '../items';
import type { StoredRun } from '../tables';
import type { Presence } from './presence';
import { retainIn } from './retain';
import { DEFAULT_LIMITS, PIN_LIMIT, type Dropped, type RetentionLimits } from './retention';
import { detailsSize, slicesOf } from './rows';

/** 'moved-on': the entry changed since it was read, and the change asked for no longer applies; 'dropped': retention let it go at once. */
export type WriteResult = 'written' | 'final' | 'gone' | 'moved-on' | 'dropped';

/**
 * A durable run followed in two tabs is written by both, each from what it has seen. What the
 * user did in one (a decision, a cancellation asked for: the notes among its states) stays in
 * history when the other, which never saw it, writes next.
 */
function withNotesKept(existing: StoredRun, entry: HistoryEntry): HistoryEntry {
  const key = (t: Transition) => `${t.at} ${t.status} ${t.note ?? ''}`;
  const has = new Set((entry.transitions ?? []).map(key));
  const missing = (existing.transitions ?? []).filter((t) => t.note !== undefined && !has.has(key(t)));
  if (!missing.length) return entry;
  return { ...entry, transitions: [...(entry.transitions ?? []), ...missing].sort((a, b) => a.at - b.at) };
}

export class HistoryRepository {
  limits: RetentionLimits = DEFAULT_LIMITS;

  constructor(
    readonly db: ConsoleDb,
    readonly presence: Presence,
    readonly now: () => number = Date.now,
  ) {}

  /** Items some tab shows, for a retention step about to run. */
  async shown(): Promise<ReadonlySet<string>> {
    try {
      return (await this.presence.snapshot()).shown;
    } catch {
      return new Set();
    }
  }

  /**
   * Writes the entry `make` works out from the one stored now, in the same transaction (so from
   * what is there, not from what was read before), with its details and retention; `make`
   * answering undefined writes nothing. `create` says the run is new here; otherwise an entry
   * no longer there (cleared, let go) is not brought back. A terminal entry is final.
   */
  async putRun(id: string, make: (existing: StoredRun | undefined) => HistoryEntry | undefined, details?: HistoryDetails, options: { create?: boolean } = {}): Promise<WriteResult> {
    const { db } = this;
    const shown = await this.shown();
    return db.transaction('rw', [db.runs, db.items, db.details, db.events, db.meta], async (): Promise<WriteResult> => {
      const existing = await db.runs.get(id);
      if (!existing && !options.create) return 'gone';
      if (existing && isTerminal(existing.status as RunStatus)) return 'final';
      const made = make(existing);
      if (!made) return 'moved-on';
      const entry = existing ? withNotesKept(existing, made) : made;
      // Details are written once; a later write of the entry alone keeps their size.
      const detailsBytes = details ? detailsSize(details) : (existing?.detailsBytes ?? 0);
      const row: StoredRun = { ...entry, item: itemIdOf(entry), size: JSON.stringify(entry).length + detailsBytes, detailsBytes };
      const dropped = await retainIn(db, { limits: this.limits, protect: shown, write: { row, existing }, at: this.now() });
      // Let go with its item (its other runs went with it): nothing of it is written.
      if (dropped.some((d) => d.id === row.item)) return 'dropped';
      if (details) {
        const slices = details.events ? slicesOf(details.events) : [];
        // Each awaited write is its own task, so each clone is a short one.
        for (const [i, events] of slices.entries()) await db.events.put({ id: entry.id, slice: i, events });
        await db.details.put({
          id: entry.id,
          ...(details.resultText !== undefined ? { resultText: details.resultText } : details.result !== undefined && { result: details.result }),
          eventRecords: slices.length,
        });
      }
      await db.runs.put(row);
      return 'written';
    });
  }

  /** Writes a run's entry (and its details, when given) through to the database. */
  writeRun(entry: HistoryEntry, details?: HistoryDetails, options: { create?: boolean } = {}): Promise<WriteResult> {
    return this.putRun(entry.id, () => entry, details, options);
  }

  /**
   * Adds a conversation read from a file, with retention, in one transaction: its item is as new
   * as the import, and retention never lets go of what was just imported.
   */
  async importRuns(entries: readonly HistoryEntry[], importedAt = this.now()): Promise<Dropped[]> {
    const { db } = this;
    const rows: StoredRun[] = entries.map((e) => ({ ...e, imported: e.imported ?? { at: importedAt }, item: itemIdOf(e), size: JSON.stringify(e).length, detailsBytes: 0 }));
    const shown = await this.shown();
    return db.transaction('rw', [db.runs, db.items, db.details, db.events, db.meta], async () => {
      await db.runs.bulkPut(rows);
      return retainIn(db, { limits: this.limits, protect: new Set([...shown, ...rows.map((r) => r.item)]), at: this.now() });
    });
  }

  /** Lets go of what is past the limits now (what every write does anyway). */
  async retain(): Promise<Dropped[]> {
    const { db } = this;
    const shown = await this.shown();
    return db.transaction('rw', [db.runs, db.items, db.details, db.events, db.meta], () => retainIn(db, { limits: this.limits, protect: shown, at: this.now() }));
  }

  /** Pins or unpins an item; answers false, changing nothing, when it is no longer in history or PIN_LIMIT items are pinned already. */
  async setPinned(itemId: string, pinned: boolean): Promise<boolean> {
    const { db } = this;
    return db.transaction('rw', [db.items], async () => {
      if (pinned && (await db.items.filter((i) => i.pinned === true && i.id !== itemId).count()) >= PIN_LIMIT) return false;
      return (await db.items.update(itemId, { pinned })) === 1;
    });
  }
}
