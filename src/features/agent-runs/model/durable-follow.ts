/**
 * Following a durable run by reading it: what the console saw change, and how often it
 * asks again. Pure, so the polling rules are tested without a clock or a server.
 */
import { isPausedState, isTerminalState, type DurableRun, type DurableState } from '../../../contract/durable-runs';
import type { ResponseMeta } from '../../../lib/api-client';

/** A state the console saw, with the run's own timestamp and when the console saw it. */
export interface ObservedState {
  state: DurableState;
  /** The run's `updated_at` when this state was read (the service's clock). */
  at: string;
  /** Epoch ms when the console read it. */
  seenAt: number;
}

export interface FollowedRun {
  run: DurableRun;
  requestId: string;
  /** Every state change the console has read, oldest first; the first is the run's creation state. */
  observed: ObservedState[];
  /** The last answer as received (status, headers, body), for the spec lens and copying. */
  meta?: ResponseMeta;
}

/** The new read merged into what was followed so far: a changed state is appended, an unchanged one is not. */
export function follow(previous: FollowedRun | undefined, run: DurableRun, requestId: string, now: number, meta?: ResponseMeta): FollowedRun {
  const observed = previous && previous.run.run_id === run.run_id ? previous.observed : [];
  const last = observed.at(-1);
  return {
    run,
    requestId,
    ...(meta && { meta }),
    observed: last?.state === run.state ? observed : [...observed, { state: run.state, at: run.updated_at, seenAt: now }],
  };
}

/**
 * How long until the next read: every second at first, backing off to every 5 s while the
 * run stays active; every 5 s while it waits for approvals; never once it has ended.
 */
export function nextPollMs(run: DurableRun | undefined, readsSoFar: number): number | false {
  if (!run) return false;
  if (isTerminalState(run.state)) return false;
  if (isPausedState(run.state)) return 5_000;
  if (readsSoFar < 5) return 1_000;
  if (readsSoFar < 10) return 2_000;
  return 5_000;
}

/** "in 4 min 05 s", "2 s ago": a deadline against now. */
export function untilText(deadline: string, now: number): string {
  const ms = Date.parse(deadline) - now;
  if (Number.isNaN(ms)) return deadline;
  const abs = Math.abs(Math.round(ms / 1000));
  const h = Math.floor(abs / 3600);
  const m = Math.floor((abs % 3600) / 60);
  const s = abs % 60;
  const text = h ? `${h} h ${String(m).padStart(2, '0')} min` : m ? `${m} min ${String(s).padStart(2, '0')} s` : `${s} s`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}
