import { describe, expect, it } from 'vitest';
import { MAX_DIFF_CHARS, wordDiff } from './word-diff';

describe('wordDiff', () => {
  it('marks the words only one answer has, keeping the rest as is', () => {
    const d = wordDiff('The report was filed today.', 'The report was submitted today.');
    expect(d.same).toBe(false);
    expect(d.parts.filter((p) => p.removed).map((p) => p.value)).toEqual(['filed']);
    expect(d.parts.filter((p) => p.added).map((p) => p.value)).toEqual(['submitted']);
    // Put together, the parts give back each text.
    expect(d.parts.filter((p) => !p.added).map((p) => p.value).join('')).toBe('The report was filed today.');
    expect(d.parts.filter((p) => !p.removed).map((p) => p.value).join('')).toBe('The report was submitted today.');
  });

  it('two equal answers are one part and the same', () => {
    expect(wordDiff('Hello there', 'Hello there')).toEqual({ parts: [{ value: 'Hello there' }], same: true });
    expect(wordDiff('', '')).toEqual({ parts: [], same: true });
  });

  it('answers that differ only past the length a word diff takes are still told apart, by their differing words', () => {
    const common = 'token '.repeat(20_000);
    const d = wordDiff(`${common}end A`, `${common}end B`);
    expect(d.same).toBe(false);
    expect(d.parts.filter((p) => p.removed).map((p) => p.value)).toEqual(['A']);
    expect(d.parts.filter((p) => p.added).map((p) => p.value)).toEqual(['B']);
    expect(d.truncatedAt).toBeUndefined();
    // The equal beginning is one part, not 40,000 words diffed.
    expect(d.parts[0]!.value).toBe(`${common}end `);
  });

  it('a differing middle longer than the limit is diffed at its start and marked whole after it', () => {
    const a = `Intro. ${'alpha beta '.repeat(5_000)}`;
    const b = `Intro. ${'alpha gamma '.repeat(5_000)}`;
    const d = wordDiff(a, b);
    expect(d.truncatedAt).toBe(MAX_DIFF_CHARS);
    // Whatever was or was not diffed word by word, the parts give back each text.
    expect(d.parts.filter((p) => !p.added).map((p) => p.value).join('')).toBe(a);
    expect(d.parts.filter((p) => !p.removed).map((p) => p.value).join('')).toBe(b);
  });

  it('two unrelated answers are marked whole rather than diffed word by word at any cost', () => {
    const a = Array.from({ length: 3_000 }, (_, i) => `a${i}`).join(' ');
    const b = Array.from({ length: 3_000 }, (_, i) => `b${i}`).join(' ');
    const d = wordDiff(a, b);
    expect(d.tooDifferent).toBe(true);
    expect(d.parts).toEqual([
      { value: a, removed: true },
      { value: b, added: true },
    ]);
  });

});
