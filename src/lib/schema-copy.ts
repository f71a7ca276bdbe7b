/**
 * The schema as the walker is given it (see schema-check.ts): a copy without the keywords Ajv
 * ignores, its patterns matched in linear time or noted as left to the service.
 */
import { format as walkerFormats, type OutputUnit } from '@cfworker/json-schema';
import { linearPattern } from './linear-pattern';

/** A part of the schema this page does not check, and why (the service still does). */
export interface Unchecked {
  /** JSON pointer to the keyword in the schema, e.g. `/properties/code/pattern`. */
  schemaPath: string;
  keyword: 'pattern' | 'patternProperties';
  pattern: string;
  why: string;
}

export type Node = Record<string, unknown>;
export const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords whose value is one schema (or, for items, a list of them). */
export const ONE_SCHEMA = new Set(['items', 'additionalItems', 'additionalProperties', 'contains', 'propertyNames', 'not', 'if', 'then', 'else']);
/** Keywords whose value is a list of schemas. */
export const SCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf']);
/** Keywords whose value maps names (data, not keywords) to schemas. */
export const SCHEMA_MAP = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies']);
/**
 * Keywords of later drafts the walker would apply but Ajv's draft-07 ignores; `format`, which
 * Ajv without ajv-formats ignores too (the page never loaded formats, nor does the service).
 */
const IGNORED = new Set(['format', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'prefixItems', 'minContains', 'maxContains', '$recursiveRef', '$recursiveAnchor']);

export interface Copy {
  schema: unknown;
  /** Schema objects that had a `format`: for Ajv it still puts the node's string checks in a group (see typeRank, schema-order.ts). */
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

export const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * A deep copy the walker may annotate (it marks the schema objects it is given), without the
 * keywords Ajv ignores, with every pattern checked as Ajv checks it when compiling, and every
 * pattern matched in linear time or, where that cannot be, left out and noted in `unchecked`.
 */
export function copySchema(schema: unknown): Copy {
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
export function asPatternUnit(u: OutputUnit): OutputUnit {
  if (u.keyword !== 'format') return u;
  return { ...u, keyword: 'pattern', keywordLocation: u.keywordLocation.replace(/\/format$/, '/pattern'), error: 'String does not match pattern.' };
}
