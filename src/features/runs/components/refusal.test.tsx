import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { ApiError } from '../../../lib/api-client';
import { Refusal } from './refusal';

afterEach(cleanup);

/** A refused run as an instance might answer it: problem details whose documentation_url the instance chose. */
const refusal = (documentationUrl: string) =>
  new ApiError(
    'http',
    404,
    'Resource Not Found',
    'No agent with id "no-such".',
    { type: 'https://developers.glean.com/errors/resource-not-found', title: 'Resource Not Found', status: 404, detail: 'No agent with id "no-such".', code: 'resource_not_found', request_id: 'req_1', documentation_url: documentationUrl },
    undefined,
    'resource_not_found',
    'req_1',
  );

it.each([
  ['javascript:', 'javascript:alert(document.cookie)'],
  ['data:', 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='],
  ['ftp:', 'ftp://phish.example/reset-your-token'],
  ['relative', '/connection'],
])('documentation_url %s: shown as text, not as "Documentation for this error" to click', (_, url) => {
  render(<Refusal error={refusal(url)} />);
  const alert = screen.getByRole('alert');
  expect(within(alert).queryByRole('link', { name: /Documentation for this error/ })).toBeNull();
  expect(alert.querySelectorAll('a')).toHaveLength(0);
  expect(alert.textContent).toContain(`Documentation for this error: ${url} (not a web link`);
});

it('an https documentation_url is the link it always was', () => {
  render(<Refusal error={refusal('https://developers.glean.com/errors/resource-not-found')} />);
  const link = within(screen.getByRole('alert')).getByRole('link', { name: 'Documentation for this error' });
  expect(link.getAttribute('href')).toBe('https://developers.glean.com/errors/resource-not-found');
  expect(link.getAttribute('rel')).toBe('noreferrer noopener');
});

it('a 409 asking for a durable run offers that run, and not the advice to wait that would not help', () => {
  const body = { type: 'about:blank', title: 'Conflict', status: 409, detail: 'Run it with execution_mode DURABLE.', code: 'durable_run_required', request_id: 'req_2' };
  render(<Refusal error={new ApiError('http', 409, 'Conflict', body.detail, body, undefined, 'durable_run_required', 'req_2')} onRunAsDurable={() => {}} />);
  const alert = screen.getByRole('alert');
  expect(within(alert).getByRole('button', { name: 'Run as durable' })).toBeTruthy();
  expect(alert.textContent).not.toMatch(/wait for other runs to finish/);
});
