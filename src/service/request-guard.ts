/**
 * Checks taken on a request before any route sees it, shared by the service and the
 * console server's upstream proxy: which Host names may be answered (DNS rebinding), and
 * which raw paths are refused rather than resolved.
 */

/** Loopback names; a browser sends one of these only when its page really is on this machine. */
const LOOPBACK_HOSTNAME = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** The hostname of a Host header, lower-cased, without its port (`[::1]` keeps its brackets). */
export function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.indexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTNAME.test(hostnameOf(host));
}

/**
 * True when a request naming `host` may be answered: a loopback name, or one given with
 * `--allowed-host`. A page of another site that re-points its own name at this machine
 * (DNS rebinding) still sends its own name as Host, so it is refused.
 */
export function isAllowedHost(host: string | undefined, allowed: readonly string[]): boolean {
  if (host === undefined || host === '') return false;
  const name = hostnameOf(host);
  return LOOPBACK_HOSTNAME.test(name) || allowed.some((a) => hostnameOf(a) === name);
}

const HOSTNAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$/i;

/** Splits `--allowed-host` values (repeatable, or comma lists) and says what is wrong with any. */
export function parseAllowedHosts(values: readonly string[]): { hosts: string[]; problem?: string } {
  const hosts = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
  const bad = hosts.filter((h) => !HOSTNAME.test(h));
  if (bad.length) {
    return { hosts, problem: `--allowed-host takes host names such as console.example.com (no scheme, port or path); not ${bad.map((b) => `"${b}"`).join(', ')}.` };
  }
  return { hosts: hosts.map((h) => h.toLowerCase()) };
}

/** The document route, whose id segment is opaque data: ids may be URLs, with their slashes encoded. */
const DOCUMENT_PATH = /^\/rest\/api\/index\/document\/([^/]*)\/custom-metadata\/[^/]*$/;
const DOC_ID_SEGMENT = 5;

const isDotSegment = (s: string) => {
  const d = s.replace(/%2e/gi, '.');
  return d === '.' || d === '..';
};

/**
 * Why a raw request path (as it arrived, before any URL parser) is refused, or null.
 * URL parsers resolve `.`, `..`, `%2e%2e` and (for http) `\` as path syntax, so
 * `/rest/api/%2e%2e/%2e%2e/sandbox/info` would reach another route than the one it names;
 * and a server behind may decode `%2f` into a separator. Such paths are refused, never
 * resolved. One exception: an encoded slash inside a document id, which is data (URL-shaped
 * ids), as long as no part of it is a dot segment once decoded.
 */
export function unsafePathProblem(rawPath: string): string | null {
  const path = rawPath.split('?', 1)[0]!;
  if (path.includes('\\') || /%5c/i.test(path)) return 'The path contains a backslash (or %5C); such paths are refused, not resolved.';
  const docPath = DOCUMENT_PATH.test(path);
  const segments = path.split('/');
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const opaque = docPath && i === DOC_ID_SEGMENT;
    if (!opaque && /%2f/i.test(segment)) return 'The path contains an encoded slash (%2F); such paths are refused, not resolved.';
    const parts = opaque ? segment.split(/%2f/i) : [segment];
    if (parts.some(isDotSegment)) {
      return 'The path contains a dot segment (. or .., also written %2E); such paths are refused, not resolved.';
    }
  }
  return null;
}
