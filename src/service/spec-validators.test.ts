import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { CLIENT_MODELS, CLIENT_TOOL_MODELS } from '../contract/client-models.ts';
import { isObject, LENS_SPECS, SPEC_AJV_OPTIONS, specBase, specDocumentSchema, toJsonSchema, validationTargets } from '../contract/openapi.ts';
import { readLensSpecs, specValidatorsModule } from './spec-validators.ts';
import { validators } from 'virtual:spec-lens-validators';

const specs = readLensSpecs();
const code = specValidatorsModule(specs);

describe('the spec lens validators, compiled ahead of the page', () => {
  it('are plain code: nothing in the module compiles or evaluates code at run time', () => {
    expect(code).not.toMatch(/\bnew Function\b|\bFunction\(|\beval\(|\brequire\(/);
    // Its only imports are Ajv's runtime helpers (formats and the like), never Ajv itself.
    const imports = [...code.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    for (const module of imports) expect(module).toMatch(/^(ajv\/dist\/runtime\/|ajv-formats\/dist\/formats$)/);
  });

  it('exist for every schema of every spec the lens reads, as the plugin serves them', () => {
    expect(Object.keys(validators)).toEqual([...LENS_SPECS, CLIENT_MODELS, CLIENT_TOOL_MODELS]);
    for (const { name, doc } of specs) expect(Object.keys(validators[name]!).sort()).toEqual(validationTargets(doc).map((t) => t.key).sort());
  });

  it('give the same verdict and errors as Ajv compiling the schema at run time', () => {
    const ajv = new Ajv(SPEC_AJV_OPTIONS);
    addFormats(ajv);
    // Values of every kind, so each validator fails in its own ways (types, required, enums, formats).
    const values: unknown[] = [{}, [], null, 'x', 7, { error: 1, message: [], request_id: 3, type: 'not a uri', status: 'x', metadataKeys: [{ name: 1, propertyType: 'NOPE' }] }];
    let compared = 0;
    for (const spec of specs) {
      ajv.addSchema(specDocumentSchema(spec));
      for (const { key, schema } of validationTargets(spec.doc)) {
        const converted = toJsonSchema(schema, specBase(spec.name));
        const atRunTime = ajv.compile(isObject(converted) ? converted : {});
        const built = validators[spec.name]![key]!;
        for (const value of values) {
          expect(built(value), `${spec.name} ${key}`).toBe(atRunTime(value));
          expect(built.errors ?? null, `${spec.name} ${key}`).toEqual(atRunTime.errors ?? null);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(300);
  });
});
