/**
 * `--replay DIR` at start: every recording of the directory read, checked against
 * docs/recording.schema.json and made ready to answer, or the start refused (exit 2) naming
 * the file. A directory is whatever someone put there, so it is bounded as a whole (files and
 * bytes read, a hard link counted as the file it is each time), a symbolic link is not
 * followed, a refusal prints nothing of what a file holds, and every name it prints has its
 * control characters escaped. What a start accepts is answered: nothing found later is a 500.
 */
import { Ajv } from 'ajv';
import { closeSync, constants, fstatSync, openSync, opendirSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, jsonText } from './json-text.ts';
import { printable } from './printable.ts';
import type { Recording } from './recording.ts';

/** A recording as the replay matches it and answers from it. */
export interface LoadedRecording {
  file: string;
  recording: Recording;
  method: string;
  pathname: string;
  query: [string, string][];
  /** The recorded request's JSON body as canonicalJson, made once at start: a request's body is compared with it as text. */
  bodyKey?: string;
  /** The body the answer sends (not for an event stream), made at start: however deep, it never fails a request. */
  answerText: string;
}

export interface ReplaySet {
  dir: string;
  recordings: LoadedRecording[];
}

/** A directory a replay cannot start on: said naming the file, and the start ends with exit code 2. */
export class ReplayRefusal extends Error {}

/**
 * What a replay reads at most (reference choice; README and docs/recording.md say them). A
 * session records some thousands of exchanges of kilobytes each; a replay keeps all of them in
 * memory, about three times their bytes. 24 links to one 190 MB file took the start to 4.4 GB.
 */
export const REPLAY_BOUNDS = {
  /** Recordings (`*.json` files) in the directory. */
  files: 10_000,
  /** Bytes of all the files read, each hard link counted as a file of its own. */
  totalBytes: 256 * 2 ** 20,
  /** Bytes of one file (a recorded body is bounded at 64 MB, which JSON may write at three times that). */
  fileBytes: 200 * 2 ** 20,
} as const;

const MB = 2 ** 20;
const SCHEMA_FILE = new URL('../../docs/recording.schema.json', import.meta.url);

/**
 * Response headers the connection owns: the replaying server frames its answer itself. A
 * recording made by the console's server never holds them (its headers are an allow-list);
 * a hand-written one may, and a recorded `content-length` would cut the body short.
 */
const CONNECTION_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'trailer', 'te', 'proxy-connection']);

/** Why a recorded response header cannot be sent, or undefined: checked at start, so a replay never answers 500 for it. */
function headerProblem(name: string, value: string): string | undefined {
  try {
    new Headers([[name, value]]);
    return undefined;
  } catch {
    return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)
      ? `the value of ${name} is not one a header can carry (a line break or a control character).`
      : `"${printable(name, 60)}" is not a header name.`;
  }
}

/**
 * Where a file stops being JSON, by line and column when the parser says: never what it holds
 * there (the parser's own message quotes the file, and a file copied in may be anyone's).
 */
function whereNotJson(text: string, err: unknown): string {
  const at = /at position (\d+)/.exec((err as Error).message)?.[1];
  if (at === undefined) return '';
  const before = text.slice(0, Number(at));
  return ` (line ${before.split('\n').length}, column ${before.length - before.lastIndexOf('\n')})`;
}

/** A JSON pointer into a file, as it can be printed: each step escaped and cut short. */
const printablePointer = (pointer: string) => pointer.split('/').map((step) => printable(step, 60)).join('/');

function splitPath(path: string): { pathname: string; query: [string, string][] } {
  const q = path.indexOf('?');
  const url = new URL(q < 0 ? path : path.slice(0, q), 'http://replay.invalid');
  return { pathname: url.pathname, query: q < 0 ? [] : [...new URLSearchParams(path.slice(q + 1))] };
}

/**
 * Recordings' names in the order they were recorded: by their leading number (padded to four
 * digits only, so "10000-…" sorts before "9999-…" as text), then by name.
 */
function byRecordedOrder(a: string, b: string): number {
  const n = (name: string) => Number(/^(\d+)-/.exec(name)?.[1] ?? Infinity);
  return n(a) - n(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** The recordings' names in `dir` (`*.json`, not hidden), refused past the count bound before any is read. */
function recordingNames(dir: string, shownDir: string): string[] {
  const names: string[] = [];
  let listing;
  try {
    listing = opendirSync(dir);
  } catch (err) {
    throw new ReplayRefusal(`--replay ${shownDir}: cannot read the directory (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`, { cause: err });
  }
  try {
    for (let entry = listing.readSync(); entry; entry = listing.readSync()) {
      if (!entry.name.endsWith('.json') || entry.name.startsWith('.')) continue;
      if (names.length === REPLAY_BOUNDS.files) {
        throw new ReplayRefusal(
          `--replay ${shownDir}: the directory holds more than ${REPLAY_BOUNDS.files.toLocaleString('en-US')} recordings (*.json); a replay reads that many at most. Split them into several directories.`,
        );
      }
      names.push(entry.name);
    }
  } finally {
    listing.closeSync();
  }
  return names.sort(byRecordedOrder);
}

/**
 * A recording file's text, read from what was opened: a named pipe or a link to a device said
 * 0 bytes to a stat and then was read for ever (a pipe waits for a writer, /dev/zero never ends).
 * Opened without blocking and without following a symbolic link, refused unless it is a regular
 * file, read up to its size, which counts against what the directory may hold.
 */
function readRecordingFile(full: string, shown: string, read: { bytes: number }): string {
  let fd: number;
  try {
    fd = openSync(full, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') {
      throw new ReplayRefusal(`--replay: ${shown} is a symbolic link; a replay reads only the files the directory holds, and follows no link. Copy the recording in instead.`, { cause: err });
    }
    throw new ReplayRefusal(`--replay: ${shown} cannot be read (${code ?? (err as Error).message}).`, { cause: err });
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new ReplayRefusal(`--replay: ${shown} is a directory, not a recording.`);
    if (!stat.isFile()) throw new ReplayRefusal(`--replay: ${shown} is not a regular file (a pipe, a device or a socket); a recording is a file.`);
    if (stat.size > REPLAY_BOUNDS.fileBytes) throw new ReplayRefusal(`--replay: ${shown} is larger than ${REPLAY_BOUNDS.fileBytes / MB} MB; it is no recording of this console.`);
    if (read.bytes + stat.size > REPLAY_BOUNDS.totalBytes) {
      throw new ReplayRefusal(
        `--replay: ${shown} takes the recordings read to more than ${REPLAY_BOUNDS.totalBytes / MB} MB (${Math.round(read.bytes / MB)} MB before it, ${Math.round(stat.size / MB)} MB in it), ` +
          'the most a replay reads (each hard link counted as a file of its own). Split the recordings into several directories.',
      );
    }
    read.bytes += stat.size;
    const buffer = Buffer.alloc(stat.size);
    let got = 0;
    for (let n = 1; n > 0 && got < stat.size; got += n) n = readSync(fd, buffer, got, stat.size - got, got);
    return buffer.subarray(0, got).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Every `*.json` file of `dir`, checked against docs/recording.schema.json, in the order they
 * were recorded (by their leading number). Throws ReplayRefusal, naming the file and what is
 * wrong, when one is not a recording the replay can answer from, or when there is none.
 */
export function loadRecordings(dir: string): ReplaySet {
  const shownDir = printable(dir);
  const names = recordingNames(dir, shownDir);
  if (!names.length) throw new ReplayRefusal(`--replay ${shownDir}: the directory holds no recordings (*.json). Record some with npm start -- --upstream URL --record ${shownDir}.`);
  const validate = new Ajv({ allErrors: false, strict: false }).compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object);
  const read = { bytes: 0 };
  const recordings = names.map((file): LoadedRecording => {
    const full = join(dir, file);
    const shown = printable(full);
    const text = readRecordingFile(full, shown, read);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new ReplayRefusal(`--replay: ${shown} is not JSON${whereNotJson(text, err)}.`, { cause: err });
    }
    if (!validate(value)) {
      const e = validate.errors?.[0];
      throw new ReplayRefusal(`--replay: ${shown} is not a recording (docs/recording.schema.json): ${printablePointer(e?.instancePath || '/')} ${e?.message ?? 'does not match'}.`);
    }
    const recording = value as Recording;
    const headers: Record<string, string> = {};
    for (const [name, headerValue] of Object.entries(recording.response.headers)) {
      const why = headerProblem(name, headerValue);
      if (why) throw new ReplayRefusal(`--replay: ${shown} has a response header it cannot answer with: ${why}`);
      if (!CONNECTION_HEADERS.has(name.toLowerCase())) headers[name] = headerValue;
    }
    recording.response.headers = headers;
    const r = recording.response;
    return {
      file,
      recording,
      method: recording.request.method,
      ...splitPath(recording.request.path),
      ...(recording.request.body !== undefined && { bodyKey: canonicalJson(recording.request.body) }),
      answerText: r.events ? '' : r.body !== undefined ? jsonText(r.body) : (r.bodyText ?? ''),
    };
  });
  return { dir, recordings };
}
