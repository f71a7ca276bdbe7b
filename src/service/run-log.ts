import type { RunEnded, RunObserver, RunStarted } from './runs.ts';

export interface LoggedRun extends RunStarted {
  seq: number;
  startedAt: string;
  endedAt?: string;
  events?: number;
  outcome?: RunEnded['outcome'];
}

/**
 * The last runs the service started, for the sandbox's "what did the server see" view:
 * it shows, for instance, that a console sent a run's POST once and only once.
 */
export class RunLog {
  private readonly runs: LoggedRun[] = [];
  private seq = 0;
  private readonly open = new Map<string, LoggedRun>();

  constructor(private readonly limit = 200) {}

  observer(next?: RunObserver): RunObserver {
    return {
      started: (run) => {
        const entry: LoggedRun = { ...run, seq: ++this.seq, startedAt: new Date().toISOString() };
        this.open.set(run.requestId, entry);
        this.runs.push(entry);
        if (this.runs.length > this.limit) this.runs.shift();
        next?.started?.(run);
      },
      ended: (run) => {
        const entry = this.open.get(run.requestId);
        if (entry) {
          Object.assign(entry, { events: run.events, outcome: run.outcome, endedAt: new Date().toISOString() });
          this.open.delete(run.requestId);
        }
        next?.ended?.(run);
      },
    };
  }

  list(): LoggedRun[] {
    return [...this.runs];
  }
}
