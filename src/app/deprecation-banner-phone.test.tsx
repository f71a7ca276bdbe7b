/**
 * The deprecation banner on a phone, with the console's own styles: its long legacy path
 * (`/rest/api/v1/agents/runs/stream|wait`, one unbreakable word) stayed on one line and ran past
 * the banner's edge to the screen's.
 */
import './styles.css';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { DeprecationBanner } from '../features/runs/components/deprecation-banner';

afterEach(() => cleanup());

it('keeps its long paths inside its box in a phone’s width, rather than running past its edge', () => {
  // 390 px wide, less the page's padding: the banner's width on a phone.
  render(
    <div style={{ width: 358 }}>
      <DeprecationBanner mode="stream" onSwitch={() => {}} />
    </div>,
  );
  const note = screen.getByRole('note', { name: 'Deprecated endpoint' });
  const box = note.getBoundingClientRect();
  const padding = parseFloat(getComputedStyle(note).paddingRight);
  for (const code of note.querySelectorAll('code')) {
    expect(code.getBoundingClientRect().right, code.textContent!).toBeLessThanOrEqual(box.right - padding + 0.5);
  }
});
