/**
 * Name rules of the Custom Metadata API: group names and metadata key names are
 * alphanumeric, at most 50 characters, and compared ignoring case.
 */

export const NAME_MAX_LENGTH = 50;
export const NAME_RULE = 'letters and digits only (A–Z, a–z, 0–9), 1 to 50 characters; case is ignored';
const NAME_PATTERN = /^[A-Za-z0-9]+$/;

/** Returns why `name` is not a valid group or key name, or null when it is. */
export function nameProblem(name: string, what: 'group name' | 'key name'): string | null {
  if (name.length === 0) return `The ${what} is empty.`;
  if (name.length > NAME_MAX_LENGTH) {
    return `The ${what} has ${name.length} characters; at most ${NAME_MAX_LENGTH} are allowed.`;
  }
  if (!NAME_PATTERN.test(name)) {
    return `The ${what} "${name}" has characters other than letters and digits.`;
  }
  return null;
}

export function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Document ids are opaque to this API but must be printable and reasonably short. */
export const DOC_ID_MAX_LENGTH = 1024;

export function docIdProblem(docId: string): string | null {
  if (docId.length === 0) return 'The document id is empty.';
  if (docId.length > DOC_ID_MAX_LENGTH) return `The document id is longer than ${DOC_ID_MAX_LENGTH} characters.`;
  // Control characters cannot be typed in a URL and would corrupt logs and keys.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(docId)) return 'The document id contains control characters.';
  // Servers refuse paths they might resolve: a backslash, or `.` / `..` between slashes.
  if (docId.includes('\\')) return 'The document id contains a backslash, which cannot travel in a URL path.';
  if (docId.split('/').some((part) => part === '.' || part === '..')) {
    return 'The document id has a "." or ".." part between slashes, which cannot travel in a URL path.';
  }
  return null;
}
