/**
 * Time as durable runs see it: the run's timestamps, its workers' waits, deadlines and the
 * retention sweep all read this, never Date.now or setTimeout directly, so a test can drive
 * a run's whole life (deadlines of minutes, retention of a day) without waiting for it.
 */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  now(): number;
  /**
   * Calls `fn` once `ms` have passed on this clock. `housekeeping`: the timer alone must not
   * keep the process alive (a sweep, not a run's work).
   */
  setTimer(fn: () => void, ms: number, housekeeping?: boolean): Timer;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms, housekeeping = false) {
    const t = setTimeout(fn, ms);
    if (housekeeping) t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

/** `fn` every `ms` on `clock`, until cancelled. */
export function every(clock: Clock, ms: number, fn: () => void): Timer {
  let timer: Timer;
  let cancelled = false;
  const arm = () => {
    timer = clock.setTimer(
      () => {
        if (cancelled) return;
        fn();
        arm();
      },
      ms,
      true,
    );
  };
  arm();
  return {
    cancel: () => {
      cancelled = true;
      timer.cancel();
    },
  };
}
