/**
 * The parts of an OpenAPI 3.0 document the spec lens reads, the conversion of its schemas
 * into JSON Schema (draft-07) that Ajv compiles, and the list of schemas the lens validates
 * against. Here, not in the lens, because the build compiles those validators ahead of time
 * (src/service/spec-validators.ts) and the page's policy forbids compiling them in the page.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** One vendored spec file, as parsed JSON. */
export interface SpecDoc {
  openapi: string;
  info?: { title?: string; version?: string };
  'x-base-path': string;
  paths: Record<string, Record<string, JsonObject>>;
  components?: { schemas?: Record<string, JsonObject>; responses?: Record<string, JsonObject> };
}

export interface NamedSpec {
  /** The file's name without `.json`, as the badge names it. */
  name: string;
  doc: SpecDoc;
  /** The file under src/contract/spec, where it is not `<name>.json`. */
  file?: string;
}

/** The file a spec came from, as the lens's sentences name it. */
export const fileOf = (spec: NamedSpec) => spec.file ?? `${spec.name}.json`;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 6901: `~` and `/` inside one reference token. */
export const escapePointerToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapePointerToken = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~');

/** The value at a local `#/a/b` reference of the document, or undefined. */
export function resolveLocal(doc: SpecDoc, ref: string): Json | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: Json | undefined = doc as unknown as Json;
  for (const token of ref.slice(2).split('/').map(unescapePointerToken)) {
    if (!isObject(node)) return undefined;
    node = node[token];
  }
  return node;
}

/** Follows `$ref` chains (a response object or a schema) to the node they name. */
export function deref(doc: SpecDoc, node: Json | undefined): JsonObject | undefined {
  const seen = new Set<string>();
  while (isObject(node) && typeof node.$ref === 'string') {
    if (seen.has(node.$ref)) return undefined;
    seen.add(node.$ref);
    node = resolveLocal(doc, node.$ref);
  }
  return isObject(node) ? node : undefined;
}

/** Keywords whose value is one schema. */
const SCHEMA_VALUED = ['items', 'additionalProperties', 'not', 'additionalItems', 'contains', 'propertyNames'];
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'];
/** Keywords whose value maps names to schemas (the names are data, not keywords). */
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions'];
/** OpenAPI 3.0 annotations that are not JSON Schema keywords; Ajv would reject or misread them. */
const OPENAPI_ONLY = new Set(['nullable', 'example', 'discriminator', 'xml', 'externalDocs', 'deprecated', 'readOnly', 'writeOnly']);

/**
 * An OpenAPI 3.0 schema object as a draft-07 JSON Schema:
 * - `nullable: true` becomes a `null` type (or a `null` alternative where there is no type,
 *   since draft-07 ignores every keyword beside `$ref`: null, else the schema);
 * - the boolean `exclusiveMinimum`/`exclusiveMaximum` of 3.0 become draft-07's numbers;
 * - `example`, `discriminator`, `x-*` and the other OpenAPI-only keys are dropped;
 * - local `$ref`s are made absolute with `base`, so a schema cut out of the document still
 *   resolves against the document Ajv holds under that id.
 * Property names are walked as names, so a property called `example` is kept.
 */
export function toJsonSchema(node: Json, base: string): Json {
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (OPENAPI_ONLY.has(key) || key.startsWith('x-')) continue;
    if (key === '$ref' && typeof value === 'string') out.$ref = value.startsWith('#') ? `${base}${value}` : value;
    else if (SCHEMA_VALUED.includes(key) && isObject(value)) out[key] = toJsonSchema(value, base);
    else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) out[key] = value.map((v) => toJsonSchema(v, base));
    else if (SCHEMA_MAPS.includes(key) && isObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonSchema(v, base)]));
    else out[key] = value;
  }
  for (const [bound, exclusive] of [['minimum', 'exclusiveMinimum'], ['maximum', 'exclusiveMaximum']] as const) {
    if (typeof out[exclusive] === 'boolean') {
      if (out[exclusive] === true && typeof out[bound] === 'number') {
        out[exclusive] = out[bound];
        delete out[bound];
      } else delete out[exclusive];
    }
  }
  if (node.nullable !== true) return out;
  if (typeof out.type === 'string' && !('$ref' in out)) {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  // Not `anyOf: [out, null]`: a non-null value that breaks `out` would then read as "fits
  // none of the shapes" instead of saying what in it differs.
  return { if: { type: 'null' }, then: true, else: out };
}

/** The vendored spec files (src/contract/spec/<name>.json) the spec lens checks answers against. */
export const LENS_SPECS = ['indexing', 'client_rest', 'platform'] as const;

/** The `$id` each spec document is known by to Ajv; the lens's `$ref`s are made absolute against it. */
export const specBase = (name: string) => `https://spec.invalid/${name}.json`;

/** The document Ajv holds for a spec: its component schemas as JSON Schema, under `specBase(name)`. */
export function specDocumentSchema({ name, doc }: NamedSpec): JsonObject {
  const base = specBase(name);
  const schemas = Object.fromEntries(Object.entries(doc.components?.schemas ?? {}).map(([k, v]) => [k, toJsonSchema(v, base)]));
  return { $id: base, components: { schemas } };
}

/**
 * Ajv's options for the lens. verbose: the sentences quote the value that differs. logger
 * off: the vendor's unknown formats are ignored, not warned about.
 */
export const SPEC_AJV_OPTIONS = { strict: false, allErrors: true, verbose: true, logger: false } as const;

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

/**
 * Where the schema of one documented response body sits in the spec file, as a JSON pointer:
 * under the operation, or under `components/responses` when the operation refers to a shared
 * response. The lens names its validators by it.
 */
export function responseMediaPointer(responses: JsonObject, template: string, method: string, statusKey: string, mediaType: string): string {
  const entry = responses[statusKey];
  const ref = isObject(entry) && typeof entry.$ref === 'string' ? entry.$ref : undefined;
  const base = ref ? ref.slice(1) : `/paths/${escapePointerToken(template)}/${method.toLowerCase()}/responses/${statusKey}`;
  return `${base}/content/${escapePointerToken(mediaType)}/schema`;
}

/** One schema the lens may check a value against, by the key it asks for it with. */
export interface ValidationTarget {
  key: string;
  /** The OpenAPI schema; converted with toJsonSchema before it is compiled. */
  schema: Json;
}

/**
 * Every schema the lens may validate against in this spec: each documented response body
 * (keyed by responseMediaPointer) and each component schema (keyed `#/components/schemas/X`,
 * as a `$ref` to it, the way a streamed event's data is checked).
 */
export function validationTargets(doc: SpecDoc): ValidationTarget[] {
  const targets = new Map<string, Json>();
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method) || !isObject(operation.responses)) continue;
      const responses = operation.responses;
      for (const statusKey of Object.keys(responses)) {
        const content = deref(doc, responses[statusKey])?.content;
        if (!isObject(content)) continue;
        for (const [mediaType, media] of Object.entries(content)) {
          if (isObject(media) && media.schema !== undefined) targets.set(responseMediaPointer(responses, template, method, statusKey, mediaType), media.schema);
        }
      }
    }
  }
  for (const name of Object.keys(doc.components?.schemas ?? {})) {
    const ref = `#/components/schemas/${escapePointerToken(name)}`;
    targets.set(ref, { $ref: ref });
  }
  return [...targets].map(([key, schema]) => ({ key, schema }));
}
