/**
 * A row's columns put over a form case's saved input. A pasted CSV cell is text; the field it
 * fills is typed by the agent's `input_schema` (an integer field gets a number, a boolean one
 * `true`/`false`), not by the saved value: an optional number saved empty (`"maxPoints": ""`,
 * as the input rule sends it) would send every row's `5` as the string "5", and the service
 * refuses each run. Only without the schema is a cell typed like the saved value, and the
 * result says so. A column no field has, which an assertion reads as `{{column}}`, is for the
 * assertions only and is not sent.
 */

import type { JsonSchema } from '../../contract/agents';
import { EMPTY_OPTIONAL_VALUE } from '../../contract/agent-input';

type CellType = 'integer' | 'number' | 'boolean' | 'json' | 'string';

function typeOfField(schema: JsonSchema | undefined): CellType | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  const declared = Array.isArray(schema.type) ? (schema.type as unknown[]).find((t) => t !== 'null') : schema.type;
  if (Array.isArray(schema.enum) && schema.enum.length && schema.enum.every((v) => typeof v === 'string')) return 'string';
  switch (declared) {
    case 'integer':
    case 'number':
    case 'boolean':
    case 'string':
      return declared;
    case 'object':
    case 'array':
      return 'json';
    default:
      return undefined;
  }
}

function typeOfSaved(saved: unknown): CellType | undefined {
  if (typeof saved === 'number') return 'number';
  if (typeof saved === 'boolean') return 'boolean';
  return undefined;
}

/** A CSV cell as a value of that type: left as written when it is not one, so the service names the field. */
function typed(type: CellType | undefined, cell: string): unknown {
  const text = cell.trim();
  switch (type) {
    case 'integer':
    case 'number': {
      if (text === '') return EMPTY_OPTIONAL_VALUE;
      const n = Number(text);
      return Number.isFinite(n) ? n : cell;
    }
    case 'boolean':
      if (/^(true|yes|1)$/i.test(text)) return true;
      if (/^(false|no|0)$/i.test(text)) return false;
      return cell;
    case 'json':
      if (text === '') return EMPTY_OPTIONAL_VALUE;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return cell;
      }
    default:
      return cell;
  }
}

/** A row of a case's table, cell by column (suite.ts's Row). */
type Row = Record<string, unknown>;

export interface RowInput {
  input: Record<string, unknown>;
  /** Columns not sent: no field has them, and an assertion reads them. */
  placeholderOnly: string[];
}

/**
 * The input of one row's run. `inputSchema`: the agent's, when it could be read (else cells are
 * typed like the saved values). `placeholders`: the columns the case's assertions read.
 */
export function rowInput(saved: Record<string, unknown>, row: Row, inputSchema?: JsonSchema, placeholders: ReadonlySet<string> = new Set()): RowInput {
  const properties = inputSchema && typeof inputSchema.properties === 'object' && inputSchema.properties !== null ? (inputSchema.properties as Record<string, JsonSchema>) : undefined;
  const input = { ...saved };
  const placeholderOnly: string[] = [];
  for (const [column, value] of Object.entries(row)) {
    const field = properties && Object.hasOwn(properties, column) ? properties[column] : undefined;
    const isField = Object.hasOwn(saved, column) || field !== undefined;
    if (!isField && placeholders.has(column)) {
      placeholderOnly.push(column);
      continue;
    }
    if (typeof value !== 'string') input[column] = value;
    else input[column] = typed((inputSchema && typeOfField(field)) || typeOfSaved(saved[column]), value);
  }
  return { input, placeholderOnly };
}

/** Whether a row has a cell whose type the schema decides (a CSV cell: text). */
export function hasTextCells(row: Row | undefined): boolean {
  return !!row && Object.values(row).some((v) => typeof v === 'string');
}
