/**
 * What a recording must not hold, and how it is taken out: every secret a request carried
 * (its bearer token, its cookies' values, the value of any header or query parameter named
 * like a secret) and every one-time secret its answer handed out (a consent link's state, an
 * OAuth code, an issued token) is replaced by "[redacted]" wherever it appears in the
 * recording, however encoded.
 */
import type { IncomingMessage } from 'node:http';
import { Decoded, decodedOnce, folded, hasEscapes } from './echo-decode.ts';
import { RECORDED_REQUEST_HEADERS, REDACTED, SECRET_NAME, type Recording } from './recording.ts';

/** Secrets shorter than this are not searched for in the rest of the recording (a cookie "theme=1" is no secret worth blanking every "1" for). */
const MIN_SECRET_LENGTH = 8;

/** Words of an Authorization value that are its scheme, not its secret. */
const SCHEMES = /^(bearer|basic|digest|token|negotiate)$/i;

/** The user:password of a `Basic` credential, when `value` is one. */
function basicCredential(value: string): string | undefined {
  const m = /^basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(value);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  return decoded.includes(':') && !decoded.includes('\ufffd') ? decoded : undefined;
}

/**
 * A header's value as Node reads it is Latin-1, one character a byte; a client that sent UTF-8
 * there (a token with "é") is echoed by the upstream as the UTF-8 it meant: both are sought.
 */
function asUtf8(value: string): string | undefined {
  if (!/[\u0080-\u00ff]/.test(value) || /[\u0100-\uffff]/.test(value)) return undefined;
  const decoded = Buffer.from(value, 'latin1').toString('utf8');
  return decoded.includes('\ufffd') ? undefined : decoded;
}

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
    for (const raw of Array.isArray(value) ? value : [value]) {
      for (const v of [raw, asUtf8(raw)]) {
        if (v === undefined) continue;
        add(v);
        // "Bearer abc", "session=abc; theme=dark", "k1=v1, k2=v2": each part on its own as well.
        for (const part of v.split(/[;,\s]+/)) {
          add(part);
          const eq = part.indexOf('=');
          if (eq > 0) add(part.slice(eq + 1));
        }
        // "Basic dXNlcjpzM2NyM3Q=": the user:password it stands for, and the password, which an upstream may echo as they are.
        const credential = basicCredential(v);
        if (credential !== undefined) {
          add(credential);
          add(credential.slice(credential.indexOf(':') + 1));
        }
      }
    }
  }
  const query = path.indexOf('?');
  if (query >= 0) {
    for (const [name, value] of new URLSearchParams(path.slice(query + 1))) if (SECRET_NAME.test(name)) add(value);
  }
  return [...found].sort((a, b) => b.length - a.length);
}

// --- One-time secrets an answer hands out ---------------------------------------------------

/**
 * URL parameters (query or fragment) whose value, in an answer, is a one-time secret or a
 * credential: a consent link's `state`, an OAuth `code`, a `nonce`, a signed link's
 * `signature`, an issued `access_token`. (Not `auth…` alone: `authuser=0` is none.)
 */
const ANSWER_SECRET_PARAM =
  /^(state|code|nonce|otp|ticket|session_state|code_verifier|oauth_token|oauth_verifier|samlrequest|samlresponse|relaystate)$|token|secret|passw|signature|^sig$|credential|jwt|^key$|api_?key|access_?key|session/i;

/** Fields of an answer's JSON whose string value is a secret it hands out (not `authStatus` or `authType`: no `auth` alone). */
const ANSWER_SECRET_FIELD = /token|secret|passw|credential|jwt|cookie|api_?key|access_?key|private_?key|signature|^sig$|^nonce$|^otp$|code_verifier/i;

/** A URL parameter in text: its separator, name and value (up to what ends a URL in text, JSON or a header). */
const URL_PARAM = /([?&#;])([A-Za-z0-9_.-]+)=([^&#;,\s"'<>()[\]\\]*)/g;

/** A JSON field with a string value, in JSON text (an event's data, a body kept as text). */
const JSON_STRING_FIELD = /"((?:[^"\\]|\\.)*)"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g;

const jsonText = (escaped: string): string | undefined => {
  try {
    return JSON.parse(`"${escaped}"`) as string;
  } catch {
    return undefined;
  }
};

/** Collects what an answer hands out and replaces it where it stands. */
class AnswerSecrets {
  readonly found = new Set<string>();

  private keep(value: string | undefined): void {
    if (value) this.found.add(value);
  }

  /** `text` with its one-time URL parameters' values and its JSON secret fields' values replaced; each is kept, decoded too. */
  text(text: string): string {
    // A URL inside JSON or inside another URL is found decoded (its & a \u0026 or %26): the values go into `found`.
    const once = hasEscapes(text) ? decodedOnce(text) : text;
    for (const level of new Set([once, hasEscapes(once) ? decodedOnce(once) : once])) {
      for (const [, , name, value] of level.matchAll(URL_PARAM)) if (ANSWER_SECRET_PARAM.test(name!)) this.keep(value);
    }
    return text
      .replace(URL_PARAM, (all, separator: string, name: string, value: string) => {
        if (!value || !ANSWER_SECRET_PARAM.test(name)) return all;
        this.keep(value);
        try {
          this.keep(decodeURIComponent(value));
        } catch {
          // Not percent-encoding after all: kept as it is.
        }
        return `${separator}${name}=${REDACTED}`;
      })
      .replace(JSON_STRING_FIELD, (all, key: string, colon: string, value: string) => {
        if (!ANSWER_SECRET_FIELD.test(jsonText(key) ?? key) || !value) return all;
        this.keep(jsonText(value));
        return `"${key}"${colon}"${REDACTED}"`;
      });
  }

  /** A parsed JSON body with its secret fields' values replaced, and its strings as `text` does. */
  json(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.json(v));
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        if (typeof v === 'string' && v && ANSWER_SECRET_FIELD.test(k)) {
          this.keep(v);
          return [k, REDACTED];
        }
        return [k, this.json(v)];
      }),
    );
  }
}

/**
 * Takes out of a recorded answer the one-time secrets it handed out (a consent link's state,
 * an OAuth code, an issued token): replaced where they stand, in its headers (a Link), its body
 * and its events. Answers them, to be replaced wherever else they appear, however encoded.
 * The client got the answer whole; only the recording goes without them.
 */
export function redactAnswer(response: Recording['response']): string[] {
  const secrets = new AnswerSecrets();
  for (const [name, value] of Object.entries(response.headers)) response.headers[name] = secrets.text(value);
  if (response.body !== undefined) response.body = secrets.json(response.body);
  if (response.bodyText !== undefined) response.bodyText = secrets.text(response.bodyText);
  for (const e of response.events ?? []) {
    e.data = secrets.text(e.data);
    if (e.id !== undefined) e.id = secrets.text(e.id);
    if (e.event !== undefined) e.event = secrets.text(e.event);
  }
  return [...secrets.found].filter((s) => s.length >= MIN_SECRET_LENGTH && s !== REDACTED);
}

// --- Finding a secret however it was echoed ------------------------------------------------

/*
 * A server may echo a secret in another encoding than the one it came in, each character on
 * its own (it escapes some characters and not others): percent-encoded UTF-8 with hex in either
 * case, `+` for a space, JSON escapes (`\/ \" \\ \n …`, `\uXXXX` of any character in either
 * case), and one over the other (a URL in a URL: `%252F`; JSON in JSON: `\\/`, `\\u002b`; JSON
 * in a URL: `%5C%2F`, `%5Cu002b`). So the text is decoded once and twice, the secret (and what
 * it decodes to, for one that holds `%41` or `\/`) is sought in each, `+` and space compared
 * as one, and replaced where it came from. And base64: the characters a secret's bytes make
 * inside any base64 text (a `Basic` credential `user:secret`), and the base64 run around them.
 * An encoder escapes its own `%` or backslash: a raw backslash before `\u003a` is read as the
 * escape it looks like.
 */

/**
 * The base64 a secret takes inside any base64 text (a `Basic` credential `user:secret` or
 * `secret:`, whatever the user name's length): for each of the three alignments a secret can
 * start at, the characters made of its bytes alone, in both alphabets.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores = new Set<string>();
  for (let skip = 0; skip < 3; skip++) {
    const whole = bytes.subarray(skip, skip + Math.floor((bytes.length - skip) / 3) * 3);
    // Six bytes make eight characters: no shorter core is looked for, as no shorter secret is.
    if (whole.length < 6) continue;
    cores.add(whole.toString('base64'));
    cores.add(whole.toString('base64url'));
  }
  return [...cores];
}

const BASE64_CHAR = /[A-Za-z0-9+/_-]/;
const BASE64_ENCODED = /^(?:%2[BbFf]|%3[Dd]|\\\/)/;

/** `at` moved left over the base64 (raw, or with `+ /` encoded) that ends there. */
function base64Start(text: string, at: number): number {
  for (;;) {
    if (at > 0 && BASE64_CHAR.test(text[at - 1]!)) at--;
    else if (at >= 3 && /^%2[BbFf]$/.test(text.slice(at - 3, at))) at -= 3;
    else if (at >= 2 && text.slice(at - 2, at) === '\\/') at -= 2;
    else return at;
  }
}

/** `at` moved right over the base64 (raw, or with `+ / =` encoded) and the padding that start there. */
function base64End(text: string, at: number): number {
  for (;;) {
    if (at < text.length && (BASE64_CHAR.test(text[at]!) || text[at] === '=')) at++;
    else {
      const m = BASE64_ENCODED.exec(text.slice(at, at + 3));
      if (!m) return at;
      at += m[0].length;
    }
  }
}

/** A string sought, and whether it is base64 (then the run around it goes too). */
interface Sought {
  text: string;
  base64: boolean;
}

/** Replaces every secret in text, however a server may have written it (see above). */
export class Redactor {
  private readonly sought: Sought[];

  constructor(secrets: readonly string[]) {
    const all = new Map<string, boolean>();
    const add = (text: string, base64: boolean) => {
      // What a secret decodes to may be short ("%41%42…"): no shorter string is sought than a secret may be.
      for (const form of [text, decodedOnce(text), decodedOnce(decodedOnce(text))].map(folded)) if (form.length >= MIN_SECRET_LENGTH && !all.has(form)) all.set(form, base64);
    };
    // A secret that holds another is found where that one is: only the others are sought.
    const least = secrets.filter((a) => !secrets.some((b) => b !== a && a.includes(b)));
    for (const secret of least) add(secret, false);
    for (const core of least.flatMap(base64Cores)) add(core, true);
    this.sought = [...all].map(([text, base64]) => ({ text, base64 }));
  }

  text(text: string): string {
    if (!this.sought.length) return text;
    const found: [number, number, boolean][] = [];
    const search = (level: string, toSource: (start: number, end: number) => [number, number]) => {
      for (const { text: s, base64 } of this.sought) {
        for (let at = level.indexOf(s); at >= 0; at = level.indexOf(s, at + s.length)) found.push([...toSource(at, at + s.length), base64]);
      }
    };
    search(folded(text), (a, b) => [a, b]);
    // Decoded only where there is something to decode: most text has no % or backslash.
    if (hasEscapes(text)) {
      const once = new Decoded(text);
      search(folded(once.text), (a, b) => once.sourceRange(a, b));
      if (hasEscapes(once.text)) {
        const twice = new Decoded(once.text);
        search(folded(twice.text), (a, b) => once.sourceRange(...twice.sourceRange(a, b)));
      }
    }
    if (!found.length) return text;
    for (const f of found) if (f[2]) [f[0], f[1]] = [base64Start(text, f[0]), base64End(text, f[1])];
    found.sort((a, b) => a[0] - b[0]);
    let out = '';
    let done = 0;
    for (const [start, end] of found) {
      if (end <= done) continue;
      out += text.slice(done, Math.max(done, start)) + REDACTED;
      done = end;
    }
    return out + text.slice(done);
  }
}

/** `value` with every secret replaced in every string, keys included. */
export function scrub<T>(value: T, secrets: readonly string[]): T {
  if (!secrets.length) return value;
  const redactor = new Redactor(secrets);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactor.text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [redactor.text(k), walk(x)]));
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
