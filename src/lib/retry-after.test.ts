import { expect, it } from 'vitest';
import { retryAfterNote, retryAfterSeconds } from './retry-after';

it('reads delay-seconds and HTTP-dates, and nothing else, as RFC 9110 defines Retry-After', () => {
  const now = Date.parse('2026-11-26T12:00:00Z');
  expect(retryAfterSeconds('7', now)).toBe(7);
  expect(retryAfterSeconds(' 120 ', now)).toBe(120);
  expect(retryAfterSeconds('0', now)).toBe(0);
  expect(retryAfterSeconds('Thu, 26 Nov 2026 12:00:30 GMT', now)).toBe(30);
  expect(retryAfterSeconds('Thu, 26 Nov 2026 11:00:00 GMT', now)).toBe(0);
  expect(retryAfterSeconds('99999999999999999999', now)).toBe(1e20);
  for (const notAWait of ['1e9', '0x10', '1.5', '-5', '', 'soon', '2026-11-26T12:00:30Z', 'Infinity', null, undefined]) {
    expect(retryAfterSeconds(notAWait, now), String(notAWait)).toBeUndefined();
  }
});

it('says the wait a Retry-After asks for in seconds, a date included, or that the value is none', () => {
  const now = Date.parse('2026-11-26T12:00:00Z');
  expect(retryAfterNote('7')).toBe('The service asks to wait 7 s (Retry-After).');
  expect(retryAfterNote('Thu, 26 Nov 2026 12:01:00 GMT', retryAfterSeconds('Thu, 26 Nov 2026 12:01:00 GMT', now))).toBe('The service asks to wait 60 s (Retry-After).');
  expect(retryAfterNote('1e9')).toBe(`The service's Retry-After, "1e9", is not a wait (seconds or an HTTP date).`);
  expect(retryAfterNote(undefined)).toBe('');
});

// Review r6: delay-seconds of 309 digits or more is past Number's range: Number() reads Infinity,
// and the page then says "wait ∞ s" (a value the reader refuses when spelled "Infinity").
it('a Retry-After too long for a number is a finite wait or no wait, never Infinity', () => {
  const huge = '9'.repeat(400);
  const seconds = retryAfterSeconds(huge);
  expect(seconds === undefined || Number.isFinite(seconds), String(seconds)).toBe(true);
  expect(retryAfterNote(huge)).not.toContain('∞');
});
