/**
 * Ajv's refusals of a schema it will not compile: one invalid against draft-07's meta-schema,
 * or naming another draft, refused in Ajv's words.
 */
import { dereference, type Schema } from '@cfworker/json-schema';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json';
import { copySchema, escapeToken, isNode, ONE_SCHEMA, SCHEMA_LIST, SCHEMA_MAP } from './schema-copy';
import { restate } from './schema-errors';
import { walkAll } from './schema-walk';

const DRAFT_07 = 'http://json-schema.org/draft-07/schema';

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
export function assertValidSchema(schema: unknown): void {
  if (!isNode(schema)) return;
  const $schema = schema.$schema;
  if ($schema !== undefined && typeof $schema !== 'string') throw new Error('$schema must be a string');
  if (typeof $schema === 'string' && $schema.replace(/#$/, '') !== DRAFT_07) throw new Error(`no schema with key or ref "${$schema}"`);
  const errors = restate(walkAll(schema, META.schema, META_LOOKUP).errors, META, schema).map((e) => `data${e.instancePath} ${e.message}`);
  for (const e of duplicateItems(schema)) errors.push(e);
  if (errors.length) throw new Error(`schema is invalid: ${errors.join(', ')}`);
}
