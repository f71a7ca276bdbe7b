import { describe, expect, it } from 'vitest';
import { curlCommand } from './curl';

const base = 'http://127.0.0.1:5173/schemas/sales';
const token = 'sandbox-sales-8b1e6d0c93a2f457';

describe('copy as curl', () => {
  it('redacts the token as $TOKEN unless asked', () => {
    const cmd = curlCommand({ method: 'GET', url: '/rest/api/index/custom-metadata/schema/sales', token, includeToken: false, base });
    expect(cmd).not.toContain(token);
    expect(cmd).toBe(`curl 'http://127.0.0.1:5173/rest/api/index/custom-metadata/schema/sales' -H "Authorization: Bearer $TOKEN"`);
  });

  it('includes the token only when the user ticks it', () => {
    expect(curlCommand({ method: 'GET', url: '/x', token, includeToken: true, base })).toContain(`Authorization: Bearer ${token}`);
  });

  it('quotes bodies safely for the shell', () => {
    const cmd = curlCommand({ method: 'PUT', url: 'https://acme-be.glean.com/x', token, includeToken: false, body: { note: "it's" }, base });
    expect(cmd).toContain(`-X PUT 'https://acme-be.glean.com/x'`);
    expect(cmd).toContain(`--data-raw '{"note":"it'\\''s"}'`);
  });
});
