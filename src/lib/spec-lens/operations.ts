/**
 * From a request (method and URL) and its answer's status and content type to the part of
 * the public spec that documents it: the operation, the response, the media type and its
 * schema.
 */
import { deref, fileOf, isObject, responseMediaPointer, type Json, type JsonObject, type NamedSpec } from '../../contract/openapi';

export interface OperationMatch {
  spec: NamedSpec;
  /** Upper case, as sent. */
  method: string;
  /** The spec's path template, e.g. `/custom-metadata/schema/{groupName}`. */
  template: string;
  /** The path parameters as they appeared in the URL (still percent-encoded). */
  params: Record<string, string>;
  operation: JsonObject;
}

export type OperationLookup = { found: OperationMatch } | { found: undefined; reason: string };

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

/** The path of a URL, absolute or origin-relative, without query or fragment. */
export function pathnameOf(url: string): string {
  try {
    return new URL(url, 'http://relative.invalid').pathname;
  } catch {
    return url.split(/[?#]/)[0] ?? url;
  }
}

function matchTemplate(template: string, rest: string): Record<string, string> | undefined {
  const want = template.split('/');
  const got = rest.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    const param = /^\{(.+)\}$/.exec(w);
    if (param) {
      if (!g) return undefined;
      params[param[1]!] = g;
    } else if (w !== g) return undefined;
  }
  return params;
}

const literalSegments = (template: string) => template.split('/').filter((s) => s && !s.startsWith('{')).length;

/**
 * The documented operation for `method url`. Each spec serves under its `x-base-path`
 * (`/rest/api/index`, `/rest/api/v1`, `/api`), which may itself sit under a prefix of the
 * instance URL; longer base paths are tried first, since `/api/` also occurs inside
 * `/rest/api/v1/`. Among templates that fit, the one with more literal segments wins
 * (`/agents/search` over `/agents/{agent_id}`).
 */
export function findOperation(specs: readonly NamedSpec[], method: string, url: string): OperationLookup {
  const { found, reason } = findOperations(specs, method, url);
  return found[0] ? { found: found[0] } : { found: undefined, reason };
}

/**
 * Each spec's operation for `method url` (its best fit, as findOperation chooses), in the
 * order findOperation tries them: where the first lacks an answer another describes (a status
 * the public cut does not list, that the client's models do), the caller goes on to the next.
 */
export function findOperations(specs: readonly NamedSpec[], method: string, url: string): { found: OperationMatch[]; reason: string } {
  const path = pathnameOf(url);
  const verb = method.toUpperCase();
  const byBase = [...specs].sort((a, b) => b.doc['x-base-path'].length - a.doc['x-base-path'].length);
  const found: OperationMatch[] = [];
  let pathOnly: string | undefined;
  for (const spec of byBase) {
    const one = findIn(spec, verb, path);
    if ('match' in one) found.push(one.match);
    else pathOnly ??= one.pathOnly;
  }
  return { found, reason: pathOnly ?? `The public spec documents no operation at ${path}.` };
}

/** One spec's operation for `verb path`, or why not (a path it documents for other methods). */
function findIn(spec: NamedSpec, verb: string, path: string): { match: OperationMatch } | { pathOnly?: string } {
  const base = spec.doc['x-base-path'].replace(/\/+$/, '');
  let pathOnly: string | undefined;
  for (let at = path.indexOf(`${base}/`); at !== -1; at = path.indexOf(`${base}/`, at + 1)) {
    const rest = path.slice(at + base.length);
    const fits = Object.keys(spec.doc.paths)
      .map((template) => ({ template, params: matchTemplate(template, rest) }))
      .filter((m): m is { template: string; params: Record<string, string> } => m.params !== undefined)
      .sort((a, b) => literalSegments(b.template) - literalSegments(a.template));
    for (const fit of fits) {
      const item = spec.doc.paths[fit.template]!;
      const operation = Object.entries(item).find(([m]) => METHODS.has(m) && m.toUpperCase() === verb)?.[1];
      if (operation) return { match: { spec, method: verb, template: fit.template, params: fit.params, operation } };
      pathOnly ??= `${fileOf(spec)} documents ${base}${fit.template}, but not for ${verb}.`;
    }
  }
  return { pathOnly };
}

/** `application/problem+json; charset=utf-8` → `application/problem+json`. */
export const essenceOf = (contentType: string) => contentType.split(';')[0]!.trim().toLowerCase();
export const isJsonType = (essence: string) => essence === 'application/json' || /^[\w.-]+\/[\w.+-]+\+json$/.test(essence);

export interface ResponseMatch {
  /** The key the status matched: `404`, `4XX` or `default`. */
  statusKey: string;
  response: JsonObject;
}

/** The documented response for `status`: the exact code, else its class (`4XX`), else `default`. */
export function findResponse(match: OperationMatch, status: number): ResponseMatch | undefined {
  const responses = match.operation.responses;
  if (!isObject(responses)) return undefined;
  const keys = [String(status), `${String(status)[0]}XX`, 'default'];
  for (const key of keys) {
    const found = Object.keys(responses).find((k) => k.toUpperCase() === key.toUpperCase());
    if (found === undefined) continue;
    const response = deref(match.spec.doc, responses[found]);
    if (response) return { statusKey: found, response };
  }
  return undefined;
}

export interface MediaMatch {
  /** The media type the documentation lists for this answer. */
  mediaType: string;
  schema: Json;
  /** Where the schema sits in the spec file (a JSON pointer): the name of its build-time validator. */
  pointer: string;
  /** The documented media type when the answer came with another one. */
  mismatch?: string;
}

/**
 * The documented body for an answer of `contentType`: the same media type, else (for a
 * JSON answer) the documented JSON type, so that an instance answering `application/json`
 * where the spec says `application/problem+json` is still checked, with the mismatch noted.
 */
export function findMedia(match: OperationMatch, response: ResponseMatch, contentType: string, wanted: 'json' | 'event-stream'): MediaMatch | undefined {
  const content = response.response.content;
  if (!isObject(content)) return undefined;
  const entries = Object.entries(content).filter(([, media]) => isObject(media) && media.schema !== undefined);
  const fitsWanted = ([type]: [string, Json]) => (wanted === 'json' ? isJsonType(essenceOf(type)) : essenceOf(type) === 'text/event-stream');
  const essence = essenceOf(contentType);
  const exact = entries.find(([type]) => essenceOf(type) === essence && fitsWanted([type, null]));
  const chosen = exact ?? entries.find(fitsWanted);
  if (!chosen) return undefined;
  const [mediaType, media] = chosen as [string, JsonObject];
  return {
    mediaType,
    schema: media.schema!,
    pointer: responseMediaPointer(match.operation.responses as JsonObject, match.template, match.method, response.statusKey, mediaType),
    mismatch: exact || !essence ? undefined : mediaType,
  };
}
