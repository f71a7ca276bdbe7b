/**
 * The scopes field of the connection panel, with the console's own styles: empty, it shows an
 * example that reads as a hint, not as scopes already stated.
 */
import './styles.css';
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import { renderConsole } from './test-console';

beforeAll(async () => {
  await page.viewport(1440, 900);
});
afterEach(() => cleanup());

it('an empty scopes field shows “e.g. …” in the muted, italic style of a hint, unlike a value', async () => {
  localStorage.clear();
  sessionStorage.clear();
  renderConsole('/connection');
  const panel = screen.getByRole('complementary', { name: 'Connection' });
  const scopes = within(panel).getByLabelText<HTMLInputElement>('Scopes this token has');
  expect(scopes.value).toBe('');
  expect(scopes.placeholder).toMatch(/^e\.g\. custommetadata:sales agents\.run$/);
  const placeholder = getComputedStyle(scopes, '::placeholder');
  const value = getComputedStyle(scopes);
  const hint = getComputedStyle(within(panel).getByText(/^As your administrator minted it/));
  expect(placeholder.fontStyle).toBe('italic');
  expect(value.fontStyle).toBe('normal');
  // The colour of the hints, not of what was typed.
  expect(placeholder.color).toBe(hint.color);
  expect(placeholder.color).not.toBe(value.color);
});
