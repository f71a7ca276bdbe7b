import type { MetadataSchema } from '../contract/metadata.ts';
import { AGENTS_SCOPE, GLOBAL_SCOPE, groupScope } from '../contract/scopes.ts';
import type { Store } from './store.ts';

/**
 * Sandbox-only demo tokens. Their strings are fixed and published in the README so a
 * fresh machine is usable at once; they mean nothing outside the reference service.
 */
export const DEMO_TOKENS = [
  { token: 'sandbox-global-3f9c2a7d41e8b605', label: 'Demo: global metadata', scopes: [GLOBAL_SCOPE] },
  { token: 'sandbox-sales-8b1e6d0c93a2f457', label: 'Demo: group sales', scopes: [groupScope('sales')] },
  { token: 'sandbox-hr-52d7a9f10c6e3b84', label: 'Demo: group hr', scopes: [groupScope('hr')] },
  { token: 'sandbox-engineering-c40b8e2f7a915d36', label: 'Demo: group engineering', scopes: [groupScope('engineering')] },
  { token: 'sandbox-agents-1d6f3b9e0a7c2548', label: 'Demo: agents', scopes: [AGENTS_SCOPE] },
  { token: 'sandbox-everything-7e2a5c8d1b4f9063', label: 'Demo: global metadata and agents', scopes: [GLOBAL_SCOPE, AGENTS_SCOPE] },
  { token: 'sandbox-noscope-9a4c1e7b3d0f8262', label: 'Demo: no useful scope', scopes: ['custommetadata:archive'] },
] as const;

export const DEMO_GROUPS: Record<string, MetadataSchema> = {
  sales: {
    metadataKeys: [
      { name: 'status', propertyType: 'PICKLIST' },
      { name: 'region', propertyType: 'PICKLIST' },
      { name: 'tags', propertyType: 'MULTIPICKLIST' },
      { name: 'dealNotes', propertyType: 'TEXT', skipIndexing: true },
    ],
  },
  hr: {
    metadataKeys: [
      { name: 'policyArea', propertyType: 'PICKLIST' },
      { name: 'audience', propertyType: 'MULTIPICKLIST' },
      { name: 'summary', propertyType: 'TEXT' },
      { name: 'internalNotes', propertyType: 'TEXT', skipIndexing: true },
    ],
  },
  engineering: {
    metadataKeys: [
      { name: 'component', propertyType: 'TEXT' },
      { name: 'owners', propertyType: 'TEXTLIST' },
    ],
  },
};

const DEMO_DOC_VALUES = [
  { docId: 'DOC-1001', group: 'sales', values: [{ name: 'status', value: 'won' }, { name: 'tags', value: ['emea', 'renewal'] }] },
  { docId: 'DOC-2001', group: 'hr', values: [{ name: 'policyArea', value: 'leave' }, { name: 'audience', value: ['all'] }] },
];

/** Seeds the demo data once per data directory; later starts keep what users changed. */
export function seedIfEmpty(store: Store): void {
  if (store.getMeta('seeded')) return;
  store.transaction(() => {
    for (const t of DEMO_TOKENS) store.addToken(t.token, { label: t.label, scopes: [...t.scopes] });
    for (const [name, schema] of Object.entries(DEMO_GROUPS)) store.putGroup(name, schema);
    for (const d of DEMO_DOC_VALUES) store.putDocValues(d.docId, d.group, d.values);
    store.setMeta('seeded', new Date().toISOString());
  });
}
