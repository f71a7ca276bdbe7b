/**
 * Patterns that arrive from an instance (an agent's `input_schema`), matched in time linear in
 * the input: RE2's engine (re2js, a pure JavaScript port that compiles no code, so the page's
 * policy allows it), never the browser's backtracking one, where `^(a+)+$` against "aaa…a!"
 * runs for longer than the age of the universe and freezes the tab.
 *
 * JSON Schema patterns are ECMAScript regular expressions (Ajv uses `new RegExp(p, "u")`).
 * RE2 takes most of that syntax; what it reads differently is translated first (`\s`, `.`,
 * `\u` escapes, named groups, `[^]`). What it does not take at all (lookaround,
 * backreferences, `\S` inside a class) cannot be matched in linear time: such a pattern is
 * reported as not checked, with why, and left to the service's own check.
 */
import { RE2JS } from 're2js';

export type LinearPattern = { ok: true; test(text: string): boolean } | { ok: false; why: string };

/** JavaScript's `\s` (WhiteSpace and LineTerminator), as the inside of an RE2 class. */
const JS_SPACE = '\\t\\n\\v\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
/** JavaScript's `.` without the `s` flag: anything but a line terminator. */
const JS_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

class Untranslatable extends Error {}

/** RE2 syntax for what RE2 would otherwise read differently from JavaScript. */
function translate(source: string): string {
  const re2 = RE2JS.translateRegExp(source);
  let out = '';
  let inClass = false;
  for (let i = 0; i < re2.length; i++) {
    const c = re2[i]!;
    if (c === '\\' && i + 1 < re2.length) {
      const next = re2[++i]!;
      if (next === 's') out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (next === 'S') {
        if (inClass) throw new Untranslatable('\\S inside a character class');
        out += `[^${JS_SPACE}]`;
      } else out += c + next;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
      if (re2[i + 1] === '^') out += re2[++i];
      // JavaScript's `[]` matches nothing (and `[^]` anything, translated above); in RE2 a `]` there is a literal.
      if (re2[i + 1] === ']') throw new Untranslatable('an empty character class');
    } else out += c === '.' ? JS_DOT : c;
  }
  return out;
}

const MAX_CACHED = 512;
/**
 * A longer source is compiled each time it is asked for, not kept: a pattern within a suite
 * file's 10,000 characters can compile to a program of about 35 MB (`(?:[a-z]{1000}|b)` 500
 * times), and 512 of them kept would hold gigabytes.
 */
const MAX_CACHED_SOURCE = 1_000;
const cache = new Map<string, LinearPattern>();

function compile(source: string): LinearPattern {
  try {
    const re = RE2JS.compile(translate(source));
    return { ok: true, test: (text) => re.test(text) };
  } catch (err) {
    const detail = err instanceof Error ? err.message.replace(/^error parsing regexp: /, '') : String(err);
    return { ok: false, why: `the page matches patterns in linear time (RE2), which does not take this one: ${detail}` };
  }
}

/**
 * The pattern, compiled for linear-time matching (`test` finds it anywhere in the text, as
 * `RegExp.prototype.test` does), or why it cannot be. Compiled once per source (a short one).
 */
export function linearPattern(source: string): LinearPattern {
  let p = cache.get(source);
  if (p) return p;
  p = compile(source);
  if (source.length > MAX_CACHED_SOURCE) return p;
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(source, p);
  return p;
}

/** Why the pattern cannot be matched in linear time, if it cannot: compiled and let go, for checking a file's many patterns. */
export function linearPatternProblem(source: string): string | undefined {
  const p = cache.get(source) ?? compile(source);
  return p.ok ? undefined : p.why;
}
