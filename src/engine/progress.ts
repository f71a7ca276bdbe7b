/**
 * How far a run is, for runs that say up front how much they will send: an agent whose input
 * names a `count` (the reference service's firehose: `input.count` message events).
 */

/** The number of message events a run's request body asks for: a positive integer `input.count`. */
export function expectedEventsOf(body: unknown): number | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const input = (body as { input?: unknown }).input;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const count = (input as { count?: unknown }).count;
  return typeof count === 'number' && Number.isSafeInteger(count) && count > 0 ? count : undefined;
}

export interface Progress {
  received: number;
  expected: number;
  /** Whole percent, rounded down: 100 only once every expected event is there. */
  percent: number;
}

/** `received` of `expected` (> 0); more than expected counts as complete. */
export function progressOf(received: number, expected: number): Progress {
  const percent = Math.floor((Math.min(received, expected) / expected) * 100);
  return { received, expected, percent };
}
