/**
 * From an agent's `input_schema` to form fields, and from form values to the complete
 * `input` object the API requires: every field present, optional ones included. The rule
 * for a field left empty (also in the README):
 * - string, enum, integer, number, array, JSON fields: `""` when optional; required ones must be filled
 * - boolean: always `true` or `false`
 * - nested object: always an object, its own fields completed by the same rule
 */

import type { JsonSchema } from '../../../contract/agents';
import { EMPTY_OPTIONAL_VALUE } from '../../../contract/agent-input';
import { depthOver } from '../../../lib/depth';

/**
 * Deepest nesting of fields (objects in objects) a form is built for. An instance may declare
 * thousands of levels; building, filling and checking the form walk it recursively, and would
 * overflow the page's stack (the error page said "Maximum call stack size exceeded").
 */
export const MAX_FORM_DEPTH = 24;

/** Past this many fields (nested ones counted), a form shows the fields in view only, with a search, and checks a field at a time as it is typed. */
export const LARGE_FORM_FIELDS = 200;

/** How many fields a form has, nested ones counted. */
export function fieldCount(fields: FormField[]): number {
  let n = 0;
  for (const f of fields) n += 1 + (f.children ? fieldCount(f.children) : 0);
  return n;
}

/** Why no form is built from `schema`, when none is. Linear in the schema's size, and not recursive. */
export function formRefusal(schema: JsonSchema): string | undefined {
  // A level of fields is two levels of JSON: the object's schema and its `properties`.
  if (!depthOver(schema, 2 * MAX_FORM_DEPTH + 2)) return undefined;
  return `The agent’s input schema nests deeper than ${MAX_FORM_DEPTH} levels of fields, more than the console builds a form for. Add fields by hand, or send the run from code; the service checks the input either way.`;
}

export type FieldKind = 'string' | 'enum' | 'integer' | 'number' | 'boolean' | 'string-array' | 'object' | 'json';

export interface FormField {
  name: string;
  /** Dotted path in the form values and the input object. */
  path: string;
  label: string;
  description?: string;
  kind: FieldKind;
  required: boolean;
  enumValues?: string[];
  children?: FormField[];
  multiline?: boolean;
}

/** Form values: strings for text-like fields, booleans for checkboxes, nested objects. */
export type FormValues = { [name: string]: string | boolean | FormValues };

function kindOf(schema: JsonSchema): FieldKind {
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : schema.type;
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return 'enum';
  if (type === 'string') return 'string';
  if (type === 'integer') return 'integer';
  if (type === 'number') return 'number';
  if (type === 'boolean') return 'boolean';
  if (type === 'object' && schema.properties && typeof schema.properties === 'object') return 'object';
  if (type === 'array' && (schema.items as JsonSchema | undefined)?.type === 'string') return 'string-array';
  return 'json';
}

export function fieldsOf(schema: JsonSchema, prefix = ''): FormField[] {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(props).map(([name, prop]) => {
    const kind = kindOf(prop);
    const path = prefix ? `${prefix}.${name}` : name;
    const field: FormField = {
      name,
      path,
      label: typeof prop.title === 'string' ? prop.title : name,
      description: typeof prop.description === 'string' ? prop.description : undefined,
      kind,
      required: required.has(name),
    };
    if (kind === 'enum') field.enumValues = prop.enum as string[];
    if (kind === 'object') field.children = fieldsOf(prop, path);
    if (kind === 'string' && (prop.format === 'textarea' || (typeof prop.maxLength === 'number' && prop.maxLength > 200))) field.multiline = true;
    return field;
  });
}

/** Initial values: the schema's defaults, else empty (false for booleans). */
export function defaultValues(schema: JsonSchema): FormValues {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const out: FormValues = {};
  for (const [name, prop] of Object.entries(props)) {
    const kind = kindOf(prop);
    const d = prop.default;
    if (kind === 'object') out[name] = defaultValues(prop);
    else if (kind === 'boolean') out[name] = d === true;
    else if (kind === 'string-array') out[name] = Array.isArray(d) ? d.join('\n') : '';
    else if (kind === 'json') out[name] = d === undefined ? '' : JSON.stringify(d, null, 2);
    else out[name] = d === undefined || d === null ? '' : String(d);
  }
  return out;
}

/** Keeps saved values that still fit the schema's fields, over its defaults. */
export function mergeSaved(schema: JsonSchema, saved: unknown): FormValues {
  const base = defaultValues(schema);
  if (typeof saved !== 'object' || saved === null) return base;
  const s = saved as FormValues;
  const merge = (fields: FormField[], into: FormValues, from: FormValues) => {
    for (const f of fields) {
      const v = from[f.name];
      if (f.kind === 'object' && typeof v === 'object' && v !== null) merge(f.children ?? [], into[f.name] as FormValues, v);
      else if (f.kind === 'boolean' ? typeof v === 'boolean' : typeof v === 'string') into[f.name] = v as string | boolean;
    }
  };
  merge(fieldsOf(schema), base, s);
  return base;
}

function valueOf(field: FormField, raw: string | boolean | FormValues | undefined): unknown {
  if (field.kind === 'boolean') return raw === true;
  if (field.kind === 'object') return inputOf(field.children ?? [], (typeof raw === 'object' && raw !== null ? raw : {}) as FormValues);
  const text = typeof raw === 'string' ? raw : '';
  if (field.kind === 'string-array') {
    const items = text.split('\n').map((s) => s.trim()).filter(Boolean);
    return items.length || field.required ? items : EMPTY_OPTIONAL_VALUE;
  }
  if (text.trim() === '') return field.kind === 'string' ? text : EMPTY_OPTIONAL_VALUE;
  if (field.kind === 'integer' || field.kind === 'number') {
    const n = Number(text);
    // Left as typed when not a number, so validation names the field instead of sending NaN.
    return Number.isFinite(n) ? n : text;
  }
  if (field.kind === 'json') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** The complete input object: one entry for every field, at every level. */
export function inputOf(fields: FormField[], values: FormValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f.name] = valueOf(f, values[f.name]);
  return out;
}

/** Maps an Ajv instancePath (`/a/b`) or an API pointer (`/input/a/b`) to a form path (`a.b`). */
export function formPathOf(pointer: string, base = ''): string {
  const rest = base && pointer.startsWith(base) ? pointer.slice(base.length) : pointer;
  return rest.replace(/^\//, '').split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')).join('.');
}

/** A schema made from fields typed by hand, when the schema endpoint is unavailable. */
export interface ManualField {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean';
  required: boolean;
}

export function schemaOfManualFields(fields: ManualField[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const f of fields) if (f.name.trim()) properties[f.name.trim()] = { type: f.type };
  return { type: 'object', properties, required: fields.filter((f) => f.required && f.name.trim()).map((f) => f.name.trim()) };
}
