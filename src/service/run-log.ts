import type { RunEnded, RunObserver, RunStarted } from './runs.ts';

export { RUN_POST_PATH } from '../contract/run-paths.ts';

export interface LoggedRun extends RunStarted {
  seq: number;
  startedAt: string;
  endedAt?: string;
  events?: number;
  outcome?: RunEnded['outcome'];
}

/** A POST to a run endpoint, whatever came of it (a refusal starts no run). */
export interface LoggedPost {
  requestId: string;
  path: string;
  status: number;
  at: string;
}


/**
 * The last runs the service started, for the sandbox's "what did the server see" view:
 * it shows, for instance, that a console sent a run's POST once and only once.
 */
export class RunLog {
  private readonly runs: LoggedRun[] = [];
  private readonly posts: LoggedPost[] = [];
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

  post(entry: LoggedPost): void {
    this.posts.push(entry);
    if (this.posts.length > this.limit) this.posts.shift();
  }

  list(): LoggedRun[] {
    return [...this.runs];
  }

  listPosts(): LoggedPost[] {
    return [...this.posts];
  }
}
