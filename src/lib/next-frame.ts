/** Runs `fn` at the animation frame after `delayMs`: a hidden tab renders nothing until it is shown. */
export function nextFrame(fn: () => void, delayMs: number): void {
  if (delayMs > 0) setTimeout(() => requestAnimationFrame(fn), delayMs);
  else requestAnimationFrame(fn);
}
