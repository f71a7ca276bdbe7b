import { describe, expect, it } from 'vitest';
import { CHUNK_CHARS, sealed, Transcript } from './transcript';

describe('sealed', () => {
  it('seals after a newline from CHUNK_CHARS, after whitespace from twice that, anywhere from four times', () => {
    expect(sealed('a'.repeat(CHUNK_CHARS - 2) + '\n')).toBe(false);
    expect(sealed('a'.repeat(CHUNK_CHARS - 1) + '\n')).toBe(true);
    expect(sealed('a'.repeat(CHUNK_CHARS - 1) + ' ')).toBe(false);
    expect(sealed('a'.repeat(2 * CHUNK_CHARS - 1) + ' ')).toBe(true);
    expect(sealed('a'.repeat(4 * CHUNK_CHARS - 1))).toBe(false);
    expect(sealed('a'.repeat(4 * CHUNK_CHARS))).toBe(true);
  });
});

describe('Transcript', () => {
  it('keeps every character in order while only the last chunk grows', () => {
    const t = new Transcript();
    const parts = Array.from({ length: 3000 }, (_, i) => (i % 40 === 39 ? `line ${i}\n` : `w${i} `));
    // A chunk, once another follows it, never changes again.
    const whenSealed: string[] = [];
    for (const p of parts) {
      t.append(p);
      while (whenSealed.length < t.chunks.length - 1) whenSealed.push(t.chunks[whenSealed.length]!);
    }
    expect(t.text).toBe(parts.join(''));
    expect(t.chunks.slice(0, -1)).toEqual(whenSealed);
    expect(whenSealed.length).toBeGreaterThan(10);
    expect(t.chunks.slice(0, -1).every((c) => c.endsWith('\n'))).toBe(true);
  });

  it('never splits one message’s text across chunks', () => {
    const t = new Transcript();
    t.append('x'.repeat(4 * CHUNK_CHARS));
    t.append('the whole message');
    expect(t.chunks).toEqual(['x'.repeat(4 * CHUNK_CHARS), 'the whole message']);
  });

  it('drops a tail only when the text ends with it', () => {
    const t = new Transcript();
    t.append('Working. ');
    t.append('Error: boom');
    expect(t.dropTail('Error: bang')).toBe(false);
    expect(t.dropTail('')).toBe(false);
    expect(t.text).toBe('Working. Error: boom');
    expect(t.dropTail('Error: boom')).toBe(true);
    expect(t.text).toBe('Working. ');
  });
});
