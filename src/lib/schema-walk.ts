/**
 * The walk of a value against a schema's copy and, where the walker and Ajv part ways, its
 * findings brought to Ajv's.
 */
import { dereference, validate as walk, type OutputUnit, type Schema } from '@cfworker/json-schema';
import { asPatternUnit, type Copy } from './schema-copy';
import type { Passing } from './schema-errors';
import { locate, pointerTokens, valueAt } from './schema-order';

/** The walker's index of a schema's subschemas by URI (it marks the schema's objects as it goes). */
export type Lookup = ReturnType<typeof dereference>;

/** The whole of a value against a schema, every error (allErrors), $ref beside other keywords as Ajv reads draft-07. */
export const walkAll = (value: unknown, schema: unknown, lookup: Lookup, instanceLocation = '#', keywordLocation = '#') =>
  walk(value, schema as Schema, '2019-09', lookup, false, null, instanceLocation, keywordLocation);

/**
 * Where the walker and Ajv part ways, the walker's output is brought to Ajv's:
 * - when no item fits `contains`, Ajv reports why each item does not, then the `contains`
 *   error; the walker keeps only the latter, so the items are walked again for the former;
 * - a `oneOf` with two passing branches names them (Ajv's `passingSchemas`), and Ajv tries
 *   no branch after the second.
 */
export function asAjvWould(units: OutputUnit[], copy: Copy, lookup: Lookup, value: unknown, passing: Passing): OutputUnit[] {
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
