/** "Copy as curl": the request as a shell command, the token redacted unless asked. */

export const REDACTED_TOKEN = '$TOKEN';

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export interface CurlInput {
  method: string;
  url: string;
  token?: string;
  includeToken: boolean;
  body?: unknown;
  /** Extra headers, e.g. Accept: text/event-stream. */
  headers?: Record<string, string>;
  /** What a relative URL is resolved against; the page's address by default. */
  base?: string;
}

export function curlCommand({ method, url, token, includeToken, body, headers = {}, base = window.location.href }: CurlInput): string {
  const absolute = new URL(url, base).toString();
  const parts = ['curl'];
  if (method !== 'GET') parts.push('-X', method);
  parts.push(shellQuote(absolute));
  if (token) {
    // Redacted form uses a shell variable so the command still runs once TOKEN is set.
    parts.push('-H', includeToken ? shellQuote(`Authorization: Bearer ${token}`) : `"Authorization: Bearer ${REDACTED_TOKEN}"`);
  }
  for (const [name, value] of Object.entries(headers)) parts.push('-H', shellQuote(`${name}: ${value}`));
  if (body !== undefined) {
    parts.push('-H', shellQuote('Content-Type: application/json'), '--data-raw', shellQuote(JSON.stringify(body)));
  }
  return parts.join(' ');
}
