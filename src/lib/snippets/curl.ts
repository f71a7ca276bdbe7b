/** curl: one option per line with `\` continuations, so a long command never wraps mid-word. */
import { durableRunPathPrefix, httpShape, SHELL_TOKEN, type ApiCall, type SnippetOptions } from './request';

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function authHeader({ token, includeToken }: SnippetOptions): string {
  // Double quotes around the placeholder so the shell expands it.
  return includeToken && token ? shellQuote(`Authorization: Bearer ${token}`) : `"Authorization: Bearer ${SHELL_TOKEN}"`;
}

export function curlSnippet(call: ApiCall, options: SnippetOptions): string {
  const http = httpShape(call);
  const url = `${options.serverUrl}${http.path}`;
  // --fail-with-body: an error status is a failed command, its explanation still printed.
  const first = ['curl', '--fail-with-body'];
  // -N: print each event as it arrives instead of when curl's buffer fills.
  if (http.stream) first.push('-N');
  if (http.method !== 'GET' && !(http.method === 'POST' && http.body !== undefined)) first.push('-X', http.method);
  first.push(shellQuote(url));
  const lines = [first.join(' ')];
  lines.push(`-H ${authHeader(options)}`);
  for (const [name, value] of Object.entries(http.headers)) lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (http.body !== undefined) {
    lines.push(`-H ${shellQuote('Content-Type: application/json')}`);
    lines.push(`--data-raw ${shellQuote(JSON.stringify(http.body, null, 2))}`);
  }
  let command = lines.join(' \\\n  ');
  if (http.durable && call.op === 'run') {
    // The 201 answer is one line of JSON: its run_id is kept to read the run with, never to POST again.
    command =
      '# Creates the run (201: its first snapshot) and keeps its run_id:\n' +
      `RUN_ID=$(${command} \\\n  | sed -n 's/.*"run_id": *"\\([^"]*\\)".*/\\1/p')\n` +
      'echo "run_id: $RUN_ID"' +
      '\n\n# Read it again until its state is SUCCEEDED, FAILED, CANCELLED or EXPIRED' +
      '\n# (REQUIRES_INPUT waits for tool approvals):' +
      `\ncurl --fail-with-body ${shellQuote(`${options.serverUrl}${durableRunPathPrefix(call.agentId)}`)}"$RUN_ID" \\\n  -H ${authHeader(options)}`;
  }
  return command;
}
