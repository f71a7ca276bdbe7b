/**
 * The spec lens's validators, compiled when the console is built (and by the dev server and
 * the test runner), never in the page: Ajv compiles a schema with `new Function`, which the
 * page's policy (no 'unsafe-eval') forbids. Ajv's standalone code is that same compiled
 * code as an ES module; the page imports it like any other chunk.
 */
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { clientModelsNamedSpec, toolServerModelsNamedSpec } from '../contract/client-models.ts';
import { isObject, LENS_SPECS, SPEC_AJV_OPTIONS, specBase, specDocumentSchema, toJsonSchema, validationTargets, type JsonObject, type NamedSpec, type SpecDoc } from '../contract/openapi.ts';

const CLIENT_MODELS_FILE = fileURLToPath(new URL('../contract/spec/client-models/durable-runs.schema.json', import.meta.url));
const TOOL_MODELS_FILE = fileURLToPath(new URL('../contract/spec/client-models/tool-servers.schema.json', import.meta.url));

/** The vendored files the lens reads (src/contract/spec): the OpenAPI cut, then the official client's models. */
export const SPEC_FILES = [...LENS_SPECS.map((name) => fileURLToPath(new URL(`../contract/spec/${name}.json`, import.meta.url))), CLIENT_MODELS_FILE, TOOL_MODELS_FILE];

/** The specs the lens reads, in the order it consults them: the public cut first, the client's models for what the cut lacks. */
export function readLensSpecs(): NamedSpec[] {
  return [
    ...LENS_SPECS.map((name, i) => ({ name, doc: JSON.parse(readFileSync(SPEC_FILES[i]!, 'utf8')) as SpecDoc })),
    clientModelsNamedSpec(JSON.parse(readFileSync(CLIENT_MODELS_FILE, 'utf8')) as JsonObject),
    toolServerModelsNamedSpec(JSON.parse(readFileSync(TOOL_MODELS_FILE, 'utf8')) as JsonObject),
  ];
}

/**
 * Ajv's standalone code refers to its runtime helpers (formats, deep equality, string length)
 * with CommonJS `require`, even as an ES module. Each becomes an import; `cjs` picks the
 * member the same way whether a bundler (which honours `__esModule`) or Node (whose default
 * import is the whole `module.exports`) loaded the module.
 */
function importsForRequires(code: string): string {
  const modules = new Map<string, string>();
  // Only where Ajv's scope declares a helper (`const formats0 = require(…)…`), never inside a schema's text.
  const body = code.replace(/= require\("([^"]+)"\)(?:\.([A-Za-z_$][\w$]*))?/g, (_, module: string, member: string | undefined) => {
    let alias = modules.get(module);
    if (!alias) modules.set(module, (alias = `__runtime${modules.size}`));
    return `= __cjs(${alias}, ${JSON.stringify(member ?? 'default')})`;
  });
  const imports = [...modules].map(([module, alias]) => `import * as ${alias} from ${JSON.stringify(module)};`).join('\n');
  const helper = `const __cjs = (m, key) => { const v = m[key]; if (key === 'default' && v && typeof v === 'object' && v.__esModule) return v.default; return v !== undefined ? v : m.default && m.default[key]; };`;
  // The standalone code begins with "use strict"; a module is strict anyway, and imports go first.
  return `${imports}\n${helper}\n${body.replace(/^"use strict";/, '')}`;
}

/**
 * An ES module exporting `validators`: spec name → the lens's key for a schema (see
 * validationTargets) → its validate function, for every schema of every spec.
 */
export function specValidatorsModule(specs: readonly NamedSpec[] = readLensSpecs()): string {
  const ajv = new Ajv({ ...SPEC_AJV_OPTIONS, code: { source: true, esm: true } });
  addFormats(ajv);
  const exported: Record<string, string> = {};
  const table: string[] = [];
  for (const spec of specs) {
    ajv.addSchema(specDocumentSchema(spec));
    const entries: string[] = [];
    for (const { key, schema } of validationTargets(spec.doc)) {
      const name = `v${Object.keys(exported).length}`;
      const id = `https://spec.invalid/validators/${name}`;
      const converted = toJsonSchema(schema, specBase(spec.name));
      ajv.addSchema(isObject(converted) ? converted : {}, id);
      exported[name] = id;
      entries.push(`${JSON.stringify(key)}: ${name}`);
    }
    table.push(`${JSON.stringify(spec.name)}: {\n    ${entries.join(',\n    ')}\n  }`);
  }
  return `${importsForRequires(standaloneCode(ajv, exported))}\nexport const validators = {\n  ${table.join(',\n  ')}\n};\n`;
}

/**
 * The same validators as `specValidatorsModule`, compiled here and now, for Node tools that
 * have no bundler to import the module from (`npm run suite`'s spec-lens assertion). Node may
 * compile code; only the page may not.
 */
export function compiledSpecValidators(specs: readonly NamedSpec[] = readLensSpecs()): Record<string, Record<string, ReturnType<Ajv['compile']>>> {
  const ajv = new Ajv({ ...SPEC_AJV_OPTIONS });
  addFormats(ajv);
  const ids: [string, string, string][] = [];
  for (const spec of specs) {
    ajv.addSchema(specDocumentSchema(spec));
    for (const { key, schema } of validationTargets(spec.doc)) {
      const id = `https://spec.invalid/validators/v${ids.length}`;
      const converted = toJsonSchema(schema, specBase(spec.name));
      ajv.addSchema(isObject(converted) ? converted : {}, id);
      ids.push([spec.name, key, id]);
    }
  }
  const out: Record<string, Record<string, ReturnType<Ajv['compile']>>> = {};
  // Each compiled when first asked for: a suite checks a few operations, not the whole spec.
  for (const [name, key, id] of ids) {
    let compiled: ReturnType<Ajv['compile']> | undefined;
    Object.defineProperty((out[name] ??= {}), key, { enumerable: true, get: () => (compiled ??= ajv.getSchema(id)!) });
  }
  return out;
}
