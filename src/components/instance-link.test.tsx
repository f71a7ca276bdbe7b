import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { InstanceLink } from './instance-link';

afterEach(cleanup);

it('an https address from an instance is a link, opened in a new tab without referrer', () => {
  render(<InstanceLink href="https://developers.glean.com/errors/spend-limit-exceeded">Documentation for this error</InstanceLink>);
  const link = screen.getByRole('link', { name: 'Documentation for this error' });
  expect(link.getAttribute('href')).toBe('https://developers.glean.com/errors/spend-limit-exceeded');
  expect(link.getAttribute('target')).toBe('_blank');
  expect(link.getAttribute('rel')).toBe('noreferrer noopener');
  // Where it leads is said beside it: the instance chose the address.
  expect(link.parentElement!.textContent).toContain('(developers.glean.com)');
});

it('so is plain http', () => {
  render(<InstanceLink href="http://intranet.example/errors/x">Documentation for this error</InstanceLink>);
  expect(screen.getByRole('link', { name: 'Documentation for this error' }).getAttribute('href')).toBe('http://intranet.example/errors/x');
});

it.each([
  ['javascript:', 'javascript:alert(document.domain)'],
  ['data:', 'data:text/html,<script>alert(1)</script>'],
  ['ftp:', 'ftp://files.example/errors.txt'],
  ['a relative URL (it would open on this console)', '/errors/spend-limit-exceeded'],
  ['no URL at all', 'see the admin guide'],
])('%s is shown as text, said not to be a web link, and is no link', (_, href) => {
  const { container } = render(<InstanceLink href={href}>Documentation for this error</InstanceLink>);
  expect(screen.queryByRole('link')).toBeNull();
  expect(container.querySelector('a, [href]')).toBeNull();
  expect(container.textContent).toBe(`Documentation for this error: ${href} (not a web link: only http and https addresses are opened from here)`);
  expect(container.querySelector('code')?.textContent).toBe(href);
});
