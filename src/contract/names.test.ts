import { describe, expect, it } from 'vitest';
import { DOC_ID_MAX_LENGTH, docIdProblem, NAME_MAX_LENGTH, nameProblem, sameName } from './names.ts';

describe('nameProblem', () => {
  it.each(['sales', 'Sales', 'SALES2', '0', 'a'.repeat(NAME_MAX_LENGTH), 'dealNotes'])('accepts %j', (name) => {
    expect(nameProblem(name, 'group name')).toBeNull();
    expect(nameProblem(name, 'key name')).toBeNull();
  });

  it.each([
    ['empty', '', /empty/],
    ['51 characters', 'a'.repeat(NAME_MAX_LENGTH + 1), /51 characters.*at most 50/],
    ['a space', 'deal notes', /letters and digits/],
    ['an underscore', 'deal_notes', /letters and digits/],
    ['a hyphen', 'deal-notes', /letters and digits/],
    ['a dot', 'sales.eu', /letters and digits/],
    ['a slash', 'sa/les', /letters and digits/],
    ['parent segments', '..', /letters and digits/],
    ['NUL', 'sales\u0000', /letters and digits/],
    ['a trailing newline', 'sales\n', /letters and digits/],
    ['an accented letter', 'café', /letters and digits/],
    ['a Kelvin sign, which lowercases to k', '\u212A', /letters and digits/],
    ['fullwidth letters', 'ｓａｌｅｓ', /letters and digits/],
    ['a dotless i', 'hı', /letters and digits/],
    ['Arabic-Indic digits', '\u0661\u0662', /letters and digits/],
  ])('refuses a name with %s', (_what, name, why) => {
    expect(nameProblem(name, 'group name')).toMatch(why);
  });

  it('says which kind of name is wrong', () => {
    expect(nameProblem('', 'group name')).toContain('group name');
    expect(nameProblem('', 'key name')).toContain('key name');
  });
});

describe('sameName', () => {
  it.each([
    ['sales', 'SALES'],
    ['dealNotes', 'DEALNOTES'],
  ])('%s and %s are the same name', (a, b) => {
    expect(sameName(a, b)).toBe(true);
  });

  it.each([
    ['sales', 'sales2'],
    ['sales', 'sale'],
  ])('%s and %s are different', (a, b) => {
    expect(sameName(a, b)).toBe(false);
  });
});

describe('docIdProblem', () => {
  it.each([
    'DOC-1001',
    'https://example.com/docs/1?x=y#z',
    'folder/doc',
    '...',
    'a..b/c.d',
    'café',
    '文書-7',
    'doc-📄',
    ' padded ',
    'd'.repeat(DOC_ID_MAX_LENGTH),
  ])('accepts %j', (docId) => {
    expect(docIdProblem(docId)).toBeNull();
  });

  it('refuses an empty id', () => {
    expect(docIdProblem('')).toMatch(/empty/);
  });

  it('refuses an id over the length limit', () => {
    expect(docIdProblem('d'.repeat(DOC_ID_MAX_LENGTH + 1))).toMatch(/longer/);
  });

  it.each(['..', '.', '../..', 'folder/../doc', 'folder/.', './doc'])('refuses %j, whose dot parts a server would resolve', (docId) => {
    expect(docIdProblem(docId)).toMatch(/"\." or "\.\."/);
  });

  it('refuses a backslash', () => {
    expect(docIdProblem('folder\\doc')).toMatch(/backslash/);
  });

  it.each(['\u0000', '\u0001', '\t', '\n', '\r', '\u001f', '\u007f'])('refuses control character %j', (c) => {
    expect(docIdProblem(`doc${c}1`)).toMatch(/control characters/);
  });
});
