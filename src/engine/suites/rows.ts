/**
 * A case's table of inputs, pasted as CSV (a header line, then a row per line) or as JSON (an
 * array of objects). Each row is one run of the case. Parsed with papaparse; whatever is
 * pasted gets rows or a message that says where it went wrong, never an exception.
 */

import Papa from 'papaparse';
import type { Row } from './suite';

export type ParsedRows = { ok: true; rows: Row[]; columns: string[] } | { ok: false; error: string };

/** A table larger than this is not one to paste: it would be as many runs. */
export const MAX_ROWS = 5_000;

function columnsOf(rows: readonly Row[]): string[] {
  const seen = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r)) seen.add(k);
  return [...seen];
}

/** A column by this name would set a row's prototype instead of a field (papaparse assigns cells by name). */
const FORBIDDEN_COLUMN = '__proto__';
const forbidden = (columns: readonly string[]): ParsedRows | undefined =>
  columns.includes(FORBIDDEN_COLUMN) ? { ok: false, error: `A column cannot be named “${FORBIDDEN_COLUMN}”: no input field or placeholder has that name.` } : undefined;

function parseJsonRows(text: string): ParsedRows {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `The rows look like JSON but are not valid JSON (${err instanceof Error ? err.message : String(err)}).` };
  }
  const list = Array.isArray(value) ? value : [value];
  if (!list.length) return { ok: false, error: 'The JSON array has no rows.' };
  const bad = list.findIndex((r) => typeof r !== 'object' || r === null || Array.isArray(r));
  if (bad !== -1) return { ok: false, error: `Row ${bad + 1} is not an object of columns (${JSON.stringify(list[bad])?.slice(0, 60)}): JSON rows are objects, e.g. [{"topic": "Leave"}].` };
  if (list.length > MAX_ROWS) return { ok: false, error: `${list.length.toLocaleString()} rows; a case takes at most ${MAX_ROWS.toLocaleString()}.` };
  const rows = list as Row[];
  const empty = rows.findIndex((r) => Object.keys(r).length === 0);
  if (empty !== -1) return { ok: false, error: `Row ${empty + 1} has no columns.` };
  const columns = columnsOf(rows);
  return forbidden(columns) ?? { ok: true, rows, columns };
}

const DELIMITERS = [',', '\t', ';', '|'] as const;

/**
 * The delimiter the header line uses: the one it holds most of, outside quotes, else a comma
 * (a table of one column). Taken from the header alone: papaparse's guess reads the rows too,
 * and a one-column table whose values hold `|` was read as four columns of `|`.
 */
function delimiterOf(text: string): string {
  const counts = new Map<string, number>();
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && (DELIMITERS as readonly string[]).includes(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  }
  let best = ',';
  let most = 0;
  for (const d of DELIMITERS) {
    const n = counts.get(d) ?? 0;
    if (n > most) [best, most] = [d, n];
  }
  return best;
}

function parseCsvRows(text: string): ParsedRows {
  const delimiter = delimiterOf(text);
  const header = Papa.parse<string[]>(text, { preview: 1, delimiter }).data[0] ?? [];
  const refused = forbidden(header.map((c) => c.trim()));
  if (refused) return refused;
  const result = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: 'greedy', delimiter });
  const columns = result.meta.fields ?? [];
  if (!columns.length || columns.every((c) => c.trim() === '')) return { ok: false, error: 'The first line must name the columns (CSV), or paste a JSON array of objects.' };
  const blank = columns.findIndex((c) => c.trim() === '');
  if (blank !== -1) return { ok: false, error: `Column ${blank + 1} of the header line has no name.` };
  // papaparse renames a repeated column ("a_1"); a table whose header repeats a name is a mistake to say.
  const renamed = result.meta.renamedHeaders && Object.keys(result.meta.renamedHeaders);
  if (renamed?.length) return { ok: false, error: `The header line names column “${result.meta.renamedHeaders![renamed[0]!]}” twice.` };
  const problem = result.errors[0];
  if (problem) {
    const at = typeof problem.index === 'number' ? problem.index : undefined;
    const line = at !== undefined ? text.slice(0, at).split('\n').length : problem.row !== undefined ? problem.row + 2 : undefined;
    return { ok: false, error: `CSV: ${line !== undefined ? `line ${line}` : 'the text'}: ${problem.message.replace(/\.$/, '')}.` };
  }
  if (!result.data.length) return { ok: false, error: 'There is a header line but no row under it.' };
  if (result.data.length > MAX_ROWS) return { ok: false, error: `${result.data.length.toLocaleString()} rows; a case takes at most ${MAX_ROWS.toLocaleString()}.` };
  return { ok: true, rows: result.data, columns };
}

/** Rows from pasted text: JSON when it starts with `[` or `{`, else CSV with a header line. */
export function parseRows(text: string): ParsedRows {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (!trimmed) return { ok: false, error: 'Nothing to read: paste CSV with a header line, or a JSON array of objects.' };
  return trimmed.startsWith('[') || trimmed.startsWith('{') ? parseJsonRows(trimmed) : parseCsvRows(trimmed);
}

/**
 * The rows as text to edit again, which reads back as the same rows: CSV when CSV holds them
 * (every row has every column, as a string, and not all blank), else JSON, one row a line. A
 * CSV of rows read from JSON lost a row whose values were all empty (a blank line is skipped),
 * gave a missing column "" (sent over the saved input's value) and made numbers strings.
 */
export function rowsAsText(rows: readonly Row[]): string {
  const columns = columnsOf(rows);
  const csvHolds = rows.every((r) => columns.every((c) => typeof r[c] === 'string') && columns.some((c) => (r[c] as string).trim() !== ''));
  if (!csvHolds) return `[\n${rows.map((r) => `  ${JSON.stringify(r)}`).join(',\n')}\n]`;
  // Every field quoted: a name or value holding `;`, `|` or a tab reads back as one field.
  return Papa.unparse({ fields: columns, data: rows.map((r) => columns.map((c) => r[c] as string)) }, { quotes: true });
}
