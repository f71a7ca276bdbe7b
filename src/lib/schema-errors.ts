/** The walker's findings in Ajv's words: each one's keyword, instance path, message and params, in Ajv's order. */
import type { OutputUnit } from '@cfworker/json-schema';
import type { SchemaError } from '../contract/agent-input';
import { isNode, type Copy, type Node } from './schema-copy';
import { compareLocated, locate, typesOf, valueAt, type Located, type Step } from './schema-order';

/** Ajv's `passingSchemas` for a failed `oneOf`, by the unit the walker reported it with. */
export type Passing = WeakMap<OutputUnit, unknown>;

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
export function restate(units: readonly OutputUnit[], copy: Copy, value: unknown, passing?: Passing): SchemaError[] {
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
