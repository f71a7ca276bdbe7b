/**
 * JavaScript with `fetch` (Node 20+ or a browser that allows the origin): the same request as
 * curl, streams read with eventsource-parser, durable runs read until they end.
 */
import { jsString, jsValue } from './code';
import { FIRST_STEP, jsFollowLoop, pausedHint } from './follow';
import { durableRunPathPrefix, ENV_TOKEN, httpShape, isToolCall, type ApiCall, type SnippetOptions } from './request';

export function authValue({ token, includeToken }: SnippetOptions): string {
  return includeToken && token ? jsString(`Bearer ${token}`) : `\`Bearer \${${ENV_TOKEN}}\``;
}

function headerKey(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : jsString(name);
}

export function fetchSnippet(call: ApiCall, options: SnippetOptions): string {
  const http = httpShape(call);
  const url = jsString(`${options.serverUrl}${http.path}`);
  const headers: [string, string][] = [['Authorization', authValue(options)]];
  for (const [name, value] of Object.entries(http.headers)) headers.push([name, jsString(value)]);
  if (http.body !== undefined) headers.push(['Content-Type', jsString('application/json')]);
  const headerLines = headers.map(([n, v]) => `    ${headerKey(n)}: ${v},`).join('\n');
  const init = [
    ...(http.method === 'GET' ? [] : [`  method: '${http.method}',`]),
    `  headers: {\n${headerLines}\n  },`,
    ...(http.body !== undefined ? [`  body: JSON.stringify(${jsValue(http.body, '  ')}),`] : []),
  ].join('\n');
  const failed = 'throw new Error(`${response.status} ${await response.text()}`);';

  if (http.stream) {
    return [
      '// npm install eventsource-parser',
      "import { EventSourceParserStream } from 'eventsource-parser/stream';",
      '',
      `const response = await fetch(${url}, {\n${init}\n});`,
      `if (!response.ok || !response.body) ${failed}`,
      '// Each event as it arrives: `message` events carry the next part of the answer;',
      '// on the current API a failed run ends with a `run.failed` event.',
      'const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());',
      'for await (const { event, data } of events) {',
      "  console.log(`${event ?? 'message'}: ${data}`);",
      '}',
    ].join('\n');
  }
  if (http.durable && !isToolCall(call) && 'agentId' in call) {
    const runUrl = `${jsString(`${options.serverUrl}${durableRunPathPrefix(call.agentId)}`)} + encodeURIComponent(run.run_id)`;
    return [
      `// ${FIRST_STEP[call.op]}`,
      `const response = await fetch(${url}, {\n${init}\n});`,
      `if (!response.ok) ${failed}`,
      'let { run } = await response.json();',
      ...(call.op === 'run' ? ['console.log(`run_id: ${run.run_id}`);'] : []),
      '',
      jsFollowLoop(
        [
          `const answer = await fetch(${runUrl}, {`,
          `  headers: { Authorization: ${authValue(options)} },`,
          '});',
          'if (!answer.ok) throw new Error(`${answer.status} ${await answer.text()}`);',
          '({ run } = await answer.json());',
        ],
        pausedHint(options.serverUrl, call.agentId),
        false,
      ),
    ].join('\n');
  }
  return [`const response = await fetch(${url}, {\n${init}\n});`, `if (!response.ok) ${failed}`, 'console.log(await response.text());'].join('\n');
}
