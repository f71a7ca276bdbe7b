/**
 * Two texts word by word (Compare's answers, a suite's expected and actual): their equal ends set
 * apart cheaply, only the differing middle diffed, and bounded in characters and edits so that
 * two unrelated answers never cost seconds of the main thread. Pure.
 */
import { diffWordsWithSpace } from 'diff';

export interface DiffPart {
  value: string;
  added?: boolean;
  removed?: boolean;
}

export interface TextDiff {
  parts: DiffPart[];
  same: boolean;
  /** The differing middle was longer than a word diff is worth: only its first this many characters were compared word by word (the rest is marked whole). */
  truncatedAt?: number;
  /** The answers differ in more than MAX_DIFF_EDITS places: each is marked whole. */
  tooDifferent?: boolean;
}

/** Past this many characters of differing middle a word diff costs more than it tells. */
export const MAX_DIFF_CHARS = 40_000;
/**
 * A word diff gives up past this many edits (words and spaces added or removed): two unrelated
 * answers would otherwise cost seconds of the main thread. A count, not a time, so the same
 * answers always compare the same way.
 */
export const MAX_DIFF_EDITS = 1_000;

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);

/** Where the texts stop being equal from the start, backed off to a word boundary. */
function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  while (i > 0 && !isSpace(a[i - 1])) i--;
  return i;
}

/** How long their equal ends are (not reaching into the first `from` characters), backed off to a word boundary. */
function commonSuffix(a: string, b: string, from: number): number {
  const n = Math.min(a.length, b.length) - from;
  let i = 0;
  while (i < n && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  while (i > 0 && !isSpace(a[a.length - i])) i--;
  return i;
}

/**
 * The two answers word by word: removed parts are only in the first, added only in the second.
 * Their equal beginning and end are set apart first (cheap, whatever their length), so only
 * the middle where they differ is diffed; a middle too long or too different is marked whole.
 */
export function wordDiff(a: string, b: string): TextDiff {
  if (a === b) return { parts: a ? [{ value: a }] : [], same: true };
  const start = commonPrefix(a, b);
  const endLength = commonSuffix(a, b, start);
  const midA = a.slice(start, a.length - endLength);
  const midB = b.slice(start, b.length - endLength);
  const long = midA.length > MAX_DIFF_CHARS || midB.length > MAX_DIFF_CHARS;
  const headA = long ? midA.slice(0, MAX_DIFF_CHARS) : midA;
  const headB = long ? midB.slice(0, MAX_DIFF_CHARS) : midB;
  const changes = diffWordsWithSpace(headA, headB, { maxEditLength: MAX_DIFF_EDITS });
  const whole = (x: string, y: string): DiffPart[] => [...(x ? [{ value: x, removed: true }] : []), ...(y ? [{ value: y, added: true }] : [])];
  const middle: DiffPart[] = changes
    ? changes.map((c) => ({ value: c.value, ...(c.added && { added: true }), ...(c.removed && { removed: true }) }))
    : whole(headA, headB);
  if (long) middle.push(...whole(midA.slice(headA.length), midB.slice(headB.length)));
  const parts = [...(start ? [{ value: a.slice(0, start) }] : []), ...middle, ...(endLength ? [{ value: a.slice(a.length - endLength) }] : [])];
  return { parts, same: false, ...(long && { truncatedAt: MAX_DIFF_CHARS }), ...(!changes && { tooDifferent: true }) };
}
