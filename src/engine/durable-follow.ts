/**
 * Following a durable run by reading it: how often it asks again, and how long a deadline is
 * away. Pure, so the polling rules are tested without a clock or a server.
 */
import { isPausedState, isTerminalState, type DurableRun } from '../contract/durable-runs';

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
