/**
 * A suite as one JSON file (docs/suite-file.schema.json, docs/suite-file.md): what **Export
 * suite** writes, what import and `npm run suite` read. A file that is not one is refused with
 * each problem's place in it: line and column, the case by its name, the JSON path.
 */

import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import schema from '../../../docs/suite-file.schema.json';
import { linearPatternProblem } from '../../lib/linear-pattern';
import type { SchemaError } from '../../contract/agent-input';
import { nestsDeeperThan } from '../../contract/json-depth';
import { compileSchemaCheck, type SchemaCheck } from '../../lib/schema-check';
import type { Suite, SuiteCase } from './suite';

export const SUITE_FILE_FORMAT = 'metadata-agents-console/suite';
/** A suite file read at most this large. */
export const MAX_SUITE_FILE_BYTES = 20 * 1024 * 1024;

export interface SuiteFile {
  format: typeof SUITE_FILE_FORMAT;
  version: 1;
  exportedAt?: string;
  suite: { name: string };
  cases: SuiteCase[];
}

/** The file of a suite: its name and cases; nothing of where it ran. */
export function suiteFileOf(suite: Pick<Suite, 'name' | 'cases'>, now = new Date()): SuiteFile {
  return {
    format: SUITE_FILE_FORMAT,
    version: 1,
    exportedAt: now.toISOString(),
    suite: { name: suite.name },
    // Only the case's own members, so nothing the console adds to a stored case leaks into a file.
    cases: suite.cases.map((c) => ({
      id: c.id,
      name: c.name,
      agent: { id: c.agent.id, ...(c.agent.name !== undefined && { name: c.agent.name }) },
      api: c.api,
      mode: c.mode,
      ...(c.input !== undefined && { input: c.input }),
      ...(c.messages !== undefined && { messages: c.messages }),
      ...(c.timeoutMs !== undefined && { timeoutMs: c.timeoutMs }),
      ...(c.deadlineMs !== undefined && { deadlineMs: c.deadlineMs }),
      ...(c.policy !== undefined && { policy: c.policy }),
      assertions: c.assertions,
      ...(c.rows?.length && { rows: c.rows }),
    })),
  };
}

export type ParsedSuiteFile = { ok: true; file: SuiteFile } | { ok: false; problems: string[] };

let check: SchemaCheck | undefined;
/** The schema of one case (its definitions with it), to walk a file case by case. */
let caseCheck: SchemaCheck | undefined;

/** Problems a refused file lists at most. */
const MAX_PROBLEMS = 20;
/** Cases a suite holds at most (the schema's maxItems). */
const MAX_CASES = schema.properties.cases.maxItems;
/**
 * Deepest nesting a suite file may have: far past any case (a schema in one is refused past
 * 128 levels), and well within what the JSON reader, which recurses, can walk.
 */
const MAX_NESTING = 1_000;
/**
 * Assertions a whole file holds, counted before the schema walk: checking one costs about
 * 130 µs, so 300,000 valid ones (16 MB) held the page's import and the CLI for 40 s.
 */
export const MAX_FILE_ASSERTIONS = 20_000;

/** Line and column (from 1) of a character offset. */
function lineColumn(text: string, offset: number): string {
  let line = 1;
  let last = -1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    last = i;
  }
  return `${line}:${offset - last}`;
}

function segmentsOf(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** `cases[2] “Echo hello” › assertions[0] › kind`: the JSON path in words, a case named by its name. */
function pathWords(segments: readonly (string | number)[], json: unknown): string {
  const out: string[] = [];
  let value: unknown = json;
  for (const s of segments) {
    value = typeof value === 'object' && value !== null ? (value as Record<string | number, unknown>)[s] : undefined;
    if (typeof s === 'number') {
      const named = out.length === 1 && out[0] === 'cases' && typeof (value as { name?: unknown })?.name === 'string' ? ` “${(value as { name: string }).name}”` : '';
      out[out.length - 1] += `[${s}]${named}`;
    } else out.push(s);
  }
  return out.join(' › ') || '(the file)';
}

/** Where a JSON pointer is in the text: `name:line:column`. */
function placeOf(name: string, text: string, root: Node | undefined, segments: (string | number)[]): string {
  // The deepest node the path reaches: a member the file lacks is placed at the object that lacks it.
  for (let n = segments.length; n >= 0; n--) {
    const node = root && findNodeAtLocation(root, segments.slice(0, n));
    if (node) return `${name}:${lineColumn(text, node.offset)}`;
  }
  return name;
}

function assertionsIn(cases: readonly unknown[]): number {
  let n = 0;
  for (const c of cases) {
    const a = typeof c === 'object' && c !== null ? (c as { assertions?: unknown }).assertions : undefined;
    if (Array.isArray(a)) n += a.length;
  }
  return n;
}

/** The parser's syntax error, in words a person editing the file reads ("a comma is missing here"), not its code name. */
function syntaxWords(code: string): string {
  const missing: Record<string, string> = {
    PropertyNameExpected: 'a property name in double quotes',
    ValueExpected: 'a value',
    ColonExpected: 'a colon',
    CommaExpected: 'a comma',
    CloseBraceExpected: 'a }',
    CloseBracketExpected: 'a ]',
  };
  const other: Record<string, string> = {
    InvalidSymbol: 'this is not JSON (a word without quotes, or a comment)',
    InvalidNumberFormat: 'this number is not written as JSON writes numbers',
    EndOfFileExpected: 'the file goes on after its end',
    InvalidCommentToken: 'JSON has no comments',
    UnexpectedEndOfComment: 'JSON has no comments',
    UnexpectedEndOfString: 'this text is not closed with a double quote',
    UnexpectedEndOfNumber: 'this number ends too early',
    InvalidUnicode: 'this \\u escape is not four hexadecimal digits',
    InvalidEscapeCharacter: 'this backslash escape is not one JSON knows',
    InvalidCharacter: 'this character must be escaped inside text',
  };
  return missing[code] ? `${missing[code]} is missing here` : (other[code] ?? code);
}

/**
 * Reads a suite file, or says every problem (up to 20) with its place: the JSON's own syntax
 * errors by line and column, then what the schema refuses, then cases that share an id, a
 * pattern that cannot be matched in linear time, a JSON Schema that cannot be used.
 */
export function parseSuiteFile(text: string, name = 'the file'): ParsedSuiteFile {
  // A byte order mark some editors write (Windows Notepad, Excel) is not the JSON's: without it the file is the same.
  text = text.replace(/^\uFEFF/, '');
  if (nestsDeeperThan(text, MAX_NESTING)) return { ok: false, problems: [`${name}: nested more than ${MAX_NESTING.toLocaleString('en-US')} levels deep: not a suite file`] };
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  if (errors.length || !root) {
    // The first syntax error is the one to fix: those after it follow from it.
    const problems = errors.slice(0, 1).map((e) => `${name}:${lineColumn(text, e.offset)}: not valid JSON: ${syntaxWords(printParseErrorCode(e.error))}`);
    return { ok: false, problems: problems.length ? problems : [`${name}: empty, not a suite file`] };
  }
  const json: unknown = JSON.parse(text);
  if (typeof json !== 'object' || json === null || (json as { format?: unknown }).format !== SUITE_FILE_FORMAT) {
    return { ok: false, problems: [`${name}:${lineColumn(text, root.offset)}: not a suite file: it needs "format": "${SUITE_FILE_FORMAT}" (docs/suite-file.md)`] };
  }
  check ??= compileSchemaCheck(schema);
  caseCheck ??= compileSchemaCheck({ $schema: schema.$schema, definitions: schema.definitions, allOf: [{ $ref: '#/definitions/case' }] });
  const problems: string[] = [];
  // One problem per place: an if/then that failed says so once, after what failed inside it.
  const seen = new Set<string>();
  const report = (schemaErrors: readonly SchemaError[], prefix: string) => {
    for (const e of schemaErrors) {
      const instancePath = prefix + e.instancePath;
      if (problems.length >= MAX_PROBLEMS) return;
      if (e.keyword === 'if' || seen.has(instancePath)) continue;
      seen.add(instancePath);
      const segments = segmentsOf(instancePath);
      const allowed = e.keyword === 'enum' && Array.isArray((e.params as { allowedValues?: unknown }).allowedValues) ? ` (${((e.params as { allowedValues: unknown[] }).allowedValues).join(', ')})` : '';
      const extra = e.keyword === 'additionalProperties' ? ` (“${String((e.params as { additionalProperty?: unknown }).additionalProperty)}”)` : '';
      problems.push(`${placeOf(name, text, root, segments)}: ${pathWords(segments, json)}: ${e.message}${allowed}${extra}`);
    }
  };
  // The cases one at a time, up to the problems shown: the schema walker gathers every error of
  // a value into one list (40,000 problems overflowed its spread), and a file of 5,000 cases
  // with a problem each need not be walked whole to say its first twenty.
  const cases = (json as { cases?: unknown }).cases;
  if (!Array.isArray(cases)) report(check(json), '');
  else if (cases.length > MAX_CASES) report([{ instancePath: '/cases', keyword: 'maxItems', message: `must NOT have more than ${MAX_CASES} items`, params: { limit: MAX_CASES }, schemaPath: '#/properties/cases/maxItems' }], '');
  else if (assertionsIn(cases) > MAX_FILE_ASSERTIONS) {
    problems.push(`${name}: ${assertionsIn(cases).toLocaleString('en-US')} assertions in all; a suite file holds at most ${MAX_FILE_ASSERTIONS.toLocaleString('en-US')}: split it into several suites`);
  } else {
    report(check({ ...json, cases: [] }), '');
    for (let i = 0; i < cases.length && problems.length < MAX_PROBLEMS; i++) report(caseCheck(cases[i]), `/cases/${i}`);
  }
  if (problems.length) return { ok: false, problems };
  const file = json as SuiteFile;
  const ids = new Map<string, number>();
  const schemaProblems = new Map<string, string>();
  file.cases.forEach((c, i) => {
    const at = (rest: (string | number)[]) => `${placeOf(name, text, root, ['cases', i, ...rest])}: ${pathWords(['cases', i, ...rest], json)}`;
    const first = ids.get(c.id);
    if (first !== undefined) problems.push(`${at(['id'])}: the same id as cases[${first}]; each case needs its own`);
    else ids.set(c.id, i);
    c.assertions.forEach((a, j) => {
      if (a.kind === 'answer-matches') {
        // Checked, not kept: the run compiles what it uses.
        const why = linearPatternProblem(a.pattern);
        if (why) problems.push(`${at(['assertions', j, 'pattern'])}: the pattern cannot be used: ${why}`);
      }
      if (a.kind === 'answer-schema' && a.schema) {
        // A schema repeated across cases is compiled once: 300,000 compiled one by one took 51 s.
        const key = JSON.stringify(a.schema);
        let why = schemaProblems.get(key);
        if (why === undefined) {
          try {
            compileSchemaCheck(a.schema);
            why = '';
          } catch (err) {
            why = err instanceof Error ? err.message : String(err);
          }
          schemaProblems.set(key, why);
        }
        if (why) problems.push(`${at(['assertions', j, 'schema'])}: not a usable JSON Schema: ${why}`);
      }
    });
  });
  return problems.length ? { ok: false, problems: problems.slice(0, MAX_PROBLEMS) } : { ok: true, file };
}
