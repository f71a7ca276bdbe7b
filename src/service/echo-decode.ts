/**
 * Text decoded once as a server's encoders would have written it (recording redaction,
 * redact.ts): `%XX` sequences of UTF-8 (hex in either case) and JSON escapes (`\/ \" \\ \n …`,
 * `\uXXXX` in either case), each where it stands, and where in the text each decoded
 * character came from. Fast over a body of many megabytes: one pass into a typed array, and
 * positions found again from sparse checkpoints only where a match is.
 */
import { endianness } from 'node:os';

const PERCENT = 0x25;
const BACKSLASH = 0x5c;
/** What decoding can change: a `%` or a backslash. */
export const hasEscapes = (text: string) => /[%\\]/.test(text);

/** A `+` stands for a space in a form or a query: `+` and space are one when text is compared. */
export const folded = (text: string) => (text.includes('+') ? text.replaceAll('+', ' ') : text);

/** Each ASCII character's value as a hex digit, -1 for none. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let d = 0; d < 16; d++) {
  HEX_VALUE[d.toString(16).charCodeAt(0)] = d;
  HEX_VALUE[d.toString(16).toUpperCase().charCodeAt(0)] = d;
}
const hexAt = (text: string, i: number) => {
  const c = text.charCodeAt(i);
  return c < 128 ? HEX_VALUE[c]! : -1;
};

/** JSON's short escapes: for the letter after the backslash, the character it stands for (-1: none). */
const JSON_SHORT = new Int32Array(128).fill(-1);
for (const [letter, ch] of [['"', '"'], ['\\', '\\'], ['/', '/'], ['b', '\b'], ['f', '\f'], ['n', '\n'], ['r', '\r'], ['t', '\t']] as const) {
  JSON_SHORT[letter.charCodeAt(0)] = ch.charCodeAt(0);
}

/** The byte of `%XX` at `i`, or -1. */
function percentByte(text: string, i: number): number {
  if (text.charCodeAt(i) !== PERCENT) return -1;
  const hi = hexAt(text, i + 1);
  const lo = hexAt(text, i + 2);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

/** The code point a UTF-8 sequence of `%XX` at `i` stands for, or -1 when there is none (a lone or overlong byte, a surrogate). */
function percentCodePoint(text: string, i: number): number {
  const lead = percentByte(text, i);
  if (lead < 0x80) return lead;
  const length = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (!length) return -1;
  let cp = lead & (0x7f >> length);
  for (let k = 1; k < length; k++) {
    const b = percentByte(text, i + 3 * k);
    if (b < 0x80 || b > 0xbf) return -1;
    cp = (cp << 6) | (b & 0x3f);
  }
  const least = [0, 0, 0x80, 0x800, 0x10000][length]!;
  return cp < least || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? -1 : cp;
}

/** What `step` last wrote: its units, in `STEP` (two at most). */
const STEP = new Uint16Array(2);
let stepUnits = 0;

/**
 * Decodes the item of `text` at `i` once (a `%XX` sequence, a JSON escape, or one character
 * as it is) into STEP and stepUnits; answers where the item ends.
 */
function step(text: string, i: number): number {
  const c = text.charCodeAt(i);
  stepUnits = 1;
  STEP[0] = c;
  if (c === PERCENT) {
    const cp = percentCodePoint(text, i);
    if (cp >= 0) {
      const bytes = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (cp > 0xffff) {
        STEP[0] = 0xd800 + ((cp - 0x10000) >> 10);
        STEP[1] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
        stepUnits = 2;
      } else STEP[0] = cp;
      return i + 3 * bytes;
    }
  } else if (c === BACKSLASH) {
    const next = text.charCodeAt(i + 1);
    const short = next < 128 ? JSON_SHORT[next]! : -1;
    if (short >= 0) {
      STEP[0] = short;
      return i + 2;
    }
    if (next === 0x75) {
      let unit = 0;
      for (let k = 2; k < 6 && unit >= 0; k++) {
        const d = hexAt(text, i + k);
        unit = d < 0 ? -1 : (unit << 4) | d;
      }
      if (unit >= 0) {
        STEP[0] = unit;
        return i + 6;
      }
    }
  }
  return i + 1;
}

/** UTF-16 in this machine's byte order, as a Uint16Array holds it. */
const UTF16 = new TextDecoder(endianness() === 'LE' ? 'utf-16le' : 'utf-16be');

/** Decoded characters between two checkpoints: where a match is, it is found again from the nearest one. */
const CHECKPOINT_EVERY = 4096;

/** `source` decoded once, and where a decoded range came from. */
export class Decoded {
  readonly text: string;
  /** At each checkpoint, the decoded index and the source index of the same place. */
  private readonly decodedAt: number[] = [0];
  private readonly sourceAt: number[] = [0];

  constructor(readonly source: string) {
    // Decoding never lengthens: an escape stands for fewer units than it has characters.
    const out = new Uint16Array(source.length);
    let o = 0;
    let checkpoint = 0;
    for (let i = 0; i < source.length; ) {
      const c = source.charCodeAt(i);
      if (c !== PERCENT && c !== BACKSLASH) {
        out[o++] = c;
        i++;
        continue;
      }
      i = step(source, i);
      out[o++] = STEP[0]!;
      if (stepUnits === 2) out[o++] = STEP[1]!;
      if (o - checkpoint >= CHECKPOINT_EVERY) {
        checkpoint = o;
        this.decodedAt.push(o);
        this.sourceAt.push(i);
      }
    }
    // Units to a string at the decoder's speed (String.fromCharCode over 20 MB took seconds); a
    // lone surrogate becomes U+FFFD, one unit for one, so every index stays where it was.
    this.text = UTF16.decode(out.subarray(0, o));
  }

  /** Where in the source the decoded unit `target` starts, or (`end`) where the item holding it ends. */
  private locate(target: number, end: boolean): number {
    let lo = 0;
    let hi = this.decodedAt.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.decodedAt[mid]! <= target) lo = mid;
      else hi = mid - 1;
    }
    let d = this.decodedAt[lo]!;
    for (let i = this.sourceAt[lo]!; ; ) {
      const next = step(this.source, i);
      if (target < d + stepUnits) return end ? next : i;
      d += stepUnits;
      i = next;
    }
  }

  /** The source range a decoded range [start, end) came from. */
  sourceRange(start: number, end: number): [number, number] {
    return [this.locate(start, false), this.locate(end - 1, true)];
  }
}

/** `text` decoded once. */
export const decodedOnce = (text: string) => new Decoded(text).text;
