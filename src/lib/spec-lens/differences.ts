/**
 * Differences between an answer and its documented schema, in words: Ajv's errors turned
 * into sentences, and the properties the schema does not describe (which Ajv cannot
 * report where the spec leaves `additionalProperties` open, as OpenAPI does by default).
 */
import type { ErrorObject } from 'ajv';
import { deref, escapePointerToken, isObject, type Json, type JsonObject, type SpecDoc } from '../../contract/openapi';
import { REFERENCE_ONLY_CODES } from '../../contract/problem';

/** Whose word a difference is measured against, as the sentences name it. */
export interface Source {
  /** Starts a sentence: "The documentation says…". */
  says: string;
  /** "… is not in the public schema". */
  schema: string;
  /** "… the documentation does not describe it". */
  describer: string;
}

export const PUBLIC_SPEC: Source = { says: 'The documentation', schema: 'the public schema', describer: 'the documentation' };
export const CLIENT_MODEL: Source = { says: 'The client’s model', schema: 'the official client’s model', describer: 'the client' };

export interface Difference {
  /** RFC 6901 pointer into the answer ('' is the whole answer). */
  pointer: string;
  /** What differs, in a sentence. */
  text: string;
  /** 'error': the answer breaks the documented schema; 'note': it goes beyond it. */
  severity: 'error' | 'note';
  /** A property the documentation does not describe (counted apart in the badge). */
  undocumented?: true;
  /** A code the reference service adds to the public list (counted apart in the badge). */
  referenceCode?: true;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

const article = (type: string) => (type === 'null' ? 'null' : type === 'array' || type === 'object' || type === 'integer' ? `an ${type}` : `a ${type}`);

function typeList(type: unknown): string {
  const list = (Array.isArray(type) ? type : [type]).map(String).map(article);
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list.at(-1)}` : list[0]!;
}

/**
 * A problem's `code` outside the documented list that the reference service sends on purpose:
 * a note that says whose code it is, not a difference of the instance from the public spec.
 */
function referenceCode(e: ErrorObject): Difference | undefined {
  const meaning = typeof e.data === 'string' && /\/code$/.test(e.instancePath) ? REFERENCE_ONLY_CODES.get(e.data) : undefined;
  if (meaning === undefined) return undefined;
  return { pointer: e.instancePath, text: `“${String(e.data)}” is the reference service’s own code, which the public spec does not list: ${meaning}.`, severity: 'note', referenceCode: true };
}

/** One Ajv error (compiled with `verbose`, so `data` holds the offending value) as a difference. */
function sentence(e: ErrorObject, source: Source): Difference {
  const at = e.instancePath;
  const p = e.params as Record<string, unknown>;
  const error = (pointer: string, text: string): Difference => ({ pointer, text, severity: 'error' });
  const says = source.says;
  const lower = says.charAt(0).toLowerCase() + says.slice(1);
  switch (e.keyword) {
    case 'required':
      return error(`${at}/${escapePointerToken(String(p.missingProperty))}`, `${says} promises “${String(p.missingProperty)}”; the answer omits it.`);
    case 'type':
      return error(at, `${says} says ${typeList(p.type)} here; the answer has ${kindOf(e.data)}${e.data === null || typeof e.data === 'object' ? '' : ` (${shown(e.data)})`}.`);
    case 'enum':
      return referenceCode(e) ?? error(at, `${says} allows only ${(p.allowedValues as unknown[]).map(shown).join(', ')}; the answer has ${shown(e.data)}.`);
    case 'const':
      return error(at, `${says} allows only ${shown(p.allowedValue)}; the answer has ${shown(e.data)}.`);
    case 'format':
      return error(at, `${says} says a ${String(p.format)}; the answer has ${shown(e.data)}, which is not one.`);
    case 'additionalProperties':
      return error(`${at}/${escapePointerToken(String(p.additionalProperty))}`, `“${String(p.additionalProperty)}” is not in ${source.schema}, which allows no other properties here.`);
    case 'anyOf':
    case 'oneOf':
      return error(at, Array.isArray(p.passingSchemas) ? `The answer fits more than one of the shapes ${lower} allows here, where it must fit exactly one.` : `The answer fits none of the shapes ${lower} allows here.`);
    default:
      return error(at, `${says} says this ${e.message ?? 'is different'}; the answer has ${shown(e.data)}.`);
  }
}

/**
 * Ajv's errors as differences. The errors inside a failed `anyOf`/`oneOf` are one per branch
 * tried, which reads as noise: only the "fits none" line is kept for them.
 */
export function describeErrors(errors: readonly ErrorObject[], source: Source = PUBLIC_SPEC): Difference[] {
  const alternatives = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => `${e.schemaPath}/`);
  // An `if` error only says "must match the else schema", whose own errors follow: it is how
  // `nullable` is compiled (openapi.ts), not something the answer did.
  const kept = errors.filter((e) => e.keyword !== 'if' && !alternatives.some((prefix) => e.schemaPath.startsWith(prefix)));
  const seen = new Set<string>();
  const out: Difference[] = [];
  for (const d of kept.map((e) => sentence(e, source))) {
    const key = `${d.pointer}\n${d.text}`;
    if (!seen.has(key)) out.push(d);
    seen.add(key);
  }
  return out;
}

interface ObjectShape {
  /** Property name → the schemas that describe it (several when allOf/anyOf/oneOf each do). */
  properties: Map<string, Json[]>;
  required: Set<string>;
  patterns: RegExp[];
  /** Any other property is documented: `additionalProperties` is a schema or `true`, or the
   * schema says nothing about the object's members at all. */
  open: boolean;
  /** `additionalProperties: false` somewhere: Ajv reports extras as errors already. */
  closed: boolean;
  items: Json[];
}

function shapeOf(doc: SpecDoc, schema: Json, shape: ObjectShape, seen: Set<JsonObject>): void {
  const node = deref(doc, schema);
  if (!node || seen.has(node)) return;
  seen.add(node);
  if (isObject(node.properties)) {
    for (const [name, sub] of Object.entries(node.properties)) shape.properties.set(name, [...(shape.properties.get(name) ?? []), sub]);
  }
  // A name the schema requires is documented, even where the vendor forgot to describe it
  // under `properties` (client_rest.json's ServerToolBase requires `toolType` that way).
  if (Array.isArray(node.required)) {
    for (const name of node.required) if (typeof name === 'string') shape.required.add(name);
  }
  if (isObject(node.patternProperties)) {
    for (const pattern of Object.keys(node.patternProperties)) {
      try {
        shape.patterns.push(new RegExp(pattern, 'u'));
      } catch {
        shape.open = true;
      }
    }
  }
  if (node.additionalProperties === false) shape.closed = true;
  else if (node.additionalProperties !== undefined) shape.open = true;
  if (node.items !== undefined && !Array.isArray(node.items)) shape.items.push(node.items);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = node[key];
    if (Array.isArray(list)) for (const sub of list) shapeOf(doc, sub, shape, seen);
  }
}

/** The shape of each schema node, worked out once per check: an array of 100,000 items has one item schema. */
type Shapes = Map<Json, ObjectShape>;

function cachedShape(doc: SpecDoc, schema: Json, shapes: Shapes): ObjectShape {
  let shape = shapes.get(schema);
  if (!shape) {
    shape = { properties: new Map(), required: new Set(), patterns: [], open: false, closed: false, items: [] };
    shapeOf(doc, schema, shape, new Set());
    shapes.set(schema, shape);
  }
  return shape;
}

/** Most notes one answer gets: an answer of 100,000 items with an undocumented field each would list them all. */
export const MAX_NOTES = 200;

/**
 * The properties of `value` its schema does not describe, as notes, walking the answer
 * (never the schema, so recursive schemas end) with a stack of its own, not recursion: an
 * instance's answer may nest thousands of levels. A property described by any branch of an
 * allOf/anyOf/oneOf counts as documented: the lens flags what no documentation mentions,
 * and leaves "which branch" to Ajv. At most MAX_NOTES, then one that says how many more.
 */
export function undocumented(doc: SpecDoc, schema: Json, value: unknown, pointer = '', source: Source = PUBLIC_SPEC): Difference[] {
  const notes: Difference[] = [];
  let more = 0;
  const shapes: Shapes = new Map();
  // Work in document order: a member's own notes, then what is under it, then the next member.
  const stack: ([Json, unknown, string] | { note: string; at: string })[] = [[schema, value, pointer]];
  const note = (at: string, name: string) => {
    if (notes.length < MAX_NOTES) notes.push({ pointer: at, text: `“${name}” is not in ${source.schema}: ${source.describer} does not describe it.`, severity: 'note', undocumented: true });
    else more++;
  };
  while (stack.length) {
    const top = stack.pop()!;
    if (!Array.isArray(top)) {
      note(top.at, top.note);
      continue;
    }
    const [sch, val, at] = top;
    if (typeof val !== 'object' || val === null) continue;
    const shape = cachedShape(doc, sch, shapes);
    if (Array.isArray(val)) {
      const item = shape.items[0];
      if (item === undefined) continue;
      for (let i = val.length - 1; i >= 0; i--) stack.push([item, val[i], `${at}/${i}`]);
      continue;
    }
    // A schema that names no members (e.g. a free-form `value`) documents any object.
    const describesMembers = shape.properties.size > 0 || shape.required.size > 0 || shape.patterns.length > 0;
    const children: ([Json, unknown, string] | { note: string; at: string })[] = [];
    for (const [name, member] of Object.entries(val as Record<string, unknown>)) {
      const here = `${at}/${escapePointerToken(name)}`;
      const subs = shape.properties.get(name);
      if (subs) children.push([subs[0]!, member, here]);
      else if (describesMembers && !shape.required.has(name) && !shape.open && !shape.closed && !shape.patterns.some((re) => re.test(name))) children.push({ note: name, at: here });
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  if (more) notes.push({ pointer, text: `… and ${more.toLocaleString('en-US')} more properties ${source.describer} does not describe (the first ${MAX_NOTES} are listed).`, severity: 'note', undocumented: true });
  return notes;
}
