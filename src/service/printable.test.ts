import { expect, test } from 'vitest';
import { printable } from './printable.ts';

test('control, bidirectional and invisible characters, lone surrogates and the backslash are escaped; the rest is kept', () => {
  expect(printable('a\u001b[2Jb\u0007c\u007f\u009b31m')).toBe('a\\x1b[2Jb\\x07c\\x7f\\x9b31m');
  expect(printable('left\u202eright\u200b\u2066')).toBe('left\\u{202e}right\\u{200b}\\u{2066}');
  expect(printable('lone \ud83d, pair \ud83d\ude00, low \ude00')).toBe('lone \\u{d83d}, pair 😀, low \\u{de00}');
  expect(printable('C:\\x1b is text')).toBe('C:\\\\x1b is text');
  expect(printable('0001-post-api-agents-é-日本.json')).toBe('0001-post-api-agents-é-日本.json');
  expect(printable('\u001b'.repeat(10), 4)).toBe('\\x1b\\x1b\\x1b\\x1b…');
});
