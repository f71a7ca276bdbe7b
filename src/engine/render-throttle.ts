/** Runs a callback later: at the animation frame after `delayMs` in the page (lib/next-frame), by hand in tests. */
export type Schedule = (fn: () => void, delayMs: number) => void;

/**
 * A render of the run costs several ms of layout and paint whatever the number of events
 * (the rows on screen, the last transcript chunk). When events flood in (a batch of
 * FLOOD_BATCH or more since the last render, thousands a second), rendering every frame
 * would take a large share of the main thread from reading them; renders are then spaced
 * FLOOD_INTERVAL_MS apart, ten a second. A stream slower than that, any model's tokens,
 * renders at every frame.
 */
export const FLOOD_BATCH = 64;
export const FLOOD_INTERVAL_MS = 100;

/** Headless, a frame is a timer's turn (~60 a second): the page gives its animation frames instead. */
export function timerFrame(fn: () => void, delayMs: number): void {
  setTimeout(fn, Math.max(16, delayMs));
}

/**
 * Tells React (through useSyncExternalStore) that something outside it changed, at most once
 * per animation frame, and ten times a second while items flood in: 50,000 events cost a few
 * dozen renders. It knows nothing of events but how many there are.
 */
export class RenderThrottle {
  private version = 0;
  private scheduled = false;
  /** How many items there are now, as last reported. */
  private items = 0;
  /** When listeners were last told, how many items they had seen then, and how many arrived the time before. */
  private notifiedAt = -Infinity;
  private notifiedItems = 0;
  private lastBatch = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly schedule: Schedule = timerFrame,
    private readonly now: () => number = () => performance.now(),
  ) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getVersion = (): number => this.version;

  /** Tells listeners at once: the stream opened or ended, which a user should not wait a frame for. */
  notifyNow(): void {
    this.tell();
  }

  /** Tells listeners at the next frame (or after the flood spacing); `items` is how many there are now. */
  notifySoon(items: number): void {
    this.items = items;
    if (this.scheduled) return;
    this.scheduled = true;
    const delay = this.lastBatch >= FLOOD_BATCH ? this.notifiedAt + FLOOD_INTERVAL_MS - this.now() : 0;
    this.schedule(() => {
      this.scheduled = false;
      this.notifiedAt = this.now();
      this.lastBatch = this.items - this.notifiedItems;
      this.notifiedItems = this.items;
      this.tell();
    }, delay);
  }

  private tell(): void {
    this.version++;
    for (const l of this.listeners) l();
  }
}
