/**
 * A `Retry-After` header as RFC 9110 §10.2.3 defines it: delay-seconds (digits only) or an
 * HTTP-date. Anything else (`1e9`, `0x10`, `1.5`, `-5`) is not a wait: undefined. A date in the
 * past is a wait of 0.
 */
export function retryAfterSeconds(value: string | null | undefined, now = Date.now()): number | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  // Digits past any number's range (309 or more) read as Infinity, which no page can say or wait.
  if (/^\d+$/.test(v)) return Number.isFinite(Number(v)) ? Number(v) : undefined;
  // An HTTP-date names its weekday and month in letters ("Wed, 21 Oct 2015 07:28:00 GMT"); Date.parse alone takes far more.
  if (!/^[A-Za-z]{3},? /.test(v) || !/GMT$/.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** The longest wait the page holds Retry back for; a longer one is told, and Retry stays the user's to press. */
export const MAX_OBEYED_RETRY_AFTER_S = 120;

/** What the page says of a `Retry-After` value: the wait it asks for, that it is no wait, or nothing when there is none. */
export function retryAfterNote(stated: string | undefined, seconds = retryAfterSeconds(stated)): string {
  if (seconds !== undefined) return `The service asks to wait ${seconds.toLocaleString('en-US')} s (Retry-After).`;
  if (stated === undefined || !stated.trim()) return '';
  return `The service's Retry-After, "${stated.slice(0, 64)}", is not a wait (seconds or an HTTP date).`;
}
