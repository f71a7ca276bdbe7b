import { useCallback, useSyncExternalStore } from 'react';

/** Whether a CSS media query matches now, re-rendering when that changes. */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (notify: () => void) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', notify);
      return () => list.removeEventListener('change', notify);
    },
    [query],
  );
  return useSyncExternalStore(subscribe, () => window.matchMedia(query).matches);
}

/** Below this width the console is one column and the connection panel a summary (styles.css agrees). */
export const NARROW = '(max-width: 1099px)';
