import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The vendor's public schemas, kept in the repository so a clone tests on its own (see its README). */
export const SPEC_DIR = fileURLToPath(new URL('../../contract/spec', import.meta.url));

export type SpecName = 'indexing' | 'client_rest' | 'platform';

/**
 * OpenAPI 3.0 is not JSON Schema: `nullable` and `example` are not keywords Ajv knows,
 * and `x-*` extensions are vendor notes. Dropping them leaves plain draft-07 schemas.
 */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'nullable' || key === 'example' || key.startsWith('x-')) continue;
    out[key] = toJsonSchema(value);
  }
  return out;
}

export interface SpecValidator {
  /** A compiled validator for `components.schemas.<name>`. */
  schema(name: string): ValidateFunction;
  /** Names of the spec's component schemas. */
  readonly names: readonly string[];
}

const cache = new Map<SpecName, SpecValidator>();

export function loadSpec(name: SpecName): SpecValidator {
  const hit = cache.get(name);
  if (hit) return hit;
  const doc = JSON.parse(readFileSync(path.join(SPEC_DIR, `${name}.json`), 'utf8')) as {
    components: { schemas: Record<string, unknown> };
  };
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  // The whole document's components under one $id, so `#/components/schemas/X` refs resolve.
  const id = `https://spec.local/${name}.json`;
  ajv.addSchema({ $id: id, components: toJsonSchema(doc.components) }, id);
  const compiled = new Map<string, ValidateFunction>();
  const names = Object.keys(doc.components.schemas);
  const validator: SpecValidator = {
    names,
    schema(schemaName) {
      let fn = compiled.get(schemaName);
      if (!fn) {
        if (!names.includes(schemaName)) throw new Error(`${name}.json has no components.schemas.${schemaName}`);
        fn = ajv.getSchema(`${id}#/components/schemas/${schemaName}`);
        if (!fn) throw new Error(`Ajv could not compile ${name}.json#/components/schemas/${schemaName}`);
        compiled.set(schemaName, fn);
      }
      return fn;
    },
  };
  cache.set(name, validator);
  return validator;
}

export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('; ');
}

/**
 * Validates `value` against `<spec>.json#/components/schemas/<schemaName>` and returns
 * the Ajv errors as text ('' when valid), so `expect(...).toBe('')` shows why it failed.
 */
export function specErrors(spec: SpecName, schemaName: string, value: unknown): string {
  const validate = loadSpec(spec).schema(schemaName);
  return validate(value) ? '' : describeErrors(validate.errors);
}

const TOOL_MODELS_FILE = path.join(SPEC_DIR, 'client-models', 'tool-servers.schema.json');
let toolModels: Ajv | undefined;

export type ToolServerModel = 'ToolServerAuthStatusResponse' | 'AuthorizeToolServerRequest' | 'AuthorizeToolServerResponse' | 'ToolDefinitionsResponse';

/**
 * Validates `value` against a model of client-models/tool-servers.schema.json (written from
 * the official client's models; the public spec has no schema for these operations) and
 * returns Ajv's errors as text, '' when valid.
 */
export function toolServerModelErrors(model: ToolServerModel, value: unknown): string {
  if (!toolModels) {
    toolModels = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
    addFormats(toolModels);
    toolModels.addSchema(JSON.parse(readFileSync(TOOL_MODELS_FILE, 'utf8')) as object, 'tools');
  }
  const validate = toolModels.getSchema(`tools#/definitions/${model}`);
  if (!validate) throw new Error(`tool-servers.schema.json has no definitions.${model}`);
  return validate(value) ? '' : describeErrors(validate.errors);
}
