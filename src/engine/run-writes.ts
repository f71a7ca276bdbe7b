/**
 * The run store's writes through to history: each run's changes one after another (a later
 * state never overwritten by an earlier one), the first one before the run's POST goes out, and
 * what a reload needs to find the run again marked as kept. Where history is (the browser
 * database) is the page's business: it gives the writer.
 */
import type { HistoryDetails, HistoryEntry } from './history-entry';
import type { Flight } from './flight';
import { isInFlight, isTerminal } from './run-machine';
import { detailsOf, historyEntryOf, type RunRecord } from './run-record';

export type WriteRun = (entry: HistoryEntry, details: HistoryDetails | undefined, options: { create?: boolean }) => Promise<unknown>;

/** The Web Lock a tab holds while its request of a run is open: a run in flight that no tab holds was cut off by a close or reload. */
export const RUN_LOCK_PREFIX = 'mac-run:';

/**
 * What history keeps of a run's answer, once it ended: a wait answer's body as received, one
 * string to clone however many messages it holds; else as run-record's detailsOf says.
 */
function historyDetailsOf(record: RunRecord): HistoryDetails {
  if (!record.log && record.answer?.rawBody !== undefined) return { resultText: record.answer.rawBody };
  return detailsOf(record);
}

/** Whether history holds what finds the run again after a reload: a durable run's id, else the entry itself. */
export function findable(record: RunRecord): boolean {
  return record.request.mode !== 'durable' || record.runId !== undefined || isTerminal(record.state.status);
}

/**
 * Whether a change of this record is history's to keep: a run sent from here, always; a run
 * opened from history only while its entry may still change, and never a failed read (that
 * says what this connection may read, not how the run went).
 */
export function writesHistory(record: RunRecord): boolean {
  if (record.origin === 'sent') return true;
  return record.historyId !== undefined && !record.fromHistory?.final && !record.fromHistory?.imported && record.state.status !== 'refused';
}

export class RunWrites {
  /** Runs whose first write has reached history. */
  stored = 0;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly save: WriteRun,
    /** Told after each write landed (or could not), with the record it wrote. */
    private readonly written: (record: RunRecord) => void,
  ) {}

  /** Writes the new run's entry; resolves once it landed (or could not), so its POST may go. */
  create(flight: Flight, before: Promise<void>): Promise<void> {
    const record = flight.record;
    return this.enqueue(flight, before.then(() => this.write(flight, record, { create: true })));
  }

  /** Writes the run's change after the ones before it (a run history does not keep is only marked kept). */
  change(flight: Flight): void {
    const record = flight.record;
    if (!writesHistory(record)) {
      if (findable(record)) flight.markKept();
      return;
    }
    void this.enqueue(flight, flight.saving.then(() => this.write(flight, record, {})));
  }

  private enqueue<T>(flight: Flight, p: Promise<T>): Promise<T> {
    flight.saving = p;
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
    return p;
  }

  private async write(flight: Flight, record: RunRecord, options: { create?: boolean }): Promise<void> {
    const details = isTerminal(record.state.status) ? historyDetailsOf(record) : undefined;
    try {
      await this.save(historyEntryOf(record), details, options);
      if (options.create) flight.storedAt = ++this.stored;
    } catch {
      // History unavailable (private mode, quota): the run goes on; history says so where it is read.
    }
    if (findable(record)) flight.markKept();
    // The lock goes once history says the request is over: until then no tab takes the run for cut off.
    if (!isInFlight(record.state.status)) {
      flight.releaseLock?.();
      flight.releaseLock = undefined;
    }
    this.written(record);
  }

  /** Resolves once every write asked for so far has landed. */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }
}
