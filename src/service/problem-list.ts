/**
 * Error answers stay small whatever a request holds. A 1 MB body can carry 80,000 unknown
 * keys or 50,000 bad items: listing each made a 6.6 MB or 33 MB answer out of one request.
 * So an answer lists the first MAX_LISTED_PROBLEMS problems, each with a JSON pointer, and
 * counts the rest; any text of the client's that an answer quotes (a key, an id, a name) is
 * cut to MAX_QUOTED_CHARS. Collecting costs one pass over the request and no more memory
 * than the listed problems.
 */

export const MAX_LISTED_PROBLEMS = 100;

/** Characters of a client's text an error answer quotes; the rest is replaced by its length. */
export const MAX_QUOTED_CHARS = 200;

const grouped = (n: number) => n.toLocaleString('en-US');

/** `text`, or its first MAX_QUOTED_CHARS characters and how long it was. */
export function clip(text: string, max = MAX_QUOTED_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}…(${grouped(text.length)} characters)`;
}

/** One reference token of a JSON pointer (RFC 6901) naming `key`, clipped like any quoted text. */
export function pointerToken(key: string | number): string {
  return typeof key === 'number' ? String(key) : clip(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** One problem with a request: where (a JSON pointer from the body's root) and what. */
export interface FieldProblem {
  pointer: string;
  detail: string;
  code?: string;
}

/** The problems of one request: the first MAX_LISTED_PROBLEMS kept, the rest counted. */
export class ProblemList<P extends FieldProblem = FieldProblem> {
  readonly listed: P[] = [];
  /** Set when a part of the request was not checked in full: why, as a sentence. */
  incomplete?: string;
  private count = 0;
  private readonly codes = new Set<string>();

  add(problem: P): void {
    if (this.full) return this.countOnly(problem.code);
    this.count++;
    if (problem.code !== undefined) this.codes.add(problem.code);
    this.listed.push(problem);
  }

  /** True once as many problems are listed as an answer shows: the next ones need no pointer or sentence. */
  get full(): boolean {
    return this.listed.length >= MAX_LISTED_PROBLEMS;
  }

  /** Counts a problem past the listed ones, without building it. */
  countOnly(code?: string): void {
    this.count++;
    if (code !== undefined && !this.codes.has(code)) this.codes.add(code);
  }

  /** Every problem found, listed or not. */
  get total(): number {
    return this.count;
  }

  /** Problems found but not listed. */
  get omitted(): number {
    return this.count - this.listed.length;
  }

  get empty(): boolean {
    return this.count === 0;
  }

  /** True when some problem, listed or not, has `code`. */
  hasCode(code: string): boolean {
    return this.codes.has(code);
  }
}

/** "N more problems are not listed", or '' when none were left out. */
export function omittedText(omitted: number, what = 'problems'): string {
  return omitted > 0 ? `${grouped(omitted)} more ${what} not listed.` : '';
}

/**
 * `items`, each clipped, joined by ", " up to MAX_LISTED_PROBLEMS of them, then "and N more";
 * `quote` puts each in double quotes.
 */
export function listText(items: readonly string[], quote = false): string {
  const shown = items.slice(0, MAX_LISTED_PROBLEMS).map((i) => (quote ? `"${clip(i)}"` : clip(i)));
  const rest = items.length - shown.length;
  return rest > 0 ? `${shown.join(', ')} and ${grouped(rest)} more` : shown.join(', ');
}
