import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { DeprecationBanner } from './deprecation-banner';

afterEach(() => cleanup());

const noop = () => {};

it('names the replacement with its method, as published before any answer', () => {
  render(<DeprecationBanner mode="stream" onSwitch={noop} />);
  expect(screen.getByRole('note', { name: 'Deprecated endpoint' }).textContent).toContain('The replacement is POST /api/agents/{agent_id}/runs with "stream": true in the body.');
});

it('names the successor an answer linked to, with its method, after a legacy run', () => {
  const headers: [string, string][] = [
    ['deprecation', '@1767225600'],
    ['sunset', 'Thu, 15 Apr 2027 00:00:00 GMT'],
    ['link', '</api/agents/echo-assistant/runs>; rel="successor-version"'],
  ];
  render(<DeprecationBanner headers={headers} mode="wait" onSwitch={noop} />);
  const text = screen.getByRole('note', { name: 'Deprecated endpoint' }).textContent;
  expect(text).toContain('as the last answer’s Deprecation and Sunset headers say');
  expect(text).toContain('The replacement is POST /api/agents/echo-assistant/runs with "stream": false (the default)');
});
