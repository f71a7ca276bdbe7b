/**
 * JSON Schema validation for schemas that arrive while the page runs (an agent's
 * `input_schema`), without evaluating code: @cfworker/json-schema walks the schema, where Ajv
 * would compile it into a function with `new Function`, which the page's policy (no
 * 'unsafe-eval') forbids. The reference service keeps Ajv; so that the form says what the
 * service says, the walker's findings are restated as Ajv's errors (draft-07, allErrors):
 * the same keywords, instance paths, messages and params, in the order Ajv reports them, and
 * the same refusals of a schema Ajv would not compile.
 *
 * Nothing is cached here: a check holds its own copy of the schema, and is gone with it.
 */
import { dereference, format as walkerFormats, validate as walk, type OutputUnit, type Schema } from '@cfworker/json-schema';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json';
import type { SchemaError } from '../contract/agent-input';
import { depthOver } from './depth';
import { linearPattern } from './linear-pattern';

/** A part of the schema this page does not check, and why (the service still does). */
export interface Unchecked {
  /** JSON pointer to the keyword in the schema, e.g. `/properties/code/pattern`. */
  schemaPath: string;
  keyword: 'pattern' | 'patternProperties';
  pattern: string;
  why: string;
}

/** The errors of one value ([] when it fits), as Ajv would report them; `unchecked`, what it leaves to the service. */
export type SchemaCheck = ((value: unknown) => SchemaError[]) & { readonly unchecked: readonly Unchecked[] };

/** Deeper than this, a schema or a value is refused rather than walked (the walk recurses). */
export const MAX_SCHEMA_DEPTH = 128;

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

// --- the schema's own copy --------------------------------------------------------------

/** Keywords whose value is one schema (or, for items, a list of them). */
const ONE_SCHEMA = new Set(['items', 'additionalItems', 'additionalProperties', 'contains', 'propertyNames', 'not', 'if', 'then', 'else']);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf']);
/** Keywords whose value maps names (data, not keywords) to schemas. */
const SCHEMA_MAP = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies']);
/**
 * Keywords of later drafts the walker would apply but Ajv's draft-07 ignores; `format`, which
 * Ajv without ajv-formats ignores too (the page never loaded formats, nor does the service).
 */
const IGNORED = new Set(['format', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'prefixItems', 'minContains', 'maxContains', '$recursiveRef', '$recursiveAnchor']);

interface Copy {
  schema: unknown;
  /** Schema objects that had a `format`: for Ajv it still puts the node's string checks in a group (see typeRank). */
  hadFormat: WeakSet<object>;
  /** The `pattern` of each schema object that had one: the copy carries it as a format (see patternFormat). */
  patterns: WeakMap<object, string>;
  unchecked: Unchecked[];
}

/**
 * The walker would run each `pattern` with the browser's backtracking engine, where a hostile
 * one (`^(a+)+$`) freezes the page. It runs a schema's `format` through a table of functions
 * it exports, so each pattern goes in as a format of its own, matched by lib/linear-pattern,
 * and its findings are read back as the pattern's (see asPatternUnit). One entry per pattern
 * text (Ajv strips real formats, so nothing else is looked up there).
 */
const PATTERN_FORMAT = '\u0000linear-pattern:';
function patternFormat(source: string, test: (text: string) => boolean): string {
  const name = PATTERN_FORMAT + source;
  (walkerFormats as Record<string, (text: string) => boolean>)[name] ??= test;
  return name;
}

const PATTERN_PROPERTIES_WHY = 'the page does not match the property names of a value against patterns';

const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * A deep copy the walker may annotate (it marks the schema objects it is given), without the
 * keywords Ajv ignores, with every pattern checked as Ajv checks it when compiling, and every
 * pattern matched in linear time or, where that cannot be, left out and noted in `unchecked`.
 */
function copySchema(schema: unknown): Copy {
  const hadFormat = new WeakSet<object>();
  const patterns = new WeakMap<object, string>();
  const unchecked: Unchecked[] = [];
  const copy = (node: unknown, at: string): unknown => {
    if (Array.isArray(node)) return node.map((item, i) => copy(item, `${at}/${i}`));
    if (!isNode(node)) return node;
    const out: Node = {};
    for (const [key, value] of Object.entries(node)) {
      if (IGNORED.has(key)) continue;
      const here = `${at}/${escapeToken(key)}`;
      if (ONE_SCHEMA.has(key) || SCHEMA_LIST.has(key)) out[key] = copy(value, here);
      else if (SCHEMA_MAP.has(key) && isNode(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copy(v, `${here}/${escapeToken(k)}`)]));
      else out[key] = structuredClone(value);
    }
    if ('format' in node) hadFormat.add(out);
    // Ajv compiles each pattern with `new RegExp(p, "u")` and refuses the schema when one throws
    // (compiling is linear: only matching backtracks).
    if (typeof out.pattern === 'string') {
      const source = out.pattern;
      new RegExp(source, 'u');
      delete out.pattern;
      patterns.set(out, source);
      const linear = linearPattern(source);
      if (linear.ok) out.format = patternFormat(source, linear.test);
      else unchecked.push({ schemaPath: `${at}/pattern`, keyword: 'pattern', pattern: source, why: linear.why });
    }
    if (isNode(out.patternProperties)) {
      for (const p of Object.keys(out.patternProperties)) {
        new RegExp(p, 'u');
        // The walker matches these against every property name with the backtracking engine, and
        // has no hook for them: they are not checked here, nor `additionalProperties` beside them,
        // whose meaning depends on which names they match.
        unchecked.push({ schemaPath: `${at}/patternProperties`, keyword: 'patternProperties', pattern: p, why: PATTERN_PROPERTIES_WHY });
      }
      delete out.patternProperties;
      delete out.additionalProperties;
    }
    return out;
  };
  return { schema: copy(schema, ''), hadFormat, patterns, unchecked };
}

/**
 * What a check of `schema` would leave unchecked (SchemaCheck.unchecked), found without
 * compiling it: a walk of the schema in time linear in its size.
 */
export function uncheckedOf(schema: unknown): Unchecked[] {
  const out: Unchecked[] = [];
  const stack: [unknown, string][] = [[schema, '']];
  while (stack.length) {
    const [node, at] = stack.pop()!;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], `${at}/${i}`]);
      continue;
    }
    if (!isNode(node)) continue;
    if (typeof node.pattern === 'string') {
      const linear = linearPattern(node.pattern);
      if (!linear.ok) out.push({ schemaPath: `${at}/pattern`, keyword: 'pattern', pattern: node.pattern, why: linear.why });
    }
    if (isNode(node.patternProperties)) {
      for (const p of Object.keys(node.patternProperties)) out.push({ schemaPath: `${at}/patternProperties`, keyword: 'patternProperties', pattern: p, why: PATTERN_PROPERTIES_WHY });
    }
    const children: [unknown, string][] = [];
    for (const [key, value] of Object.entries(node)) {
      if (IGNORED.has(key)) continue;
      const here = `${at}/${escapeToken(key)}`;
      if (ONE_SCHEMA.has(key) || SCHEMA_LIST.has(key)) children.push([value, here]);
      else if (SCHEMA_MAP.has(key) && isNode(value)) for (const [k, v] of Object.entries(value)) children.push([v, `${here}/${escapeToken(k)}`]);
    }
    // A loop, not a spread: a spread of a node's children throws past about 100,000 of them.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return out;
}

/** A finding of a pattern carried as a format (copySchema), as the walker would have reported the pattern. */
function asPatternUnit(u: OutputUnit): OutputUnit {
  if (u.keyword !== 'format') return u;
  return { ...u, keyword: 'pattern', keywordLocation: u.keywordLocation.replace(/\/format$/, '/pattern'), error: 'String does not match pattern.' };
}

// --- Ajv's refusals of a schema ---------------------------------------------------------

const DRAFT_07 = 'http://json-schema.org/draft-07/schema';
/** The walker's index of a schema's subschemas by URI (it marks the schema's objects as it goes). */
type Lookup = ReturnType<typeof dereference>;

/** The whole of a value against a schema, every error (allErrors), $ref beside other keywords as Ajv reads draft-07. */
const walkAll = (value: unknown, schema: unknown, lookup: Lookup, instanceLocation = '#', keywordLocation = '#') =>
  walk(value, schema as Schema, '2019-09', lookup, false, null, instanceLocation, keywordLocation);

/**
 * The walker checks `uniqueItems` by comparing every item with every other: a 50,000-value
 * `enum` took 40 s to accept. The meta-schema's uniqueness rules (`enum`, `required`, `type`,
 * `dependencies` lists) are checked by duplicateItems instead, in linear time.
 */
const withoutUniqueItems = (node: unknown): unknown =>
  Array.isArray(node) ? node.map(withoutUniqueItems) : isNode(node) ? Object.fromEntries(Object.entries(node).filter(([k]) => k !== 'uniqueItems').map(([k, v]) => [k, withoutUniqueItems(v)])) : node;
const META = copySchema(withoutUniqueItems(draft07));
const META_LOOKUP = dereference(META.schema as Schema);

/** A key equal for equal JSON values (objects by their members, in any order). */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isNode(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

/** The pair of equal items Ajv names (the last item equal to an earlier one, and the nearest such earlier one), found in linear time. */
function equalPair(list: unknown[]): { i: number; j: number } | undefined {
  const last = new Map<string, number>();
  let pair: { i: number; j: number } | undefined;
  list.forEach((item, i) => {
    const key = canonical(item);
    const j = last.get(key);
    if (j !== undefined) pair = { i, j };
    last.set(key, i);
  });
  return pair;
}

/** Ajv's errors for the meta-schema's lists that must hold distinct items, anywhere in `schema`. */
function duplicateItems(schema: unknown): string[] {
  const out: string[] = [];
  const stack: [unknown, string][] = [[schema, '']];
  while (stack.length) {
    const [node, at] = stack.pop()!;
    if (!isNode(node)) continue;
    const lists: [string, unknown][] = [
      ['enum', node.enum],
      ['required', node.required],
      ['type', node.type],
      ...(isNode(node.dependencies) ? Object.entries(node.dependencies).map(([k, v]): [string, unknown] => [`dependencies/${escapeToken(k)}`, v]) : []),
    ];
    for (const [where, list] of lists) {
      const pair = Array.isArray(list) ? equalPair(list) : undefined;
      if (pair) out.push(`data${at}/${where} must NOT have duplicate items (items ## ${pair.j} and ${pair.i} are identical)`);
    }
    for (const [key, value] of Object.entries(node)) {
      const here = `${at}/${escapeToken(key)}`;
      if (ONE_SCHEMA.has(key) || SCHEMA_LIST.has(key)) {
        if (Array.isArray(value)) value.forEach((v, i) => stack.push([v, `${here}/${i}`]));
        else stack.push([value, here]);
      } else if (SCHEMA_MAP.has(key) && isNode(value)) for (const [k, v] of Object.entries(value)) stack.push([v, `${here}/${escapeToken(k)}`]);
    }
  }
  return out;
}

/** Throws what Ajv throws when asked to compile a schema it does not accept. */
function assertValidSchema(schema: unknown): void {
  if (!isNode(schema)) return;
  const $schema = schema.$schema;
  if ($schema !== undefined && typeof $schema !== 'string') throw new Error('$schema must be a string');
  if (typeof $schema === 'string' && $schema.replace(/#$/, '') !== DRAFT_07) throw new Error(`no schema with key or ref "${$schema}"`);
  const errors = restate(walkAll(schema, META.schema, META_LOOKUP).errors, META, schema).map((e) => `data${e.instancePath} ${e.message}`);
  for (const e of duplicateItems(schema)) errors.push(e);
  if (errors.length) throw new Error(`schema is invalid: ${errors.join(', ')}`);
}

/**
 * A check of values against `schema`, or an Error with Ajv's words when Ajv would not compile
 * it (invalid against draft-07, an unknown `$schema`, a pattern that is not a regular
 * expression), or when it nests deeper than MAX_SCHEMA_DEPTH.
 */
export function compileSchemaCheck(schema: unknown): SchemaCheck {
  if (depthOver(schema, MAX_SCHEMA_DEPTH)) throw new Error(`the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
  assertValidSchema(schema);
  const copy = copySchema(schema);
  const lookup = dereference(copy.schema as Schema);
  const check = (value: unknown) => {
    if (depthOver(value, MAX_SCHEMA_DEPTH)) throw new Error(`the value nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
    let units: OutputUnit[];
    try {
      units = walkAll(value, copy.schema, lookup).errors.map(asPatternUnit);
    } catch (err) {
      const ref = err instanceof Error ? /^Unresolved \$ref "([^"]*)"/.exec(err.message) : null;
      throw ref ? new Error(`can't resolve reference ${ref[1]} from id #`) : err;
    }
    const passing: Passing = new WeakMap();
    return restate(asAjvWould(units, copy, lookup, value, passing), copy, value, passing);
  };
  return Object.assign(check, { unchecked: copy.unchecked });
}

/** Ajv's `passingSchemas` for a failed `oneOf`, by the unit the walker reported it with. */
type Passing = WeakMap<OutputUnit, unknown>;

/**
 * Where the walker and Ajv part ways, the walker's output is brought to Ajv's:
 * - when no item fits `contains`, Ajv reports why each item does not, then the `contains`
 *   error; the walker keeps only the latter, so the items are walked again for the former;
 * - a `oneOf` with two passing branches names them (Ajv's `passingSchemas`), and Ajv tries
 *   no branch after the second.
 */
function asAjvWould(units: OutputUnit[], copy: Copy, lookup: Lookup, value: unknown, passing: Passing): OutputUnit[] {
  if (!units.some((u) => u.keyword === 'contains' || u.keyword === 'oneOf')) return units;
  const out: OutputUnit[] = [];
  // The errors of oneOf branches Ajv never tried: they follow the oneOf's own, under its location.
  let skipping: { under: string; branches: string[] } | undefined;
  for (const u of units) {
    if (skipping && u.keywordLocation.startsWith(skipping.under)) {
      if (skipping.branches.some((prefix) => u.keywordLocation.startsWith(prefix))) continue;
    } else skipping = undefined;
    const data = valueAt(value, pointerTokens(u.instanceLocation));
    const node = u.keyword === 'contains' || u.keyword === 'oneOf' ? locate(u, 0, copy).node : undefined;
    const sub = (item: unknown, schema: unknown, instanceLocation: string, keywordLocation: string) => {
      const r = walkAll(item, schema, lookup, instanceLocation, keywordLocation);
      return { valid: r.valid, errors: r.errors.map(asPatternUnit) };
    };
    if (u.keyword === 'contains' && node?.contains !== undefined && Array.isArray(data)) {
      // Loops, not a spread: an array of 200,000 items threw RangeError (stack size) here.
      data.forEach((item, j) => {
        for (const e of sub(item, node.contains, `${u.instanceLocation}/${j}`, u.keywordLocation).errors) out.push(e);
      });
      out.push(u);
      continue;
    }
    if (u.keyword === 'oneOf' && Array.isArray(node?.oneOf)) {
      // Ajv stops at the second branch that passes: the branches after it are not tried, so their errors are not reported.
      let first: number | undefined;
      const branches = node.oneOf;
      for (let i = 0; i < branches.length; i++) {
        if (!sub(data, branches[i], u.instanceLocation, `${u.keywordLocation}/${i}`).valid) continue;
        if (first === undefined) first = i;
        else {
          passing.set(u, [first, i]);
          skipping = { under: `${u.keywordLocation}/`, branches: branches.slice(i + 1).map((_, k) => `${u.keywordLocation}/${i + 1 + k}/`) };
          break;
        }
      }
    }
    out.push(u);
  }
  return out;
}

// --- the walker's output as Ajv's errors -------------------------------------------------

/**
 * Ajv's draft-07 keyword order: the keywords that apply to any value, then those of numbers,
 * strings, arrays and objects, each in the order of Ajv's vocabularies (ajv/lib/compile/rules.ts
 * and lib/vocabularies). `then`/`else` are reported under `if`.
 */
const GROUPS: Record<string, string[]> = {
  any: ['$ref', 'const', 'enum', 'not', 'anyOf', 'oneOf', 'allOf', 'if'],
  number: ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf'],
  string: ['maxLength', 'minLength', 'pattern', 'format'],
  // additionalItems, items and contains are defined `before: "uniqueItems"`.
  array: ['maxItems', 'minItems', 'additionalItems', 'items', 'contains', 'uniqueItems'],
  object: ['maxProperties', 'minProperties', 'required', 'propertyNames', 'additionalProperties', 'dependencies', 'properties', 'patternProperties'],
};
const GROUP_ORDER = ['any', 'number', 'string', 'array', 'object'];
const RANK = new Map<string, number>();
GROUP_ORDER.forEach((group, g) => GROUPS[group]!.forEach((keyword, k) => RANK.set(keyword, g * 100 + k)));
RANK.set('then', RANK.get('if')!);
RANK.set('else', RANK.get('if')!);

const typesOf = (node: Node): unknown[] => (Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type]);

/**
 * Where Ajv reports a `type` error: first, before any keyword, unless the schema has one type
 * and keywords of that type's group (`{ type: "string", minLength: 1 }`), when it is reported
 * in that group's place.
 */
function typeRank(node: Node, copy: Copy): number {
  const types = typesOf(node);
  const group = types.length === 1 ? GROUPS[String(types[0])] : undefined;
  const used = group?.some((k) => node[k] !== undefined || (k === 'format' && copy.hadFormat.has(node)));
  return used ? GROUP_ORDER.indexOf(String(types[0])) * 100 + 99 : -1;
}

interface Step {
  token: string;
  /** A keyword's place in Ajv's order; undefined for a name or an index. */
  rank?: number;
  /** For an index into the value (an array item): compared as a number. */
  index?: number;
}

interface Located {
  unit: OutputUnit;
  /** The schema object that holds the failing keyword (undefined when a reference could not be followed). */
  node: Node | undefined;
  keyword: string;
  steps: Step[];
  instanceTokens: string[];
  /** Where in the walker's output it came. */
  order: number;
}

const decode = (token: string) => decodeURIComponent(token);
const unescape = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~');
const pointerTokens = (location: string) => (location === '#' || location === '' ? [] : location.replace(/^#/, '').split('/').slice(1).map(decode));

function resolveRef(root: unknown, node: Node): Node | undefined {
  const ref = node.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#')) return undefined;
  let at: unknown = root;
  for (const token of pointerTokens(ref)) at = isNode(at) || Array.isArray(at) ? (at as Node)[unescape(token)] : undefined;
  return isNode(at) ? at : undefined;
}

/** Follows a keyword location through the schema, noting each keyword's rank and each item index. */
function locate(unit: OutputUnit, order: number, copy: Copy): Located {
  const tokens = pointerTokens(unit.keywordLocation);
  const instanceTokens = pointerTokens(unit.instanceLocation);
  const steps: Step[] = [];
  let node: Node | undefined = isNode(copy.schema) ? copy.schema : undefined;
  let keyword = '';
  let depth = 0;
  for (let i = 0; i < tokens.length; ) {
    keyword = unescape(tokens[i++]!);
    steps.push({ token: keyword, rank: keyword === 'type' && node ? typeRank(node, copy) : (RANK.get(keyword) ?? 1000) });
    if (i === tokens.length || !node) break;
    const here: Node = node;
    let next: unknown;
    if (keyword === '$ref') next = resolveRef(copy.schema, here);
    else if (SCHEMA_MAP.has(keyword)) {
      const name = unescape(tokens[i++]!);
      steps.push({ token: name });
      if (keyword === 'properties' || keyword === 'patternProperties') depth++;
      next = isNode(here[keyword]) ? (here[keyword] as Node)[name] : undefined;
    } else if (SCHEMA_LIST.has(keyword) || (keyword === 'items' && Array.isArray(here.items))) {
      const index = tokens[i++]!;
      steps.push({ token: index, index: Number(index) });
      if (keyword === 'items') depth++;
      next = (here[keyword] as unknown[])[Number(index)];
    } else {
      // Into the value: one item or member per failing one, in the value's own order.
      if (keyword === 'items' || keyword === 'additionalItems' || keyword === 'contains') {
        const index = instanceTokens[depth++] ?? '';
        steps.push({ token: index, index: Number(index) });
      } else if (keyword === 'additionalProperties' || keyword === 'propertyNames') steps.push({ token: instanceTokens[depth++] ?? '' });
      next = here[keyword];
    }
    node = isNode(next) ? next : undefined;
  }
  if (unit.keyword === 'false') keyword = 'false';
  return { unit, node: keyword === 'false' ? undefined : node, keyword, steps, instanceTokens, order };
}

function compareLocated(a: Located, b: Located, firstSeen: (steps: Step[], upTo: number) => number): number {
  const n = Math.min(a.steps.length, b.steps.length);
  for (let k = 0; k < n; k++) {
    const sa = a.steps[k]!;
    const sb = b.steps[k]!;
    if (sa.token === sb.token) continue;
    if (sa.rank !== undefined && sb.rank !== undefined) {
      if (sa.rank !== sb.rank) return sa.rank - sb.rank;
      // `if` and its `then`/`else`: Ajv reports the branch's errors, then the `if` error.
      return sa.token === 'if' ? 1 : sb.token === 'if' ? -1 : 0;
    }
    if (sa.index !== undefined && sb.index !== undefined && !Number.isNaN(sa.index) && !Number.isNaN(sb.index)) return sa.index - sb.index;
    return firstSeen(a.steps, k) - firstSeen(b.steps, k);
  }
  if (a.steps.length !== b.steps.length) {
    // Ajv checks the property form of `dependencies` before the schema form.
    const shorter = a.steps.length < b.steps.length ? a : b;
    if (shorter.steps.at(-1)?.token === 'dependencies') return shorter === a ? -1 : 1;
    // Otherwise a keyword's own error (anyOf, oneOf, if, propertyNames…) comes after those of its subschemas.
    return b.steps.length - a.steps.length;
  }
  return a.order - b.order;
}

const shown = (v: unknown) => String(v);
const COMPARISON: Record<string, string> = { maximum: '<=', minimum: '>=', exclusiveMaximum: '<', exclusiveMinimum: '>' };

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as Node)[k], (b as Node)[k]));
}

const JSON_TYPE: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
};

/** The pair Ajv names for duplicate items: it scans from the end, by value for scalar item types, else pairwise. */
function duplicatePair(node: Node, data: unknown[]): { i: number; j: number } | undefined {
  const itemTypes = isNode(node.items) ? typesOf(node.items).map(String) : [];
  if (itemTypes.length > 0 && !itemTypes.some((t) => t === 'object' || t === 'array')) {
    const indices = new Map<string, number>();
    for (let i = data.length; i--; ) {
      const item = data[i];
      if (!itemTypes.some((t) => JSON_TYPE[t]?.(item))) continue;
      const key = typeof item === 'string' ? `"${item}` : String(item);
      const j = indices.get(key);
      if (j !== undefined) return { i, j };
      indices.set(key, i);
    }
    return undefined;
  }
  for (let i = data.length; i--; ) for (let j = i; j--; ) if (deepEqual(data[i], data[j])) return { i, j };
  return undefined;
}

const valueAt = (root: unknown, tokens: string[]) => tokens.reduce<unknown>((at, t) => (typeof at === 'object' && at !== null ? (at as Node)[unescape(t)] : undefined), root);
const quoted = (text: string, prefix: string, suffix: string) => (text.startsWith(prefix) && text.endsWith(suffix) ? text.slice(prefix.length, text.length - suffix.length) : '');

/** One located finding as Ajv's error; undefined for the walker's own bookkeeping, which Ajv does not report. */
function asAjv(l: Located, value: unknown, copy: Copy, passing?: Passing): SchemaError | undefined {
  const { node, keyword, unit } = l;
  const schemaPath = unit.keywordLocation;
  let instanceTokens = l.instanceTokens;
  const params: Record<string, unknown> = {};
  let message: string;
  // The walker's notes on applicators ("a subschema had errors"): Ajv reports only what failed inside.
  if (['$ref', 'properties', 'patternProperties', 'items', 'allOf', 'then', 'else'].includes(keyword)) return undefined;
  // A schema reached through a reference this module could not follow: the walker's own words.
  if (!node && keyword !== 'false') return { keyword, instancePath: instanceTokens.map((t) => `/${t}`).join(''), schemaPath, params, message: unit.error.replace(/\.$/, '') };
  const limit = keyword === 'pattern' && node ? copy.patterns.get(node) : node?.[keyword];
  switch (keyword) {
    case 'type':
      params.type = node?.type;
      message = `must be ${shown(node?.type)}`;
      break;
    case 'const':
      params.allowedValue = node?.const;
      message = 'must be equal to constant';
      break;
    case 'enum':
      params.allowedValues = node?.enum;
      message = 'must be equal to one of the allowed values';
      break;
    case 'not':
      message = 'must NOT be valid';
      break;
    case 'anyOf':
      message = 'must match a schema in anyOf';
      break;
    case 'oneOf':
      params.passingSchemas = passing?.get(unit) ?? null;
      message = 'must match exactly one schema in oneOf';
      break;
    case 'if': {
      const clause = unit.error.includes('"else"') ? 'else' : 'then';
      params.failingKeyword = clause;
      message = `must match "${clause}" schema`;
      break;
    }
    case 'required':
      params.missingProperty = quoted(unit.error, 'Instance does not have required property "', '".');
      message = `must have required property '${String(params.missingProperty)}'`;
      break;
    case 'maximum':
    case 'minimum':
    case 'exclusiveMaximum':
    case 'exclusiveMinimum':
      params.comparison = COMPARISON[keyword];
      params.limit = limit;
      message = `must be ${COMPARISON[keyword]} ${shown(limit)}`;
      break;
    case 'multipleOf':
      params.multipleOf = limit;
      message = `must be multiple of ${shown(limit)}`;
      break;
    case 'maxLength':
    case 'minLength':
      params.limit = limit;
      message = `must NOT have ${keyword === 'maxLength' ? 'more' : 'fewer'} than ${shown(limit)} characters`;
      break;
    case 'pattern':
      params.pattern = limit;
      message = `must match pattern "${shown(limit)}"`;
      break;
    case 'maxItems':
    case 'minItems':
      params.limit = limit;
      message = `must NOT have ${keyword === 'maxItems' ? 'more' : 'fewer'} than ${shown(limit)} items`;
      break;
    case 'maxProperties':
    case 'minProperties':
      params.limit = limit;
      message = `must NOT have ${keyword === 'maxProperties' ? 'more' : 'fewer'} than ${shown(limit)} properties`;
      break;
    case 'uniqueItems': {
      const data = valueAt(value, instanceTokens);
      const pair = node && Array.isArray(data) ? duplicatePair(node, data) : undefined;
      if (!pair) return undefined;
      Object.assign(params, pair);
      message = `must NOT have duplicate items (items ## ${pair.j} and ${pair.i} are identical)`;
      break;
    }
    case 'contains':
      params.minContains = 1;
      message = 'must contain at least 1 valid item(s)';
      break;
    case 'additionalProperties':
      // A schema for the other properties reports through its own errors; `false` is Ajv's own error.
      if (node?.additionalProperties !== false) return undefined;
      params.additionalProperty = quoted(unit.error, 'Property "', '" does not match additional properties schema.');
      message = 'must NOT have additional properties';
      break;
    case 'additionalItems':
      if (node?.additionalItems !== false) return undefined;
      params.limit = Array.isArray(node.items) ? node.items.length : 0;
      message = `must NOT have more than ${shown(params.limit)} items`;
      break;
    case 'dependencies': {
      const deps = isNode(node?.dependencies) ? node.dependencies : {};
      const property = Object.keys(deps).find((k) => unit.error.startsWith(`Instance has "${k}" but does not have "`));
      const list = property !== undefined ? deps[property] : undefined;
      // The schema form reports through its subschema's errors.
      if (!Array.isArray(list)) return undefined;
      params.property = property;
      params.missingProperty = quoted(unit.error, `Instance has "${property}" but does not have "`, '".');
      params.depsCount = list.length;
      params.deps = list.join(', ');
      message = `must have ${list.length === 1 ? 'property' : 'properties'} ${params.deps as string} when property ${property} is present`;
      break;
    }
    case 'propertyNames':
      params.propertyName = quoted(unit.error, 'Property name "', '" does not match schema.');
      message = 'property name must be valid';
      break;
    case 'false':
      message = 'boolean schema is false';
      break;
    default:
      message = unit.error.replace(/\.$/, '');
  }
  // Under propertyNames Ajv reports at the object (the walker, at the name).
  if (keyword !== 'propertyNames' && l.steps.some((s) => s.token === 'propertyNames')) instanceTokens = instanceTokens.slice(0, -1);
  return { keyword: keyword === 'false' ? 'false schema' : keyword, instancePath: instanceTokens.map((t) => `/${t}`).join(''), schemaPath, params, message };
}

/** The walker's errors for `value`, as Ajv's, in Ajv's order. */
function restate(units: readonly OutputUnit[], copy: Copy, value: unknown, passing?: Passing): SchemaError[] {
  const located = units.map((u, i) => locate(u, i, copy));
  // A `false` schema's error comes with no usable location: it belongs to the error before it.
  located.forEach((l, i) => {
    if (l.keyword === 'false' && i > 0) l.steps = [...located[i - 1]!.steps, { token: 'false', rank: 1001 }];
  });
  // After `additionalProperties: false` (and `additionalItems: false`) the walker adds the `false` schema's own error; Ajv does not.
  const kept = located.filter((l, i) => !(l.keyword === 'false' && i > 0 && ['additionalProperties', 'additionalItems'].includes(located[i - 1]!.keyword) && located[i - 1]!.node?.[located[i - 1]!.keyword] === false));
  const seen = new Map<string, number>();
  kept.forEach((l) => {
    l.steps.forEach((_, k) => {
      const key = l.steps.slice(0, k + 1).map((s) => s.token).join('\u0000');
      if (!seen.has(key)) seen.set(key, l.order);
    });
  });
  const firstSeen = (steps: Step[], upTo: number) => seen.get(steps.slice(0, upTo + 1).map((s) => s.token).join('\u0000')) ?? 0;
  const errors: SchemaError[] = [];
  const reported = new Set<string>();
  for (const l of [...kept].sort((a, b) => compareLocated(a, b, firstSeen))) {
    const e = asAjv(l, value, copy, passing);
    if (!e) continue;
    // additionalItems: once per array.
    const key = `${e.keyword}\u0000${e.schemaPath}\u0000${e.instancePath}`;
    if (e.keyword === 'additionalItems' && reported.has(key)) continue;
    reported.add(key);
    errors.push(e);
  }
  return errors;
}
