import { describe, expect, it } from 'vitest';
import { TERMINAL_STATES } from '../../contract/durable-runs';
import { httpShape } from './request';
import { respondCall, snippet, type ApiCall, type Language } from './index';
import { everyCall } from './test-calls';

const serverUrl = 'https://acme-be.glean.com';
const token = 'sandbox-secret-0123456789abcdef';
const hidden = { serverUrl, token, includeToken: false };
const included = { serverUrl, token, includeToken: true };
const LANGS: Language[] = ['curl', 'javascript', 'typescript'];

/** The JSON value that starts at `from` in `text`, found by matching brackets outside strings. */
function jsonAt(text: string, from: number): unknown {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return JSON.parse(text.slice(from, i + 1));
    }
  }
  throw new Error(`No complete JSON value at ${from}`);
}

/**
 * The shell words of the first curl command in a snippet, quotes removed (single quotes, double
 * quotes, `\` continuations): up to the first unquoted end of line, or the `)` that closes the
 * `$(…)` a durable snippet captures the answer with.
 */
function shellWords(code: string): string[] {
  const command = code.slice(code.indexOf('curl '));
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'" || c === '"') {
      const end = command.indexOf(c, i + 1);
      if (end < 0) throw new Error(`Unclosed ${c} in ${command}`);
      word = (word ?? '') + command.slice(i + 1, end);
      i = end;
    } else if (c === '\\') {
      // A continuation joins lines; otherwise the next character is literal.
      if (command[i + 1] !== '\n') word = (word ?? '') + command[i + 1];
      i++;
    } else if (c === '\n' || c === ')') break;
    else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? '') + c;
  }
  if (word !== null) words.push(word);
  return words;
}

function curlParts(command: string) {
  const words = shellWords(command);
  const headers = words.flatMap((w, i) => (words[i - 1] === '-H' ? [w] : []));
  const dataIndex = words.indexOf('--data-raw');
  const methodIndex = words.indexOf('-X');
  return {
    words,
    method: methodIndex >= 0 ? words[methodIndex + 1] : dataIndex >= 0 ? 'POST' : 'GET',
    url: words.find((w) => w.startsWith('https://')),
    headers,
    body: dataIndex >= 0 ? (JSON.parse(words[dataIndex + 1]!) as unknown) : undefined,
  };
}

describe.each(everyCall('sales'))('$name', ({ call }) => {
  const http = httpShape(call);
  const url = `${serverUrl}${http.path}`;

  it('curl: method, URL, headers and body are those the console sends; the token is $TOKEN', () => {
    const code = snippet('curl', call, hidden);
    const parts = curlParts(code);
    expect(parts.method).toBe(http.method);
    expect(parts.url).toBe(url);
    expect(parts.headers).toContain('Authorization: Bearer $TOKEN');
    expect(parts.body).toEqual(http.body);
    if (http.body !== undefined) expect(parts.headers).toContain('Content-Type: application/json');
    expect(parts.headers.includes('Accept: text/event-stream')).toBe(http.stream);
    expect(parts.words.includes('-N')).toBe(http.stream);
    // An error status makes the command fail, so a script notices.
    expect(parts.words).toContain('--fail-with-body');
    // One option per line: nothing on screen needs to wrap inside a word.
    expect(code.split(' \\\n  ').length).toBeGreaterThan(1);
    expect(code).not.toContain(token);
  });

  it('JavaScript: fetch with the method, URL, headers and body; the token from process.env.TOKEN', () => {
    const code = snippet('javascript', call, hidden);
    expect(code).toContain(`fetch('${url}', {`);
    if (http.method === 'GET') expect(code).not.toContain('method:');
    else expect(code).toContain(`method: '${http.method}',`);
    expect(code).toContain('Authorization: `Bearer ${process.env.TOKEN}`');
    expect(code).not.toContain(token);
    const bodyAt = code.indexOf('body: JSON.stringify(');
    if (http.body === undefined) expect(bodyAt).toBe(-1);
    else expect(jsonAt(code, bodyAt + 'body: JSON.stringify('.length)).toEqual(http.body);
    expect(code.includes("Accept: 'text/event-stream'")).toBe(http.stream);
    // Streams are read event by event with eventsource-parser, which the snippet says to install.
    expect(code.includes("import { EventSourceParserStream } from 'eventsource-parser/stream';")).toBe(http.stream);
    expect(code.includes('// npm install eventsource-parser')).toBe(http.stream);
    expect(code.includes('encodeURIComponent(run.run_id)')).toBe(http.durable);
  });

  it('TypeScript: the official client method for the operation, with the body as its argument', () => {
    const code = snippet('typescript', call, hidden);
    expect(code).toContain("import { Glean } from '@gleanwork/api-client';");
    expect(code).toContain('apiToken: process.env.TOKEN');
    expect(code).not.toContain(token);
    const method = clientMethod(call);
    const at = code.indexOf(`${method}(`);
    expect(at, `${method} in\n${code}`).toBeGreaterThan(-1);
    const args = code.slice(at + method.length + 1);
    if (call.op === 'run') {
      expect(code).toContain(`serverURL: '${serverUrl}'`);
      expect(jsonAt(args, 0)).toEqual(call.body);
      if (call.flavour === 'platform') expect(args).toMatch(new RegExp(`^[\\s\\S]*?\\}, '${call.agentId}'`));
    } else if (call.op === 'respond') {
      expect(code).toContain(`serverURL: '${serverUrl}'`);
      expect(jsonAt(args, 0)).toEqual(http.body);
      expect(args).toMatch(new RegExp(`^[\\s\\S]*?\\}, '${call.agentId}'\\);`));
    } else if (call.op === 'cancel') {
      expect(args).toMatch(new RegExp(`^\\{ run_id: '${call.runId}' \\}, '${call.agentId}'\\);`));
    } else if (call.op === 'follow') {
      expect(args).toMatch(new RegExp(`^'${call.agentId}', '${call.runId}'\\);`));
    } else if (call.op === 'agentTools') {
      expect(code).toContain(`serverURL: '${serverUrl}'`);
      expect(args).toMatch(new RegExp(`^'${call.agentId}', true\\);`));
    } else if (call.op === 'toolServerStatus') {
      expect(args).toMatch(new RegExp(`^'${call.serverId}'\\);`));
    } else if (call.op === 'authorizeToolServer') {
      expect(code).toContain(`serverURL: '${serverUrl}'`);
      expect(args.startsWith(`{ returnUrl: '${call.returnUrl}' }, '${call.serverId}');`)).toBe(true);
    } else if (call.op === 'toolServerTools') {
      expect(args.startsWith(`'${call.serverId}', `)).toBe(true);
      expect(jsonAt(args, args.indexOf('['))).toEqual(call.toolNames);
    } else {
      // Custom-metadata calls take the server URL on each call.
      expect(code).toContain(`const serverURL = '${serverUrl}';`);
      const statement = args.slice(0, args.indexOf(');\n') + 2);
      expect(statement.endsWith(', { serverURL });'), statement).toBe(true);
      if (http.body !== undefined) expect(jsonAt(args, 0)).toEqual(http.body);
      expect(args).toContain(`'${call.group}'`);
    }
  });

  it.each(LANGS)('%s with "Include token": the real token, and no placeholder', (language) => {
    const code = snippet(language, call, included);
    expect(code).toContain(token);
    expect(code).not.toContain('$TOKEN');
    expect(code).not.toContain('process.env.TOKEN');
  });

  it.each(LANGS)('%s without a token: the placeholder even when "Include token" is ticked', (language) => {
    const code = snippet(language, call, { serverUrl, includeToken: true });
    expect(code).toContain(language === 'curl' ? 'Authorization: Bearer $TOKEN' : 'process.env.TOKEN');
  });
});

function clientMethod(call: ApiCall): string {
  const metadata = 'glean.indexing.customMetadata.';
  switch (call.op) {
    case 'getSchema':
      return `${metadata}getSchema`;
    case 'putSchema':
      return `${metadata}upsertSchema`;
    case 'deleteSchema':
      return `${metadata}deleteSchema`;
    case 'putValues':
      return `${metadata}upsert`;
    case 'deleteValues':
      return `${metadata}delete`;
    case 'run':
      if (call.flavour === 'legacy') return call.mode === 'stream' ? 'glean.client.agents.runStream' : 'glean.client.agents.run';
      return 'glean.agents.createRun';
    case 'respond':
      return 'glean.agents.respondToRun';
    case 'cancel':
      return 'glean.agents.cancelRun';
    case 'follow':
      return 'glean.agents.getRun';
    case 'agentTools':
      return 'glean.agents.getSchemas';
    case 'toolServerStatus':
      return 'glean.client.tools.retrieveToolServerAuthStatus';
    case 'authorizeToolServer':
      return 'glean.client.tools.authorizeToolServer';
    case 'toolServerTools':
      return 'glean.client.tools.getToolServerTools';
  }
}

describe('quoting', () => {
  it('a quote in a value survives the shell and JavaScript', () => {
    const call: ApiCall = { op: 'putValues', group: 'sales', docId: "it's/1", values: [{ name: 'status', value: "won't \\ \"x\"" }] };
    const shell = curlParts(snippet('curl', call, hidden));
    expect(shell.url).toBe(`${serverUrl}/rest/api/index/document/it's%2F1/custom-metadata/sales`);
    expect(shell.body).toEqual({ customMetadata: call.values });
    expect(snippet('typescript', call, hidden)).toContain(`}, 'it\\'s/1', 'sales', { serverURL });`);
  });

  it('a durable run on curl is read again by its run_id, never POSTed again', () => {
    const durable = everyCall().find((c) => c.name === 'platform durable')!.call;
    const code = snippet('curl', durable, hidden);
    expect(code).toContain(`curl -sS --fail-with-body '${serverUrl}/api/agents/echo-assistant/runs/'"$RUN_ID" \\`);
    expect(code.match(/--data-raw/g)).toHaveLength(1);
  });
});

describe('one token variable', () => {
  // README mints it as `export TOKEN=$(npm run --silent token -- --scope …)`: every snippet, in
  // every language, must then run as it is.
  it.each(LANGS)('every %s snippet reads the token from TOKEN, and from no other variable', (language) => {
    for (const { name, call } of everyCall('sales')) {
      const code = snippet(language, call, hidden);
      if (language === 'curl') {
        expect(code, name).toContain('"Authorization: Bearer $TOKEN"');
        // Whatever else the shell expands is the snippet's own (the durable follow loop's).
        expect(new Set(code.match(/\$\{?[A-Za-z_]\w*/g)), name).toEqual(new Set(['$TOKEN', ...(httpShape(call).durable ? ['$RUN', '$RUN_ID', '$STATE', '$LAST'] : [])]));
      } else {
        expect(new Set(code.match(/process\.env\.\w+/g)), name).toEqual(new Set(['process.env.TOKEN']));
      }
    }
  });
});

describe('durable snippets follow the run to its end', () => {
  const durable = everyCall('sales').filter(({ call }) => httpShape(call).durable);

  it('covers creating, approving, approving one, rejecting, cancelling and following', () => {
    expect(durable.map((c) => c.name)).toEqual(['platform durable', 'approve all', 'approve one', 'reject all', 'cancel', 'follow']);
  });

  it.each(durable)('curl, $name: every request silent but for errors (-sS), the loop ends at exactly the terminal states', ({ call }) => {
    const code = snippet('curl', call, hidden);
    const curls = code.match(/curl [^\n]*/g)!;
    expect(curls.length).toBe(2);
    for (const c of curls) expect(c).toMatch(/^curl -sS --fail-with-body /);
    expect(code).toContain(`case $STATE in ${TERMINAL_STATES.join('|')}) printf '%s\\n' "$RUN"; break ;; esac`);
    expect(code).toContain(`printf 'state: %s\\n' "$STATE"`);
    expect(code).toContain('sleep 1');
    // A pause is not an end: the loop says where the decisions go and reads on.
    expect(code).toContain(`${serverUrl}/api/agents/${'agentId' in call ? call.agentId : ''}/responses`);
    expect(code).not.toMatch(/\bexit\b/);
  });

  it.each(durable)('JavaScript and TypeScript, $name: read every second until a terminal state, each new state printed', ({ call }) => {
    for (const language of ['javascript', 'typescript'] as const) {
      const code = snippet(language, call, hidden);
      expect(code).toContain(`while (![${TERMINAL_STATES.map((s) => `'${s}'`).join(', ')}].includes(run.state)) {`);
      expect(code).toContain('console.log(`state: ${run.state}`);');
      expect(code).toContain('setTimeout(resolve, 1000)');
      expect(code).toContain("if (run.state === 'REQUIRES_INPUT') {");
      expect(code).toContain(language === 'javascript' ? 'encodeURIComponent(run.run_id)' : "await glean.agents.getRun('");
    }
  });

  it('approving one interaction rejects the others in the same batch (the API takes one decision per pending interaction)', () => {
    expect(respondCall('trip-planner', 'run_1', ['a', 'b', 'c'], 'b')).toEqual({
      op: 'respond',
      agentId: 'trip-planner',
      runId: 'run_1',
      responses: [
        { interaction_id: 'a', decision: 'REJECT' },
        { interaction_id: 'b', decision: 'APPROVE' },
        { interaction_id: 'c', decision: 'REJECT' },
      ],
    });
    expect(respondCall('x', 'r', ['a', 'b'], 'all').responses.map((r) => r.decision)).toEqual(['APPROVE', 'APPROVE']);
    expect(respondCall('x', 'r', ['a', 'b'], 'none').responses.map((r) => r.decision)).toEqual(['REJECT', 'REJECT']);
  });

  it('the run and interaction ids are quoted for the shell and for JavaScript', () => {
    const call = respondCall('expense-filer', "run_'1", ["int_'x"], 'all');
    expect(snippet('curl', call, hidden)).toContain(`RUN_ID='run_'\\''1'`);
    expect(snippet('typescript', call, hidden)).toContain('"interaction_id": "int_\'x"');
    expect(snippet('typescript', { op: 'cancel', agentId: 'long-runner', runId: "run_'1" }, hidden)).toContain("cancelRun({ run_id: 'run_\\'1' }, 'long-runner')");
  });
});
