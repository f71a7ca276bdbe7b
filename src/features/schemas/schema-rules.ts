import { MAX_KEYS_PER_GROUP, PROPERTY_TYPES, type MetadataKey, type MetadataSchema, type PropertyType } from '../../contract/metadata';
import { nameProblem } from '../../contract/names';

export interface KeyRow {
  name: string;
  propertyType: PropertyType;
  skipIndexing: boolean;
}

export interface EditorValues {
  keys: KeyRow[];
}

export type FieldErrors = Partial<Record<`keys.${number}.name` | `keys.${number}.propertyType` | 'keys', string>>;

/** The published limits of a schema, checked before anything is sent. */
export function validateKeys(keys: readonly KeyRow[]): FieldErrors {
  const errors: FieldErrors = {};
  if (keys.length > MAX_KEYS_PER_GROUP) errors.keys = `A group has at most ${MAX_KEYS_PER_GROUP} keys; remove ${keys.length - MAX_KEYS_PER_GROUP}.`;
  const firstByName = new Map<string, number>();
  keys.forEach((k, i) => {
    const problem = nameProblem(k.name, 'key name');
    if (problem) errors[`keys.${i}.name`] = problem;
    else {
      const lower = k.name.toLowerCase();
      const first = firstByName.get(lower);
      if (first !== undefined) errors[`keys.${i}.name`] = `Same name as key ${first + 1} (names are compared ignoring case).`;
      else firstByName.set(lower, i);
    }
    if (!(PROPERTY_TYPES as readonly string[]).includes(k.propertyType)) errors[`keys.${i}.propertyType`] = 'Choose one of the four types.';
  });
  return errors;
}

export function toSchema(values: EditorValues): MetadataSchema {
  return {
    metadataKeys: values.keys.map((k): MetadataKey => ({
      name: k.name,
      propertyType: k.propertyType,
      ...(k.skipIndexing && { skipIndexing: true }),
    })),
  };
}

export function toRows(schema: MetadataSchema | undefined): KeyRow[] {
  return (schema?.metadataKeys ?? []).map((k) => ({ name: k.name, propertyType: k.propertyType, skipIndexing: k.skipIndexing === true }));
}

export interface SchemaDiff {
  added: MetadataKey[];
  removed: MetadataKey[];
  changed: { before: MetadataKey; after: MetadataKey }[];
}

/** What saving would change, keys matched ignoring case as the API does. */
export function diffSchemas(before: MetadataSchema | undefined, after: MetadataSchema): SchemaDiff {
  const old = new Map((before?.metadataKeys ?? []).map((k) => [k.name.toLowerCase(), k]));
  const next = new Map(after.metadataKeys.map((k) => [k.name.toLowerCase(), k]));
  const diff: SchemaDiff = { added: [], removed: [], changed: [] };
  for (const [name, k] of next) {
    const o = old.get(name);
    if (!o) diff.added.push(k);
    else if (o.propertyType !== k.propertyType || (o.skipIndexing ?? false) !== (k.skipIndexing ?? false) || o.name !== k.name) {
      diff.changed.push({ before: o, after: k });
    }
  }
  for (const [name, k] of old) if (!next.has(name)) diff.removed.push(k);
  return diff;
}

export function isEmptyDiff(d: SchemaDiff): boolean {
  return !d.added.length && !d.removed.length && !d.changed.length;
}
