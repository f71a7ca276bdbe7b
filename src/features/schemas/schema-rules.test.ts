import { describe, expect, it } from 'vitest';
import { diffSchemas, isEmptyDiff, toRows, toSchema, validateKeys, type KeyRow } from './schema-rules';

const row = (name: string, propertyType: KeyRow['propertyType'] = 'TEXT', skipIndexing = false): KeyRow => ({ name, propertyType, skipIndexing });

describe('schema editor validation', () => {
  it('accepts up to 20 alphanumeric keys of the four types', () => {
    const keys = Array.from({ length: 20 }, (_, i) => row(`key${i}`, (['TEXT', 'PICKLIST', 'TEXTLIST', 'MULTIPICKLIST'] as const)[i % 4]));
    expect(validateKeys(keys)).toEqual({});
  });

  it('refuses a 21st key with how many to remove', () => {
    const keys = Array.from({ length: 21 }, (_, i) => row(`key${i}`));
    expect(validateKeys(keys).keys).toMatch(/at most 20 keys; remove 1/);
  });

  it('refuses names that are empty, too long or not alphanumeric, naming the row', () => {
    const errors = validateKeys([row(''), row('a'.repeat(51)), row('has space'), row('dash-ed'), row('ok')]);
    expect(errors['keys.0.name']).toMatch(/empty/);
    expect(errors['keys.1.name']).toMatch(/51 characters/);
    expect(errors['keys.2.name']).toMatch(/letters and digits/);
    expect(errors['keys.3.name']).toMatch(/letters and digits/);
    expect(errors['keys.4.name']).toBeUndefined();
  });

  it('refuses names that repeat ignoring case, pointing at the first', () => {
    const errors = validateKeys([row('Status'), row('tags'), row('STATUS')]);
    expect(errors['keys.2.name']).toBe('Same name as key 1 (names are compared ignoring case).');
    expect(errors['keys.0.name']).toBeUndefined();
  });

  it('refuses a type outside the four the API supports', () => {
    expect(validateKeys([{ name: 'd', propertyType: 'DATE' as KeyRow['propertyType'], skipIndexing: false }])['keys.0.propertyType']).toBeDefined();
  });
});

describe('schema diff', () => {
  const stored = { metadataKeys: [{ name: 'status', propertyType: 'PICKLIST' as const }, { name: 'notes', propertyType: 'TEXT' as const, skipIndexing: true }] };

  it('lists added, removed and changed keys, matching names ignoring case', () => {
    const next = toSchema({ keys: [row('STATUS', 'PICKLIST'), row('tags', 'MULTIPICKLIST')] });
    const d = diffSchemas(stored, next);
    expect(d.added.map((k) => k.name)).toEqual(['tags']);
    expect(d.removed.map((k) => k.name)).toEqual(['notes']);
    expect(d.changed).toEqual([{ before: stored.metadataKeys[0], after: { name: 'STATUS', propertyType: 'PICKLIST' } }]);
  });

  it('finds no change when the rows round-trip the stored schema', () => {
    expect(isEmptyDiff(diffSchemas(stored, toSchema({ keys: toRows(stored) })))).toBe(true);
  });

  it('treats everything as added when there is no stored schema', () => {
    expect(diffSchemas(undefined, toSchema({ keys: [row('a')] })).added).toHaveLength(1);
  });

  it('sends skipIndexing only when set', () => {
    expect(toSchema({ keys: [row('a'), row('b', 'TEXT', true)] })).toEqual({
      metadataKeys: [{ name: 'a', propertyType: 'TEXT' }, { name: 'b', propertyType: 'TEXT', skipIndexing: true }],
    });
  });
});
