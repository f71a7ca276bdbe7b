/**
 * A secret (a token) taken out of text a server may have echoed it into, in every encoding it
 * may have used: as it is; percent-encoded, in either case (`%2F`, `%2f`), a character at a
 * time or not; JSON-escaped (`\/`, `\uXXXX` in either case); HTML-escaped, as an error page
 * echoing the Authorization header writes it (`&amp;`, `&quot;`, `&#47;`, `&#x2F;`); and base64, as `Basic`
 * credentials carry it (`user:TOKEN`, `TOKEN:`), where the whole base64 word goes. A server
 * answering `The token … is not valid here.` put the suite runner's TOKEN into its stdout,
 * JUnit and JSON; nothing the runner prints or writes holds it now.
 *
 * Pure, and linear in the text: the encodings of one character are an alternation, and base64
 * is found by plain search (a regular expression around a base64 word backtracks on a long one).
 */

export const REDACTED = '[redacted]';

/** Shorter secrets are not searched for: blanking every "abc" of an answer protects nothing. */
export const MIN_SECRET_LENGTH = 4;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** Two hex digits of a byte, either case: `%2[Ff]`. */
const hexEitherCase = (hex: string) => [...hex].map((d) => (/[0-9]/.test(d) ? d : `[${d.toUpperCase()}${d.toLowerCase()}]`)).join('');

function utf8Bytes(char: string): number[] {
  return [...new TextEncoder().encode(char)];
}

/** What JSON writes for these (and, `\/`, what some servers write for a slash). */
const JSON_SHORT_ESCAPES: Record<string, string> = { '/': '\\/', '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** What HTML writes for these by name. */
const HTML_NAMED_ESCAPES: Record<string, string[]> = { '&': ['&amp;'], '<': ['&lt;'], '>': ['&gt;'], '"': ['&quot;'], "'": ['&#39;', '&apos;'] };

/** Every way one character (a code point) may be written: as it is, percent-encoded, JSON-escaped, HTML-escaped. */
function characterForms(char: string): string {
  const forms = new Set<string>([escapeRegExp(char)]);
  forms.add(utf8Bytes(char).map((b) => `%${hexEitherCase(b.toString(16).padStart(2, '0'))}`).join(''));
  let units = '';
  for (let i = 0; i < char.length; i++) units += `\\\\u${hexEitherCase(char.charCodeAt(i).toString(16).padStart(4, '0'))}`;
  forms.add(units);
  const short = JSON_SHORT_ESCAPES[char];
  if (short) forms.add(escapeRegExp(short));
  if (char === ' ') forms.add('\\+');
  const cp = char.codePointAt(0)!;
  forms.add(`&#0*${cp};`);
  forms.add(`&#[xX]0*${hexEitherCase(cp.toString(16))};`);
  for (const named of HTML_NAMED_ESCAPES[char] ?? []) forms.add(escapeRegExp(named));
  return `(?:${[...forms].join('|')})`;
}

function base64(bytes: readonly number[], url: boolean): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  const b64 = btoa(binary);
  return url ? b64.replace(/\+/g, '-').replace(/\//g, '_') : b64;
}

/**
 * The base64 characters that hold the secret's bytes only, whatever comes before and after it:
 * one run for each of the three places a byte can start in a group of three, in both alphabets.
 */
function base64Cores(secret: string): string[] {
  const bytes = [...new TextEncoder().encode(secret)];
  const cores = new Set<string>();
  for (let k = 0; k < 3; k++) {
    const first = Math.ceil((8 * k) / 6);
    const last = Math.floor((8 * (k + bytes.length)) / 6);
    for (const url of [false, true]) {
      const core = base64([...new Array<number>(k).fill(0), ...bytes], url).slice(first, last);
      if (core.length >= MIN_SECRET_LENGTH) cores.add(core);
    }
  }
  return [...cores];
}

interface Finder {
  text: RegExp;
  cores: string[];
}

const finders = new Map<string, Finder>();

function finderOf(secret: string): Finder {
  let f = finders.get(secret);
  if (!f) {
    f = { text: new RegExp([...secret].map(characterForms).join(''), 'g'), cores: base64Cores(secret) };
    // A process holds one or two secrets; a long-lived page might see a few profiles' tokens.
    if (finders.size >= 16) finders.delete(finders.keys().next().value!);
    finders.set(secret, f);
  }
  return f;
}

const BASE64_CHAR = /[A-Za-z0-9+/_=-]/;

/** The text with every base64 word that holds the secret replaced whole. */
function withoutBase64(text: string, cores: readonly string[]): string {
  let out = text;
  for (const core of cores) {
    let at = out.indexOf(core);
    while (at !== -1) {
      let start = at;
      let end = at + core.length;
      while (start > 0 && BASE64_CHAR.test(out[start - 1]!) && out[start - 1] !== '=') start--;
      while (end < out.length && BASE64_CHAR.test(out[end]!)) end++;
      out = out.slice(0, start) + REDACTED + out.slice(end);
      at = out.indexOf(core, start + REDACTED.length);
    }
  }
  return out;
}

/** The secrets worth searching for: long enough, distinct. */
export function secretsOf(...values: (string | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v.length >= MIN_SECRET_LENGTH))];
}

/** `text` with every secret taken out, in every encoding above. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    const f = finderOf(secret);
    f.text.lastIndex = 0;
    out = out.replace(f.text, REDACTED);
    out = withoutBase64(out, f.cores);
  }
  return out;
}

const isPlain = (v: object) => {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * `value` with every secret taken out of every string in it, keys included. What holds none is
 * answered as it was (the same objects), so a result without an echo costs a walk, not a copy.
 * Only plain objects and arrays are walked; anything else (a Blob, a class) is kept as it is.
 */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  const used = secrets.filter((s) => s.length >= MIN_SECRET_LENGTH);
  if (!used.length) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactText(v, used);
    if (Array.isArray(v)) {
      let changed = false;
      const out = v.map((x) => {
        const y = walk(x);
        if (y !== x) changed = true;
        return y;
      });
      return changed ? out : v;
    }
    if (typeof v === 'object' && v !== null && isPlain(v)) {
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const key = redactText(k, used);
        const y = walk(x);
        if (y !== x || key !== k) changed = true;
        out[key] = y;
      }
      return changed ? out : v;
    }
    return v;
  };
  return walk(value) as T;
}
