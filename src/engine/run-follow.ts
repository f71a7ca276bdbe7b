/**
 * Following a durable run the console holds: a loop of its session's reads while something
 * watches it, paused while the page is hidden. One loop per run at most; it ends when the run
 * ends, cannot be read, or nothing watches it any more (the store aborts it).
 */
import type { Flight } from './flight';
import { isFollowed } from './run-machine';

export interface Visibility {
  hidden(): boolean;
  onShown(fn: () => void): void;
}

/** Waits while the page is hidden: follow loops pass through it before each read. */
export class ShownGate {
  private readonly waiting = new Set<() => void>();

  constructor(private readonly visibility?: Visibility) {
    visibility?.onShown(() => {
      for (const go of [...this.waiting]) go();
    });
  }

  /** Resolves at once while the page is shown, else once it is shown again (or the signal aborts). */
  wait = (signal: AbortSignal): Promise<void> => {
    if (!this.visibility?.hidden()) return Promise.resolve();
    return new Promise((resolve) => {
      const go = () => {
        this.waiting.delete(go);
        signal.removeEventListener('abort', go);
        resolve();
      };
      this.waiting.add(go);
      signal.addEventListener('abort', go, { once: true });
    });
  };
}

/**
 * Starts the loop that reads a watched durable run until it ends, unless one runs already or
 * there is nothing to follow; `ended` is told when the loop is over.
 */
export function follow(flight: Flight, readFirst: boolean, gate: ShownGate, ended: () => void): void {
  if (flight.following || flight.watchers === 0) return;
  const record = flight.record;
  if (!record.runId || !isFollowed(record.state.status) || flight.session.unreadable) return;
  const following = new AbortController();
  flight.following = following;
  void flight.session
    .follow({ signal: following.signal, readFirst, gate: gate.wait })
    .catch(() => undefined)
    .finally(() => {
      if (flight.following === following) flight.following = undefined;
      ended();
    });
}
