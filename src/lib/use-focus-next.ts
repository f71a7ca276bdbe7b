import { useRef } from 'react';

/**
 * Focus that moves once the element it names is on screen: an action that removes the control
 * it was started from (a row's Remove, a panel's Save) names where focus goes next, and that
 * element's ref takes it when React attaches it, instead of focus falling to the page's body.
 */
export function useFocusNext<T extends string>(): { focusNext(which: T): void; takeFocus(which: T): (el: HTMLElement | null) => void } {
  const next = useRef<T | null>(null);
  return {
    focusNext: (which) => {
      next.current = which;
    },
    takeFocus: (which) => (el) => {
      if (el && next.current === which) {
        next.current = null;
        el.focus();
      }
    },
  };
}
