import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactDeep, redactText } from './redact';

const bytesOf = (s: string) => [...new TextEncoder().encode(s)];
const hex = (b: number) => b.toString(16).padStart(2, '0');
const base64 = (s: string) => btoa(String.fromCharCode(...bytesOf(s)));

const HTML_NAMED: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Each way a server may echo a token: as it is, percent-encoded (upper, lower, every byte), JSON-escaped, HTML-escaped. */
const ENCODINGS: Record<string, (t: string) => string> = {
  raw: (t) => t,
  percentUpper: (t) => encodeURIComponent(t),
  percentLower: (t) => encodeURIComponent(t).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  percentEveryByte: (t) => bytesOf(t).map((b) => `%${hex(b).toUpperCase()}`).join(''),
  percentEveryByteLower: (t) => bytesOf(t).map((b) => `%${hex(b)}`).join(''),
  json: (t) => JSON.stringify(t).slice(1, -1),
  jsonSlashes: (t) => JSON.stringify(t).slice(1, -1).replace(/\//g, '\\/'),
  jsonEveryUnit: (t) => [...Array(t.length).keys()].map((i) => `\\u${t.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  jsonEveryUnitUpper: (t) => [...Array(t.length).keys()].map((i) => `\\u${t.charCodeAt(i).toString(16).padStart(4, '0').toUpperCase()}`).join(''),
  // A proxy's or a server's HTML error page echoing the Authorization header.
  html: (t) => t.replace(/[&<>"']/g, (c) => HTML_NAMED[c]!),
  htmlDecimal: (t) => [...t].map((c) => `&#${c.codePointAt(0)};`).join(''),
  htmlHex: (t) => [...t].map((c) => `&#x${c.codePointAt(0)!.toString(16)};`).join(''),
  htmlHexUpper: (t) => [...t].map((c) => `&#X${c.codePointAt(0)!.toString(16).toUpperCase()};`).join(''),
};

/** `Basic` credentials with the token as user or password, in both base64 alphabets. */
const BASIC: Record<string, (t: string) => string> = {
  asUser: (t) => base64(`${t}:`),
  asPassword: (t) => base64(`x:${t}`),
  afterUser: (t) => base64(`someone:${t}`),
  url: (t) => base64(`ab:${t}`).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
};

const token = fc.string({ minLength: 8, maxLength: 48, unit: 'binary' }).filter((t) => !REDACTED.includes(t));

describe('a token echoed by a server', () => {
  it('is taken out in every encoding, and nothing else of the text is changed (fast-check)', () => {
    fc.assert(
      fc.property(token, fc.constantFrom(...Object.keys(ENCODINGS)), (t, name) => {
        const echoed = ENCODINGS[name]!(t);
        const text = `The token ${echoed} is not valid here.`;
        const out = redactText(text, [t]);
        expect(out).toBe(`The token ${REDACTED} is not valid here.`);
      }),
      { numRuns: 600 },
    );
  });

  it('is taken out of Basic credentials whatever comes beside it, the whole base64 word with it (fast-check)', () => {
    fc.assert(
      fc.property(token, fc.constantFrom(...Object.keys(BASIC)), (t, name) => {
        const out = redactText(`Authorization: Basic ${BASIC[name]!(t)}, refused.`, [t]);
        expect(out).toBe(`Authorization: Basic ${REDACTED}, refused.`);
      }),
      { numRuns: 600 },
    );
  });

  it('is taken out of every string of a result, keys too; a value without it is the same object', () => {
    const t = 'reference-agents-token-1234';
    const result = { entry: { problem: `The token ${t} is not valid here.`, meta: { headers: [['x-echo', encodeURIComponent(t)]] } }, details: { events: [{ data: JSON.stringify({ text: t }) }] }, [t]: 1, n: 5 };
    const out = redactDeep(result, [t]);
    expect(JSON.stringify(out)).not.toContain(t);
    expect(out.entry.problem).toBe(`The token ${REDACTED} is not valid here.`);
    expect(out.details.events[0]!.data).toBe(`{"text":"${REDACTED}"}`);
    const clean = { a: { b: ['nothing here'] } };
    expect(redactDeep(clean, [t])).toBe(clean);
    // A short secret is not searched for: it would blank common words.
    expect(redactText('the abc of it', ['abc'])).toBe('the abc of it');
  });

  it('is found in a megabyte of base64-like text in linear time', () => {
    const t = 'reference-agents-token-1234';
    const text = `${'QUJD'.repeat(250_000)} ${base64(`u:${t}`)}`;
    const started = performance.now();
    expect(redactText(text, [t])).toBe(`${'QUJD'.repeat(250_000)} ${REDACTED}`);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
