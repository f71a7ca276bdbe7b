/** Wire types and limits of the Custom Metadata API (docs/api.md, "Custom metadata"). */

export const PROPERTY_TYPES = ['TEXT', 'PICKLIST', 'TEXTLIST', 'MULTIPICKLIST'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

/** What each type means for search, shown beside keys in the console. */
export const PROPERTY_TYPE_MEANING: Record<PropertyType, string> = {
  TEXT: 'single free text, matched in full-text search',
  PICKLIST: 'one value from a small set; exact match; usable as a facet',
  TEXTLIST: 'a list of free-text values',
  MULTIPICKLIST: 'a list of values from a small set; exact match; usable as a facet',
};

/** What a key means for search: its type's meaning, unless skipIndexing keeps it out of search. */
export function searchMeaningOf(key: Pick<MetadataKey, 'propertyType' | 'skipIndexing'>): string {
  const meaning = PROPERTY_TYPE_MEANING[key.propertyType] as string | undefined;
  if (meaning === undefined) return 'a type this console does not know';
  if (!key.skipIndexing) return meaning;
  // The value's shape stays true; what it says of matching and facets does not.
  return `${meaning.split(/[;,]/)[0]}; not indexed: stored with the document, never matched or used as a facet`;
}

export const MAX_KEYS_PER_GROUP = 20;
export const MAX_GROUPS = 50;

export interface MetadataKey {
  name: string;
  propertyType: PropertyType;
  skipIndexing?: boolean;
}

export interface MetadataSchema {
  metadataKeys: MetadataKey[];
}

export interface CustomProperty {
  name: string;
  value: string | string[];
}

export interface CustomMetadataPutRequest {
  customMetadata: CustomProperty[];
}

/** Error body of the custom-metadata family. */
export interface MetadataErrorBody {
  error: string;
  message?: string;
}

export function isListType(t: PropertyType): boolean {
  return t === 'TEXTLIST' || t === 'MULTIPICKLIST';
}
