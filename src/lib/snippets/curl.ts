/** curl: one option per line with `\` continuations, so a long command never wraps mid-word. */
import { shellQuote } from './code';
import { FIRST_STEP, pausedHint, SHELL_RUN_ID, shellFollowLoop } from './follow';
import { durableRunPathPrefix, httpShape, isToolCall, SHELL_TOKEN, type ApiCall, type HttpShape, type SnippetOptions } from './request';

export { shellQuote };

function authHeader({ token, includeToken }: SnippetOptions): string {
  // Double quotes around the placeholder so the shell expands it.
  return includeToken && token ? shellQuote(`Authorization: Bearer ${token}`) : `"Authorization: Bearer ${SHELL_TOKEN}"`;
}

/** `quiet`: -sS, for an answer the script reads itself: no progress meter, errors still said. */
function command(http: HttpShape, url: string, options: SnippetOptions, quiet = false): string {
  // --fail-with-body: an error status is a failed command, its explanation still printed.
  const first = ['curl', ...(quiet ? ['-sS'] : []), '--fail-with-body'];
  // -N: print each event as it arrives instead of when curl's buffer fills.
  if (http.stream) first.push('-N');
  if (http.method !== 'GET' && !(http.method === 'POST' && http.body !== undefined)) first.push('-X', http.method);
  first.push(url);
  const lines = [first.join(' ')];
  lines.push(`-H ${authHeader(options)}`);
  for (const [name, value] of Object.entries(http.headers)) lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (http.body !== undefined) {
    lines.push(`-H ${shellQuote('Content-Type: application/json')}`);
    lines.push(`--data-raw ${shellQuote(JSON.stringify(http.body, null, 2))}`);
  }
  return lines.join(' \\\n  ');
}

export function curlSnippet(call: ApiCall, options: SnippetOptions): string {
  const http = httpShape(call);
  const url = shellQuote(`${options.serverUrl}${http.path}`);
  if (!http.durable || isToolCall(call) || !('agentId' in call)) return command(http, url, options);

  // Durable: the first answer is a snapshot of the run; then the run is read until it ends.
  const lines: string[] = [];
  if (call.op !== 'run') lines.push(`RUN_ID=${shellQuote(call.runId)}`);
  lines.push(`# ${FIRST_STEP[call.op]}`, `RUN=$(${command(http, url, options, true)})`);
  // The 201 is read for its run_id only, to read the run with: never to POST again.
  if (call.op === 'run') lines.push(SHELL_RUN_ID, `printf 'run_id: %s\\n' "$RUN_ID"`);
  const runUrl = `${shellQuote(`${options.serverUrl}${durableRunPathPrefix(call.agentId)}`)}"$RUN_ID"`;
  const readAgain = command({ method: 'GET', path: '', stream: false, durable: true, headers: {} }, runUrl, options, true);
  return `${lines.join('\n')}\n\n${shellFollowLoop(readAgain, pausedHint(options.serverUrl, call.agentId))}`;
}
