/**
 * One run the console holds, with everything that lives only while it is in flight or
 * followed: its session (the run's record and its requests), the POST's abort controller, its
 * wait timeout, the connection it was sent (or opened) with, who watches it, the loop that
 * follows it, and the queue of its writes to history. History has everything else.
 */

import type { RunConnection, RunRecord } from './run-record';
import type { RunSession } from './session';

export class Flight {
  /** The POST's controller, while it is open. */
  controller?: AbortController;
  /** Wait runs' client-side timeout. */
  deadline?: ReturnType<typeof setTimeout>;
  watchers = 0;
  /** Whether anything has watched it yet: a run opened is let go only once what showed it is gone. */
  watched = false;
  /** Stops the loop that follows the run, while one does. */
  following?: AbortController;
  /** This run's writes to history, one after another: a later state is never overwritten by an earlier one. */
  saving: Promise<unknown> = Promise.resolve();
  /** Whether history holds what a reload needs to find the run again. */
  kept = false;
  /**
   * When the run's first write reached history (the store's count of such writes then): from
   * then on history, not the store, says whether it is there (Clear history, retention).
   */
  storedAt?: number;
  private readonly keptWaiters: (() => void)[] = [];
  /** Releases this tab's lock on the run: held while the request is open, so another tab knows it is not orphaned. */
  releaseLock?: () => void;

  constructor(
    readonly session: RunSession,
    /** Where its follow-up requests go, whatever is selected now. Never persisted. */
    readonly connection: RunConnection,
  ) {}

  get record(): RunRecord {
    return this.session.record;
  }

  whenKept(): Promise<void> {
    if (this.kept) return Promise.resolve();
    return new Promise((resolve) => this.keptWaiters.push(resolve));
  }

  markKept(): void {
    if (this.kept) return;
    this.kept = true;
    for (const w of this.keptWaiters.splice(0)) w();
  }

  /** Everything timed is stopped: nothing of it fires once the console lets it go. */
  dispose(): void {
    this.following?.abort();
    this.following = undefined;
    clearTimeout(this.deadline);
    this.deadline = undefined;
    this.watchers = 0;
    this.releaseLock?.();
    this.releaseLock = undefined;
    this.markKept();
  }
}
