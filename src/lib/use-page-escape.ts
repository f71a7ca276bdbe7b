import { useEffect, useRef } from 'react';

/** Whether an element matches `selector`; false where the browser does not know the selector. */
function anyOpen(selector: string): boolean {
  try {
    return document.querySelector(selector) !== null;
  } catch {
    return false;
  }
}

/**
 * Whether something on the page uses this Escape itself, before a page-wide shortcut may: a
 * control that marked it handled, an open dialog, popover or menu, a combobox whose list is
 * open, or a search box with text (Escape clears it).
 */
export function escapeIsTaken(e: KeyboardEvent): boolean {
  if (e.defaultPrevented || e.isComposing) return true;
  if (anyOpen('dialog:modal') || anyOpen(':popover-open')) return true;
  const target = e.target instanceof Element ? e.target : null;
  if (!target) return false;
  if (target.closest('dialog[open], [role="dialog"], [role="alertdialog"], [role="menu"], [role="menubar"]')) return true;
  if (target.closest('[role="combobox"][aria-expanded="true"]')) return true;
  return target instanceof HTMLInputElement && target.type === 'search' && target.value !== '';
}

/**
 * Calls `onEscape` for an Escape pressed anywhere in the document while the caller is mounted
 * (focus in a side panel, the navigation, or on no control at all), unless something used it
 * first (`escapeIsTaken`). Listens on the document, after React's own handlers have run, so a
 * component's preventDefault or stopPropagation is seen.
 */
export function usePageEscape(onEscape: () => void): void {
  const latest = useRef(onEscape);
  useEffect(() => {
    latest.current = onEscape;
  });
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !escapeIsTaken(e)) latest.current();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);
}

/**
 * For an inline question's keydown (a confirmation, a panel): Escape answers Cancel and goes no
 * further, so the page's own Escape (which stops a run) does not see it.
 */
export function escapeCancels(e: { key: string; nativeEvent?: { isComposing?: boolean }; isComposing?: boolean; preventDefault(): void; stopPropagation(): void }, cancel: () => void): void {
  // An Escape that ends an input method's composition (Japanese, Chinese…) belongs to the field.
  if (e.key !== 'Escape' || (e.nativeEvent ?? e).isComposing) return;
  e.preventDefault();
  e.stopPropagation();
  cancel();
}
