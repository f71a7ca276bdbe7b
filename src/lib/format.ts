/** Numbers for the reader's locale: counts with grouping, bytes in B, kB or MB. */

const count = new Intl.NumberFormat();

export function formatCount(n: number): string {
  return count.format(n);
}

const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;
// Whole bytes are written as "B" (below); the larger units by the locale.
const byUnit = new Map(units.slice(1).map((u) => [u, new Intl.NumberFormat(undefined, { style: 'unit', unit: u, unitDisplay: 'short', maximumFractionDigits: 1 })]));

/** Decimal units (1 kB = 1,000 B), as network tools count. */
export function formatBytes(n: number): string {
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  // Whole bytes as "B", as network tools write them (the short unit name reads "354 byte" in English).
  if (i === 0) return `${count.format(Math.round(v))} B`;
  return byUnit.get(units[i]!)!.format(v);
}

const utf8 = new TextEncoder();

const PRINTABLE_ASCII = /^[ -~\t\n\r]*$/;
/** The last long text counted: a run's figures are read on every render, and an answer may be megabytes. */
let last: { text: string; bytes: number } | undefined;

/** Bytes of a text on the wire (UTF-8), as the answers' sizes are counted. */
export function utf8Bytes(text: string): number {
  if (text.length < 4096) return utf8.encode(text).length;
  if (last?.text === text) return last.bytes;
  const bytes = PRINTABLE_ASCII.test(text) ? text.length : utf8.encode(text).length;
  last = { text, bytes };
  return bytes;
}
