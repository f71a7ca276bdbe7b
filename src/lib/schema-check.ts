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
import { dereference, type OutputUnit, type Schema } from '@cfworker/json-schema';
import type { SchemaError } from '../contract/agent-input';
import { depthOver } from './depth';
import { asPatternUnit, copySchema, type Unchecked } from './schema-copy';
import { restate, type Passing } from './schema-errors';
import { assertValidSchema } from './schema-refusals';
import { asAjvWould, walkAll } from './schema-walk';

export { uncheckedOf, type Unchecked } from './schema-copy';

/** The errors of one value ([] when it fits), as Ajv would report them; `unchecked`, what it leaves to the service. */
export type SchemaCheck = ((value: unknown) => SchemaError[]) & { readonly unchecked: readonly Unchecked[] };

/** Deeper than this, a schema or a value is refused rather than walked (the walk recurses). */
export const MAX_SCHEMA_DEPTH = 128;

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
