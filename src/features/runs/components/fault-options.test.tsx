/**
 * A wrong value in "Inject a fault" is shown on its field: the field is marked invalid and the
 * message names it by its label, in the form's words, not only as header syntax
 * ("X-Sandbox-Fault: retry-after takes seconds…") a new user never typed.
 */
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { NO_FAULT } from '../../../engine/fault-fields';
import { FaultOptions } from './fault-options';

afterEach(cleanup);

it('marks the field with the wrong value invalid and names it by its label', () => {
  render(<FaultOptions fields={{ ...NO_FAULT, status: '429', retryAfter: 'abc' }} onChange={() => undefined} bundled />);
  const retryAfter = screen.getByLabelText('Retry-After, seconds');
  expect(retryAfter.getAttribute('aria-invalid')).toBe('true');
  expect(screen.getByLabelText('Answer with error status').getAttribute('aria-invalid')).not.toBe('true');
  const alert = screen.getByRole('alert');
  expect(alert.textContent).toBe('Retry-After, seconds: a whole number of seconds from 0 to 86,400, in plain digits; not "abc".');
  // The message is read with the field, as its description.
  expect(retryAfter.getAttribute('aria-describedby')?.split(' ')).toContain(alert.id);
});

it('says a problem between fields (retry-after without 429 or 503) without marking one field', () => {
  render(<FaultOptions fields={{ ...NO_FAULT, retryAfter: '5' }} onChange={() => undefined} bundled />);
  expect(screen.getByRole('alert').textContent).toMatch(/retry-after goes with status=429 or status=503/);
  expect(screen.getByLabelText('Retry-After, seconds').getAttribute('aria-invalid')).not.toBe('true');
});
