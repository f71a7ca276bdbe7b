import type { ReactNode } from 'react';

/**
 * A wide table scrolls sideways inside its own box, never the page; the box takes focus so
 * a keyboard can scroll it too.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
