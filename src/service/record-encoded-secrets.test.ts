/**
 * A token echoed by the upstream in another encoding than the one it was sent in: the
 * recorder searched for it raw and as encodeURIComponent writes it, so a token with `/` and
 * `+` echoed percent-encoded in lower-case hex, or JSON-escaped (`\/`, `\u002b`), stayed in
 * the file. Properties over random tokens (with `/ + = % " \`, spaces and non-ASCII) and
 * random encodings of the echo, through the real proxy and recorder over HTTP: no encoding
 * of the token is left in the file, in a header, a body or an event; and a recording whose
 * exchange holds no token is the same as one made with no secret at all.
 */
import fc from 'fast-check';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Recorder } from './recorder.ts';
import { recordingOf, type ExchangeInput } from './recording-build.ts';
import { secretsOf } from './redact.ts';
import { upstreamProxy } from './upstream-proxy.ts';

// --- Encodings a server may echo a token in ---------------------------------------------------

const hex2 = (n: number, lower: boolean) => (lower ? n.toString(16).padStart(2, '0') : n.toString(16).padStart(2, '0').toUpperCase());
const hex4 = (n: number, lower: boolean) => (lower ? n.toString(16).padStart(4, '0') : n.toString(16).padStart(4, '0').toUpperCase());
const bytesOf = (ch: string) => [...Buffer.from(ch, 'utf8')];
/** Every byte as %XX. */
const pctAll = (t: string, lower = false) => [...t].map((ch) => bytesOf(ch).map((b) => `%${hex2(b, lower)}`).join('')).join('');
/** Every UTF-16 unit as \uXXXX. */
const jsonAll = (t: string, lower = true) => Array.from({ length: t.length }, (_, i) => `\\u${hex4(t.charCodeAt(i), lower)}`).join('');
const json = (t: string) => JSON.stringify(t).slice(1, -1);
const jsonSlash = (t: string) => json(t).replace(/\//g, '\\/');
/** As a JSON encoder that escapes everything but letters and digits (`\u002b`, `\u002f`, …). */
const jsonNonAlnum = (t: string, lower = true) => [...t].map((ch) => (/^[A-Za-z0-9]$/.test(ch) ? ch : jsonAll(ch, lower))).join('');
const lowerPct = (s: string) => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
const form = (t: string) => new URLSearchParams({ a: t }).toString().slice(2);
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

/** Encodings of a whole token, as servers write them, alone and combined. */
const WHOLE: Record<string, (t: string) => string> = {
  raw: (t) => t,
  encodeURIComponent: (t) => encodeURIComponent(t),
  'encodeURIComponent, lower-case hex': (t) => lowerPct(encodeURIComponent(t)),
  'every byte %XX': (t) => pctAll(t),
  'every byte %xx': (t) => pctAll(t, true),
  'form (+ for space)': form,
  'form, lower-case hex': (t) => lowerPct(form(t)),
  'JSON string': json,
  'JSON with \\/': jsonSlash,
  'JSON \\u of every char': (t) => jsonAll(t),
  'JSON \\U of every char': (t) => jsonAll(t, false),
  'JSON \\u but letters and digits': (t) => jsonNonAlnum(t),
  'JSON \\U but letters and digits': (t) => jsonNonAlnum(t, false),
  'percent-encoded twice': (t) => encodeURIComponent(encodeURIComponent(t)),
  'JSON-escaped twice': (t) => json(jsonSlash(t)),
  'JSON \\u inside JSON': (t) => json(jsonNonAlnum(t)),
  'percent-encoded JSON': (t) => encodeURIComponent(jsonSlash(t)),
  'percent-encoded JSON, lower-case hex': (t) => lowerPct(encodeURIComponent(jsonNonAlnum(t))),
  'JSON of percent-encoded, lower-case hex': (t) => json(lowerPct(encodeURIComponent(t))),
  'Basic user:token': (t) => b64(`user:${t}`),
  'Basic token:': (t) => b64(`${t}:`),
  'Basic a-longer-user:token': (t) => b64(`a-longer-user:${t}`),
  'base64url user:token': (t) => b64url(`ab:${t}`),
  'base64 of the token': (t) => b64(t),
  'Basic, percent-encoded': (t) => encodeURIComponent(b64(`user:${t}`)),
  'Basic, JSON with \\/': (t) => jsonSlash(b64(`usr:${t}`)),
};
const WHOLE_NAMES = Object.keys(WHOLE);

/** One character, as a server escaping some characters and not others writes it: as it is, percent-encoded, JSON-escaped. */
const PER_CHAR: { style: 'raw' | 'percent' | 'json'; write: (ch: string) => string }[] = [
  { style: 'raw', write: (ch) => ch },
  { style: 'percent', write: (ch) => pctAll(ch) },
  { style: 'percent', write: (ch) => pctAll(ch, true) },
  { style: 'json', write: (ch) => jsonAll(ch) },
  { style: 'json', write: (ch) => jsonAll(ch, false) },
  { style: 'json', write: (ch) => (ch === '/' ? '\\/' : ch === '"' ? '\\"' : ch === '\\' ? '\\\\' : jsonAll(ch)) },
  { style: 'percent', write: (ch) => (ch === ' ' ? '+' : encodeURIComponent(ch)) },
];

/**
 * `t` with each character written as `choices` says. An encoder that escapes a character with
 * `%` or a backslash escapes that `%` or backslash too, wherever it stands (else `\\u003a` would
 * be as much a backslash and "u003a" as a colon): so does this one.
 */
function mixed(t: string, choices: readonly number[]): string {
  const chars = [...t];
  const styles = new Set(chars.map((_, i) => PER_CHAR[choices[i]!]!.style));
  return chars
    .map((ch, i) => {
      if (ch === '\\' && styles.has('json')) return '\\\\';
      if (ch === '%' && styles.has('percent')) return '%25';
      return PER_CHAR[choices[i]!]!.write(ch);
    })
    .join('');
}

/** Each encoding's text for `token`: what must not be in a recording. */
function forms(token: string): string[] {
  return [...new Set(Object.values(WHOLE).map((f) => f(token)))];
}

// --- Tokens -----------------------------------------------------------------------------------

const tokenChar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789') },
  { weight: 4, arbitrary: fc.constantFrom('/', '+', '=', '%', '"', '\\', '-', '_', '.', '~', ':', ' ', '&', '?', '#') },
  { weight: 2, arbitrary: fc.constantFrom('é', 'ü', 'ß', 'Ω', '日', '本', '€', '😀', '\u00a0') },
);
/** 8 characters or more (shorter strings are not searched for), starting and ending with no space (a header's value is trimmed). */
const token = fc
  .array(tokenChar, { minLength: 8, maxLength: 40 })
  .map((cs) => cs.join(''))
  .filter((t) => t.trim() === t && [...t].length >= 8);

type Carrier = 'bearer' | 'basic' | 'query';
type Place = 'json' | 'text' | 'sse' | 'header';

/** How the request carries the token: as a header would carry it (Bearer only for visible ASCII with no separator in it). */
function carrierFor(t: string, wanted: Carrier): Carrier {
  return wanted === 'bearer' && !/^[\x21-\x7e]+$/.test(t) ? 'basic' : wanted === 'bearer' && /[,;]/.test(t) ? 'query' : wanted;
}

// --- The exchange, over HTTP: a client, the proxy with its recorder, an upstream that echoes ----

interface Plan {
  place: Place;
  echo: string;
}
const plans = new Map<string, Plan>();

let work = '';
let recorder: Recorder;
let upstream: Server;
let proxy: Server;
let base = '';

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'record-encoded-'));
  recorder = new Recorder(join(work, 'rec'));
  upstream = createServer((req, res) => {
    req.resume();
    const plan = plans.get(/\/api\/echo\/(\d+)/.exec(req.url ?? '')?.[1] ?? '')!;
    const { echo } = plan;
    if (plan.place === 'header') res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': echo }).end('{"ok":true}');
    else if (plan.place === 'text') res.writeHead(200, { 'content-type': 'text/plain' }).end(`The token ${echo} is not valid.`);
    else if (plan.place === 'json') res.writeHead(200, { 'content-type': 'application/json' }).end(`{"error":"bad token","token":"${echo}","hint":"${echo}"}`);
    else {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const oneLine = !/[\r\n]/.test(echo);
      res.end(`${oneLine ? `id: ${echo}\nevent: ${echo}\n` : ''}data: {"text":"${echo}"}\n\ndata: plain ${echo}\n\n`);
    }
  });
  await new Promise<void>((ok) => upstream.listen(0, '127.0.0.1', ok));
  const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const forward = upstreamProxy([origin], { recorder });
  proxy = createServer((req, res) => forward(req, res, () => res.writeHead(404).end()));
  await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/upstream/${new URL(origin).host}`;
});

afterAll(async () => {
  await Promise.all([upstream, proxy].map((s) => new Promise((ok) => s?.close(ok))));
  rmSync(work, { recursive: true, force: true });
});

let next = 0;

/** Sends `t` as `carrier` says, the upstream echoes `echo` in `place`; the recording's file text. */
async function recorded(t: string, carrier: Carrier, place: Place, echo: string): Promise<string> {
  const id = String(++next);
  plans.set(id, { place: place === 'header' && !/^[\x20-\x7e]*$/.test(echo) ? 'json' : place, echo });
  const headers: Record<string, string> = {};
  let query = '';
  if (carrier === 'bearer') headers.authorization = `Bearer ${t}`;
  else if (carrier === 'basic') headers.authorization = `Basic ${b64(`user:${t}`)}`;
  else query = `?access_token=${encodeURIComponent(t)}`;
  const res = await fetch(`${base}/api/echo/${id}${query}`, { headers });
  expect(res.status).toBe(200);
  await res.text();
  await recorder.settle();
  const dir = join(work, 'rec');
  const name = readdirSync(dir).find((n) => n.endsWith(`-get-api-echo-${id}.json`));
  expect(name, `no recording of exchange ${id}`).toBeDefined();
  return readFileSync(join(dir, name!), 'utf8');
}

/** Every string of a parsed recording, keys included. */
function stringsOf(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out);
  else if (typeof v === 'object' && v !== null) {
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      stringsOf(x, out);
    }
  }
  return out;
}

/** The encodings of `t` still in `file`, as its text holds them or in any of its strings. */
function leftIn(file: string, t: string, echo: string): string[] {
  const strings = stringsOf(JSON.parse(file));
  return [...forms(t), echo].filter((f) => file.includes(f) || strings.some((s) => s.includes(f)));
}

describe('a token echoed by the upstream in any encoding', () => {
  test('is in no recording, whatever the encoding and wherever it is echoed (property, over HTTP)', async () => {
    await fc.assert(
      fc.asyncProperty(
        token,
        fc.constantFrom<Carrier>('bearer', 'basic', 'query'),
        fc.constantFrom<Place>('json', 'text', 'sse', 'header'),
        fc.oneof(
          fc.constantFrom(...WHOLE_NAMES).map((name) => ({ name, mixed: undefined })),
          fc.array(fc.nat(PER_CHAR.length - 1), { minLength: 40, maxLength: 40 }).map((mixed) => ({ name: 'mixed per character', mixed })),
        ),
        async (t, wanted, place, how) => {
          const echo = how.mixed ? mixed(t, how.mixed) : WHOLE[how.name]!(t);
          const file = await recorded(t, carrierFor(t, wanted), place, echo);
          expect(leftIn(file, t, echo), `${how.name} in ${place}`).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  }, 300_000);

  test.each(WHOLE_NAMES)('%s: a token with / and + echoed in a JSON body, a text body, an event and a header', async (name) => {
    const t = 'tok/en+with=all/+chars';
    for (const place of ['json', 'text', 'sse', 'header'] as const) {
      const file = await recorded(t, 'bearer', place, WHOLE[name]!(t));
      expect(leftIn(file, t, WHOLE[name]!(t)), place).toEqual([]);
    }
  });
});

// --- No token, no change ----------------------------------------------------------------------

function input(headers: IncomingHttpHeaders, path: string, responseText: string, contentType: string): ExchangeInput {
  return {
    recordedAt: '2026-01-01T00:00:00.000Z',
    upstream: 'https://acme-be.example',
    method: 'POST',
    path,
    requestHeaders: { 'content-type': 'application/json' },
    secrets: secretsOf(headers, path),
    requestBody: new TextEncoder().encode(JSON.stringify({ q: responseText.slice(0, 50) })),
    status: 200,
    responseHeaders: { 'content-type': contentType, 'x-request-id': 'req_0123456789abcdef' },
    headAtMs: 1,
    endAtMs: 2,
    end: 'complete',
    responseBody: new TextEncoder().encode(responseText),
    truncated: false,
  };
}

test('a recording that holds no token is the same as one made with no secret to find (property)', () => {
  const body = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    fc.string({ unit: 'grapheme', maxLength: 200 }),
    // What looks like an encoding without being one of this token: escapes, percent signs, base64.
    fc.array(fc.constantFrom('%2F', '%2f', '\\/', '\\u002b', '+', '=', 'dXNlcjp', 'QmFzaWM=', '%25', '\\\\', ' ', 'abc'), { maxLength: 60 }).map((xs) => xs.join('')),
  );
  fc.assert(
    fc.property(token, body, fc.constantFrom('application/json', 'text/plain'), (t, text, type) => {
      fc.pre(!forms(t).some((f) => text.includes(f)));
      const headers = { authorization: `Basic ${b64(`user:${t}`)}`, 'x-api-key': t };
      const made = recordingOf(input(headers, '/rest/api/v1/search', text, type));
      const plain = recordingOf({ ...input(headers, '/rest/api/v1/search', text, type), secrets: [] });
      expect(made).toEqual(plain);
    }),
    { numRuns: 500 },
  );
});

test('near misses stay: the token with one character changed, its first half, its base64 with other bytes around', () => {
  const t = 'tok/en+with=all/+chars';
  const nearMisses = [`tok/en+with=all/+charz`, 'tok/en+with', encodeURIComponent('tok/en+with=all/+chaRs'), b64('user:tok/en+with=all/+charZ').slice(0, 20)];
  for (const text of nearMisses) {
    const made = recordingOf(input({ authorization: `Bearer ${t}` }, '/rest/api/v1/search', `said: ${text}`, 'text/plain'));
    expect(made.response.bodyText).toBe(`said: ${text}`);
  }
});
