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
  /** The body's `messages` as it arrived (what a conversation's turn sent), when it had some and they were small enough to keep. */
  messages?: unknown;
  /** Their size as JSON, when they were too big to keep. */
  messagesOmittedBytes?: number;
}

/** Messages kept per logged POST at most, as JSON: the log holds `limit` POSTs, so it stays a few MB at worst. */
export const LOGGED_MESSAGES_MAX_CHARS = 16_384;

/** What the log keeps of a POST's messages. */
export function loggedMessages(messages: unknown): Pick<LoggedPost, 'messages' | 'messagesOmittedBytes'> {
  if (messages === undefined) return {};
  const json = JSON.stringify(messages);
  return json.length <= LOGGED_MESSAGES_MAX_CHARS ? { messages } : { messagesOmittedBytes: Buffer.byteLength(json) };
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
