/**
 * What a recording must not hold, and how it is taken out: every secret a request carried
 * (its bearer token, its cookies' values, the value of any header or query parameter named
 * like a secret) is replaced by "[redacted]" wherever it appears in the recording.
 */
import type { IncomingMessage } from 'node:http';
import { RECORDED_REQUEST_HEADERS, REDACTED, SECRET_NAME } from './recording.ts';

/** Secrets shorter than this are not searched for in the rest of the recording (a cookie "theme=1" is no secret worth blanking every "1" for). */
const MIN_SECRET_LENGTH = 8;

/** Words of an Authorization value that are its scheme, not its secret. */
const SCHEMES = /^(bearer|basic|digest|token|negotiate)$/i;

/** Every secret `req` carries: what a recording must not hold anywhere. */
export function secretsOf(headers: IncomingMessage['headers'], path: string): string[] {
  const found = new Set<string>();
  const add = (v: string | undefined) => {
    const s = v?.trim();
    if (s && s.length >= MIN_SECRET_LENGTH && !SCHEMES.test(s)) found.add(s);
  };
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || (RECORDED_REQUEST_HEADERS as readonly string[]).includes(name)) continue;
    if (!SECRET_NAME.test(name) && name !== 'authorization' && name !== 'cookie' && name !== 'proxy-authorization') continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      add(v);
      // "Bearer abc", "session=abc; theme=dark", "k1=v1, k2=v2": each part on its own as well.
      for (const part of v.split(/[;,\s]+/)) {
        add(part);
        const eq = part.indexOf('=');
        if (eq > 0) add(part.slice(eq + 1));
      }
    }
  }
  const query = path.indexOf('?');
  if (query >= 0) {
    for (const [name, value] of new URLSearchParams(path.slice(query + 1))) if (SECRET_NAME.test(name)) add(value);
  }
  return [...found].sort((a, b) => b.length - a.length);
}

/** Replaces every secret in `text`, as it is and percent-encoded. */
function scrubText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    for (const form of new Set([s, encodeURIComponent(s), encodeURIComponent(s).replace(/%20/g, '+')])) {
      if (out.includes(form)) out = out.split(form).join(REDACTED);
    }
  }
  return out;
}

/** `value` with every secret replaced in every string, keys included. */
export function scrub<T>(value: T, secrets: readonly string[]): T {
  if (!secrets.length) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return scrubText(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [scrubText(k, secrets), walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** The path with the value of every query parameter named like a secret replaced. */
export function redactedPath(path: string): string {
  const q = path.indexOf('?');
  if (q < 0) return path;
  const params = new URLSearchParams(path.slice(q + 1));
  let changed = false;
  for (const [name] of params) {
    if (SECRET_NAME.test(name)) {
      params.set(name, REDACTED);
      changed = true;
    }
  }
  return changed ? `${path.slice(0, q)}?${params.toString()}` : path;
}
