import { useCallback, useRef, useState, type RefObject, type WheelEvent } from 'react';

/** How far from the end still counts as at the end: a row, a line or two. */
const END_SLACK_PX = 32;

/**
 * Whether a growing scroller keeps its end in view, on by default. The component writes the
 * scroll position while `follow` is on; a user who scrolls up (wheel, keys, scrollbar) turns it
 * off, so new content no longer pulls the view from what they read. Nothing is read from the
 * layout as content arrives: only a scroll event reads the position, and only a move upwards
 * reads the size, so the write of the follower (which moves down) costs no read.
 */
export function useFollowEnd(ref: RefObject<HTMLElement | null>) {
  const [follow, setFollow] = useState(true);
  const lastTop = useRef(0);
  const onScroll = useCallback(() => {
    const el = ref.current;
    if (!el) return;
    const top = el.scrollTop;
    const up = top < lastTop.current;
    lastTop.current = top;
    // Not every move up is the user's: a box resized taller, or text taken off the end, clamps
    // the position up while it stays at the end.
    if (up && el.scrollHeight - el.clientHeight - top > END_SLACK_PX) setFollow(false);
  }, [ref]);
  // The wheel says so before the scroll event does, which a render could otherwise undo.
  const onWheel = useCallback((e: WheelEvent) => {
    if (e.deltaY < 0) setFollow(false);
  }, []);
  return { follow, setFollow, onScroll, onWheel };
}
