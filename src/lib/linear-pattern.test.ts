import { describe, expect, it } from 'vitest';
import { linearPattern } from './linear-pattern';

const matcher = (source: string) => {
  const p = linearPattern(source);
  if (!p.ok) throw new Error(`not taken: ${p.why}`);
  return p;
};

describe('linearPattern', () => {
  it('answers a catastrophic pattern against a long non-matching input at once', () => {
    const p = matcher('^(a+)+$');
    const started = performance.now();
    expect(p.test(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(p.test('a'.repeat(100_000))).toBe(true);
    // The backtracking engine would not end; linear time is milliseconds (a generous bound for a loaded machine).
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('agrees with the browser’s engine on the syntax both take, JavaScript’s meaning of \\s, . and \\u included', () => {
    const patterns = ['^[a-z]+\\d{2,3}$', '^\\s+$', '^\\S+$', 'a.b', '^[\\s,]+$', '\\u00e9', '^(?<word>\\w+)$', '^[^]*$', 'x{2,}', '^\\p{L}+$', '[\\]]', '\\/', '^[^\\d]+$', 'a[]b'];
    const inputs = ['', 'abc12', 'abc1234', ' \t', '\u00a0\u2003', 'a\nb', 'a\rb', 'axb', 'a\u2028b', ', ,', 'é', 'café', 'word_1', 'xx', ']', '/', 'Ωmega', '12'];
    for (const source of patterns) {
      const p = matcher(source);
      const native = new RegExp(source, 'u');
      for (const input of inputs) expect(p.test(input), `${source} on ${JSON.stringify(input)}`).toBe(native.test(input));
    }
  });

  it('says why it cannot take lookaround, backreferences or \\S inside a class', () => {
    for (const source of ['^(?=.*\\d).+$', '(a)\\1', '[\\S]', '(?<!x)y']) {
      const p = linearPattern(source);
      expect(p.ok, source).toBe(false);
      if (!p.ok) expect(p.why).toMatch(/^the page matches patterns in linear time \(RE2\), which does not take this one: /);
    }
  });
});
