/**
 * Conditional reads (RFC 9110, 13.1.2): schema answers carry an `ETag`, and a request whose
 * `If-None-Match` names it is answered 304 with no body, so a client that revalidates what
 * it holds pays for no body.
 */
import { createHash } from 'node:crypto';

/** A strong entity tag for `text`: its SHA-256, cut to 128 bits. */
export function etagOf(text: string): string {
  return `"${createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 22)}"`;
}

/** The same validator, weak: for an answer whose bytes differ per request (a request id) while its content does not. */
export function weakEtagOf(text: string): string {
  return `W/${etagOf(text)}`;
}

const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

/**
 * True when `ifNoneMatch` (the header's value) names `etag`, by the weak comparison
 * If-None-Match uses: `*`, or any tag of the list whose opaque part is the same.
 */
export function noneMatchHits(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const value = ifNoneMatch.trim();
  if (value === '*') return true;
  const want = opaque(etag);
  // Entity tags hold no commas (RFC 9110 etagc), so the list splits on them.
  for (const part of value.split(',')) if (opaque(part.trim()) === want) return true;
  return false;
}
