/** Where each of the walker's findings is in the schema, and the order Ajv reports them in. */
import type { OutputUnit } from '@cfworker/json-schema';
import { isNode, SCHEMA_LIST, SCHEMA_MAP, type Copy, type Node } from './schema-copy';

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

export const typesOf = (node: Node): unknown[] => (Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type]);

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

export interface Step {
  token: string;
  /** A keyword's place in Ajv's order; undefined for a name or an index. */
  rank?: number;
  /** For an index into the value (an array item): compared as a number. */
  index?: number;
}

export interface Located {
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
export const pointerTokens = (location: string) => (location === '#' || location === '' ? [] : location.replace(/^#/, '').split('/').slice(1).map(decode));

function resolveRef(root: unknown, node: Node): Node | undefined {
  const ref = node.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#')) return undefined;
  let at: unknown = root;
  for (const token of pointerTokens(ref)) at = isNode(at) || Array.isArray(at) ? (at as Node)[unescape(token)] : undefined;
  return isNode(at) ? at : undefined;
}

/** Follows a keyword location through the schema, noting each keyword's rank and each item index. */
export function locate(unit: OutputUnit, order: number, copy: Copy): Located {
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

export function compareLocated(a: Located, b: Located, firstSeen: (steps: Step[], upTo: number) => number): number {
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

export const valueAt = (root: unknown, tokens: string[]) => tokens.reduce<unknown>((at, t) => (typeof at === 'object' && at !== null ? (at as Node)[unescape(t)] : undefined), root);
