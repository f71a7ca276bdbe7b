import { Hono, type Context } from 'hono';
import { bodyLimit } from '../body-limit.ts';
import {
  isListType,
  MAX_GROUPS,
  MAX_KEYS_PER_GROUP,
  PROPERTY_TYPES,
  type CustomProperty,
  type MetadataKey,
  type MetadataSchema,
  type PropertyType,
} from '../../contract/metadata.ts';
import { docIdProblem, nameProblem } from '../../contract/names.ts';
import { scopesCoverGroup, scopesThatCover } from '../../contract/scopes.ts';
import { authenticate, rateLimit, type RateLimiter } from '../auth.ts';
import { noneMatchHits } from '../etag.ts';
import { closeAfterTooLarge, isPlainObject, MAX_BODY_BYTES, metadataError, readJson, unknownKeys, type Env } from '../http.ts';
import { clip, listText } from '../problem-list.ts';
import type { Store } from '../store.ts';
import { admitFault } from '../faults.ts';
import { RUN_LIMIT_RETRY_AFTER_S, runCapText, type RunSlots } from '../runs.ts';

const KEY_FIELDS = [
  'name', 'propertyType', 'skipIndexing',
  // Published PropertyDefinition fields the API accepts and keeps as given.
  'displayLabel', 'displayLabelPlural', 'uiOptions', 'hideUiFacet', 'uiFacetOrder', 'group',
] as const;
const UNSUPPORTED_TYPES = ['DATE', 'INT', 'USERID'];

type Checked<T> = { ok: true; value: T } | { ok: false; error: string; message: string };

function refuse(c: Context<Env>, message: string) {
  c.header('WWW-Authenticate', 'Bearer');
  return metadataError(c, 401, 'unauthorized', message);
}

export function checkSchemaBody(body: unknown): Checked<MetadataSchema> {
  const bad = (message: string): Checked<MetadataSchema> => ({ ok: false, error: 'invalid schema', message });
  if (!isPlainObject(body)) return bad('The body must be a JSON object: { "metadataKeys": [ ... ] }.');
  const extra = unknownKeys(body, ['metadataKeys']);
  if (extra.length) return bad(`Unknown field(s) in the body: ${listText(extra)}.`);
  const keys = body.metadataKeys;
  if (!Array.isArray(keys)) return bad('metadataKeys must be an array of key definitions.');
  if (keys.length > MAX_KEYS_PER_GROUP) return bad(`A group has at most ${MAX_KEYS_PER_GROUP} keys; this schema has ${keys.length}.`);
  const seen = new Map<string, string>();
  const out: MetadataKey[] = [];
  for (const [i, key] of keys.entries()) {
    const at = `metadataKeys[${i}]`;
    if (!isPlainObject(key)) return bad(`${at} must be an object with name and propertyType.`);
    const unknown = unknownKeys(key, KEY_FIELDS);
    if (unknown.length) return bad(`${at} has unknown field(s): ${listText(unknown)}.`);
    if (typeof key.name !== 'string') return bad(`${at}.name must be a string.`);
    const nameIssue = nameProblem(key.name, 'key name');
    if (nameIssue) return bad(`${at}: ${nameIssue}`);
    const clash = seen.get(key.name.toLowerCase());
    if (clash !== undefined) return bad(`Key names must be unique ignoring case: "${clash}" and "${key.name}".`);
    seen.set(key.name.toLowerCase(), key.name);
    if (typeof key.propertyType !== 'string') return bad(`${at}.propertyType must be one of ${PROPERTY_TYPES.join(', ')}.`);
    if (UNSUPPORTED_TYPES.includes(key.propertyType)) {
      return bad(`${at}.propertyType ${clip(key.propertyType)} is not supported by this API; use one of ${PROPERTY_TYPES.join(', ')}.`);
    }
    if (!(PROPERTY_TYPES as readonly string[]).includes(key.propertyType)) {
      return bad(`${at}.propertyType "${clip(key.propertyType)}" is unknown; use one of ${PROPERTY_TYPES.join(', ')}.`);
    }
    if (key.skipIndexing !== undefined && typeof key.skipIndexing !== 'boolean') return bad(`${at}.skipIndexing must be true or false.`);
    out.push(key as unknown as MetadataKey);
  }
  return { ok: true, value: { metadataKeys: out } };
}

export function checkValuesBody(body: unknown, schema: MetadataSchema): Checked<CustomProperty[]> {
  const bad = (message: string): Checked<CustomProperty[]> => ({ ok: false, error: 'invalid metadata', message });
  if (!isPlainObject(body)) return bad('The body must be a JSON object: { "customMetadata": [ { "name", "value" } ] }.');
  const extra = unknownKeys(body, ['customMetadata']);
  if (extra.length) return bad(`Unknown field(s) in the body: ${listText(extra)}.`);
  if (!Array.isArray(body.customMetadata)) return bad('customMetadata must be an array of { name, value }.');
  const types = new Map(schema.metadataKeys.map((k) => [k.name.toLowerCase(), k]));
  const out: CustomProperty[] = [];
  const seen = new Set<string>();
  for (const [i, item] of body.customMetadata.entries()) {
    const at = `customMetadata[${i}]`;
    if (!isPlainObject(item)) return bad(`${at} must be an object { name, value }.`);
    const unknown = unknownKeys(item, ['name', 'value']);
    if (unknown.length) return bad(`${at} has unknown field(s): ${listText(unknown)}.`);
    if (typeof item.name !== 'string') return bad(`${at}.name must be a string.`);
    const key = types.get(item.name.toLowerCase());
    if (!key) return bad(`${at}: "${clip(item.name)}" is not a key of this group (keys: ${schema.metadataKeys.map((k) => k.name).join(', ') || 'none'}).`);
    if (seen.has(key.name.toLowerCase())) return bad(`${at}: "${item.name}" is given twice.`);
    seen.add(key.name.toLowerCase());
    const v = item.value;
    if (isListType(key.propertyType)) {
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
        return bad(`${at}: "${key.name}" is ${key.propertyType}; its value must be an array of strings.`);
      }
    } else if (typeof v !== 'string') {
      return bad(`${at}: "${key.name}" is ${key.propertyType}; its value must be a string${typeof v === 'boolean' ? ', never a boolean' : ''}.`);
    }
    out.push({ name: key.name, value: v as string | string[] });
  }
  return { ok: true, value: out };
}

/** Keys whose type changes while documents carry values for them: an incompatible change. */
function incompatibleChanges(store: Store, group: string, before: MetadataSchema, after: MetadataSchema): string[] {
  const oldTypes = new Map<string, PropertyType>(before.metadataKeys.map((k) => [k.name.toLowerCase(), k.propertyType]));
  const changed = after.metadataKeys.filter((k) => {
    const t = oldTypes.get(k.name.toLowerCase());
    return t !== undefined && t !== k.propertyType;
  });
  if (!changed.length) return [];
  const used = new Set<string>();
  for (const values of store.valuesInGroup(group)) for (const v of values) used.add(v.name.toLowerCase());
  return changed.filter((k) => used.has(k.name.toLowerCase())).map((k) => k.name);
}

export function customMetadataRoutes(store: Store, options: { rateLimitPerMinute: number; limiter?: RateLimiter; runSlots: RunSlots }) {
  const app = new Hono<Env>();
  app.use(
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => {
        closeAfterTooLarge(c);
        return metadataError(c, 413, 'request too large', `The body is over ${MAX_BODY_BYTES} bytes.`);
      },
    }),
  );
  app.use(authenticate(store, refuse));
  app.use(rateLimit(options.limiter ?? options.rateLimitPerMinute, (c, s) => metadataError(c, 429, 'too many requests', `Retry after ${s} s.`)));

  /** Validates the group name, then the token's scope for it; returns a refusal or the name. */
  const group = (c: Context<Env>): Response | string => {
    const name = c.req.param('groupName') ?? '';
    const issue = nameProblem(name, 'group name');
    if (issue) return metadataError(c, 400, 'invalid group name', issue);
    if (!scopesCoverGroup(c.get('token').scopes, name)) {
      const [one, all] = scopesThatCover(name);
      return refuse(c, `This token's scopes do not cover group "${name}". It needs ${one} or ${all}.`);
    }
    return name;
  };

  // A fault's delay or slow bytes only once the token's scopes cover the group (faults.ts): the
  // group is checked here first, as each route checks it.
  const admit = admitFault(options.runSlots, (c) => {
    c.header('Retry-After', String(RUN_LIMIT_RETRY_AFTER_S));
    return metadataError(c, 429, 'too many requests', runCapText(options.runSlots.perToken));
  });
  for (const path of ['/custom-metadata/schema/:groupName', '/document/:docId/custom-metadata/:groupName']) {
    app.use(path, async (c, next) => {
      if (!c.get('fault')) return next();
      const name = group(c);
      if (typeof name !== 'string') return name;
      return admit(c, next);
    });
  }

  app.get('/custom-metadata/schema/:groupName', (c) => {
    const name = group(c);
    if (typeof name !== 'string') return name;
    const prepared = store.preparedSchema(name);
    if (!prepared) return metadataError(c, 404, 'not found', `Group "${name}" has no schema.`);
    c.header('ETag', prepared.etag);
    if (noneMatchHits(c.req.header('if-none-match'), prepared.etag)) return c.body(null, 304);
    // The stored text is JSON.stringify's output: answered as is, not parsed and re-serialized.
    return c.body(prepared.json, 200, { 'content-type': 'application/json' });
  });

  app.put('/custom-metadata/schema/:groupName', async (c) => {
    const name = group(c);
    if (typeof name !== 'string') return name;
    const body = await readJson(c);
    if (!body.ok) return metadataError(c, body.status, 'invalid body', body.message);
    const checked = checkSchemaBody(body.value);
    if (!checked.ok) return metadataError(c, 400, checked.error, checked.message);
    const existing = store.getGroup(name);
    if (existing) {
      const clashes = incompatibleChanges(store, name, existing.schema, checked.value);
      if (clashes.length) {
        return metadataError(
          c,
          409,
          'incompatible schema change',
          `Documents carry values for ${listText(clashes, true)}; their propertyType cannot change. Remove those values first, or add a new key.`,
        );
      }
    } else if (store.countGroups() >= MAX_GROUPS) {
      return metadataError(c, 400, 'too many groups', `At most ${MAX_GROUPS} groups can have a schema.`);
    }
    store.putGroup(name, checked.value);
    return c.json({});
  });

  app.delete('/custom-metadata/schema/:groupName', (c) => {
    const name = group(c);
    if (typeof name !== 'string') return name;
    if (!store.deleteGroup(name)) return metadataError(c, 404, 'not found', `Group "${name}" has no schema.`);
    return c.json({});
  });

  const docTarget = (c: Context<Env>): Response | { docId: string; name: string; schema: MetadataSchema } => {
    const name = group(c);
    if (typeof name !== 'string') return name;
    const docId = c.req.param('docId') ?? '';
    const issue = docIdProblem(docId);
    if (issue) return metadataError(c, 400, 'invalid document id', issue);
    const found = store.getGroup(name);
    if (!found) return metadataError(c, 404, 'not found', `Group "${name}" has no schema; define one before setting values.`);
    return { docId, name, schema: found.schema };
  };

  app.put('/document/:docId/custom-metadata/:groupName', async (c) => {
    const target = docTarget(c);
    if (target instanceof Response) return target;
    const body = await readJson(c);
    if (!body.ok) return metadataError(c, body.status, 'invalid body', body.message);
    const checked = checkValuesBody(body.value, target.schema);
    if (!checked.ok) return metadataError(c, 400, checked.error, checked.message);
    store.putDocValues(target.docId, target.name, checked.value);
    return c.json({});
  });

  app.delete('/document/:docId/custom-metadata/:groupName', (c) => {
    const target = docTarget(c);
    if (target instanceof Response) return target;
    store.deleteDocValues(target.docId, target.name);
    return c.json({});
  });

  app.notFound((c) => metadataError(c, 404, 'not found', `No endpoint ${c.req.method} ${new URL(c.req.url).pathname}.`));
  return app;
}
