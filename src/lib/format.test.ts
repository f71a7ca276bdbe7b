import { expect, it } from 'vitest';
import { formatBytes, formatCount } from './format';

// Node's default locale in the test run is en-US (ICU); these are the reader-facing forms.
it('groups counts and scales bytes to B, kB and MB', () => {
  expect(formatCount(4188894)).toBe(new Intl.NumberFormat().format(4188894));
  expect(formatBytes(512)).toBe(`${new Intl.NumberFormat().format(512)} B`);
  expect(formatBytes(1)).toBe(`${new Intl.NumberFormat().format(1)} B`);
  expect(formatBytes(4188894)).toBe(new Intl.NumberFormat(undefined, { style: 'unit', unit: 'megabyte', unitDisplay: 'short', maximumFractionDigits: 1 }).format(4.2));
  expect(formatBytes(1500)).toMatch(/^1[.,]5\s?kB$/);
});
