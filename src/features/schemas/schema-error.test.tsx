import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { ApiError, type ResponseMeta } from '../../lib/api-client';
import { SchemaError } from './schema-error';

afterEach(cleanup);

/** A 429 as an instance behind --upstream may send it: Retry-After is whatever it chose. */
function tooMany(retryAfter: string): ApiError {
  const meta: ResponseMeta = {
    method: 'GET',
    url: '/upstream/acme.example/rest/api/index/custom-metadata/schema/sales',
    status: 429,
    durationMs: 5,
    headers: [
      ['content-type', 'application/json'],
      ['retry-after', retryAfter],
    ],
    rawBody: '{"error":"too many requests","message":"Slow down."}',
    receivedAt: Date.now(),
  };
  return new ApiError('http', 429, 'too many requests', 'Slow down.', { error: 'too many requests', message: 'Slow down.' }, meta);
}

// RFC 9110 §10.2.3: Retry-After is an HTTP-date or delay-seconds (1*DIGIT). Number() also reads
// "1e9", "0x10" and "1.5"; the first locks the Retry button for 31 years.
it.each(['1e9', '0x10', '1.5', '99999999999999999999'])('a Retry-After of %s is no wait the page obeys: Retry stays usable', (value) => {
  render(<SchemaError error={tooMany(value)} group="sales" statedScopes={[]} tokenSent onCreate={() => {}} onRetry={() => {}} />);
  const retry = screen.getByRole('button', { name: /retry/i });
  expect({ value, label: retry.textContent, disabled: (retry as HTMLButtonElement).disabled }).toMatchObject({ value, disabled: false });
});

it('a short Retry-After holds Retry back, counting down; a long one is told and leaves Retry usable; one that is not a wait says so', () => {
  const shown = (value: string) => {
    cleanup();
    render(<SchemaError error={tooMany(value)} group="sales" statedScopes={[]} tokenSent onCreate={() => {}} onRetry={() => {}} />);
    const retry = screen.getByRole('button', { name: /retry/i }) as HTMLButtonElement;
    return { text: retry.parentElement!.textContent, label: retry.textContent, disabled: retry.disabled };
  };
  expect(shown('7')).toMatchObject({ label: 'Retry in 7 s', disabled: true });
  expect(shown('86400')).toMatchObject({ disabled: false });
  expect(shown('86400').text).toContain('asks to wait 86,400 s');
  expect(shown('1e9').text).toContain('"1e9", is not a wait');
});

// Review r6: the schema view stays mounted through Retry (react-query keeps the error while it
// refetches), so a second 429 arrives as new props to the same RetryAfter. Its countdown was
// state seeded once from the first wait: after that one ran out, the second wait was not obeyed.
it('a second 429 after the first wait ran out holds Retry back for its own wait', async () => {
  const props = { group: 'sales', statedScopes: [], tokenSent: true, onCreate: () => {}, onRetry: () => {} };
  const { rerender } = render(<SchemaError error={tooMany('1')} {...props} />);
  await screen.findByRole('button', { name: 'Retry now' }, { timeout: 5_000 });
  rerender(<SchemaError error={tooMany('30')} {...props} />);
  const retry = screen.getByRole('button', { name: /retry/i }) as HTMLButtonElement;
  expect({ text: retry.parentElement!.textContent, label: retry.textContent, disabled: retry.disabled }).toMatchObject({ label: 'Retry in 30 s', disabled: true });
});
