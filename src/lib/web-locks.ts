/**
 * The page's Web Locks as a plain "hold until released" call: a lock held while a tab's request
 * of a run is open tells every other tab that the run is not cut off. Where the page has no Web
 * Locks (plain http on a LAN address is not a secure context), there is nothing to hold.
 */
export const webLocks: ((name: string) => Promise<() => void>) | undefined =
  typeof navigator !== 'undefined' && navigator.locks
    ? (name) =>
        new Promise<() => void>((granted, refused) => {
          navigator.locks
            .request(name, () => new Promise<void>((release) => granted(release)))
            .catch(refused);
        })
    : undefined;

/** The page's visibility, for what pauses while the tab is hidden. */
export const pageVisibility = {
  hidden: () => typeof document !== 'undefined' && document.hidden,
  onShown(fn: () => void): void {
    if (typeof document === 'undefined') return;
    document.addEventListener('visibilitychange', () => {
      if (!document.hidden) fn();
    });
  },
};
