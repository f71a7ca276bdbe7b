/**
 * TypeScript with the official client, @gleanwork/api-client (0.20.15). Its custom-metadata
 * calls ignore the client's serverURL and take the server URL on each call; its agent calls
 * use the client's.
 */
import { jsString, jsValue } from './code';
import { FIRST_STEP, jsFollowLoop, pausedHint } from './follow';
import { ENV_TOKEN, isToolCall, type ApiCall, type DurableRunCall, type SnippetOptions, type ToolCall } from './request';

export const CLIENT_PACKAGE = '@gleanwork/api-client';

function apiToken({ token, includeToken }: SnippetOptions): string {
  return includeToken && token ? jsString(token) : ENV_TOKEN;
}

const print = (name: string) => `console.log(JSON.stringify(${name}, null, 2));`;

/** An agent's tools and the tool-server calls: one call of the client, its answer printed. */
function toolCall(call: ToolCall): string {
  switch (call.op) {
    case 'agentTools':
      return `const schemas = await glean.agents.getSchemas(${jsString(call.agentId)}, true);\n${print('schemas.tools')}`;
    case 'toolServerStatus':
      return `const status = await glean.client.tools.retrieveToolServerAuthStatus(${jsString(call.serverId)});\n${print('status')}`;
    case 'authorizeToolServer':
      return [
        `const { authorizationUrl } = await glean.client.tools.authorizeToolServer({ returnUrl: ${jsString(call.returnUrl)} }, ${jsString(call.serverId)});`,
        "// Send the user's browser there to consent; it comes back to returnUrl, with the result in the query.",
        'console.log(authorizationUrl);',
      ].join('\n');
    case 'toolServerTools':
      return `const tools = await glean.client.tools.getToolServerTools(${jsString(call.serverId)}, ${jsValue(call.toolNames, '')});\n${print('tools')}`;
  }
}

function metadataCall(call: Exclude<ApiCall, { op: 'run' } | DurableRunCall | ToolCall>): string {
  const group = jsString(call.group);
  const at = '{ serverURL }';
  const calls = 'glean.indexing.customMetadata';
  switch (call.op) {
    case 'getSchema':
      return `const schema = await ${calls}.getSchema(${group}, ${at});\n${print('schema')}`;
    case 'putSchema':
      return `const result = await ${calls}.upsertSchema(${jsValue(call.schema, '')}, ${group}, ${at});\n${print('result')}`;
    case 'deleteSchema':
      return `const result = await ${calls}.deleteSchema(${group}, ${at});\n${print('result')}`;
    case 'putValues':
      return `const result = await ${calls}.upsert(${jsValue({ customMetadata: call.values }, '')}, ${jsString(call.docId)}, ${group}, ${at});\n${print('result')}`;
    case 'deleteValues':
      return `const result = await ${calls}.delete(${jsString(call.docId)}, ${group}, ${at});\n${print('result')}`;
  }
}

function followWithClient(agentId: string, options: SnippetOptions): string {
  return jsFollowLoop([`({ run } = await glean.agents.getRun(${jsString(agentId)}, run.run_id));`], pausedHint(options.serverUrl, agentId), true);
}

/** respond, cancel, follow: one call of the client, then its getRun until the run ends. */
function durableRunCall(call: DurableRunCall): string {
  const agent = jsString(call.agentId);
  switch (call.op) {
    case 'respond':
      return `let { run } = await glean.agents.respondToRun(${jsValue({ run_id: call.runId, responses: call.responses }, '')}, ${agent});`;
    case 'cancel':
      return `let { run } = await glean.agents.cancelRun({ run_id: ${jsString(call.runId)} }, ${agent});`;
    case 'follow':
      return `let { run } = await glean.agents.getRun(${agent}, ${jsString(call.runId)});`;
  }
}

export function clientSnippet(call: ApiCall, options: SnippetOptions): string {
  const head = `// npm install ${CLIENT_PACKAGE}\nimport { Glean } from '${CLIENT_PACKAGE}';\n\n`;
  if (call.op === 'respond' || call.op === 'cancel' || call.op === 'follow') {
    const client = `const glean = new Glean({ apiToken: ${apiToken(options)}, serverURL: ${jsString(options.serverUrl)} });`;
    return [head + client, `// ${FIRST_STEP[call.op]}`, durableRunCall(call), '', followWithClient(call.agentId, options)].join('\n');
  }
  if (isToolCall(call)) {
    return [head + `const glean = new Glean({ apiToken: ${apiToken(options)}, serverURL: ${jsString(options.serverUrl)} });`, toolCall(call)].join('\n');
  }
  if (call.op !== 'run') {
    return [
      head + `const glean = new Glean({ apiToken: ${apiToken(options)} });`,
      "// Custom-metadata calls take the server URL on each call (the client's serverURL is not used for them).",
      `const serverURL = ${jsString(options.serverUrl)};`,
      '',
      metadataCall(call),
    ].join('\n');
  }

  const client = `const glean = new Glean({ apiToken: ${apiToken(options)}, serverURL: ${jsString(options.serverUrl)} });`;
  const agent = jsString(call.agentId);
  // Headers the run adds (X-Sandbox-Fault) go in the call's request options.
  const extra = call.headers && Object.keys(call.headers).length ? `headers: ${jsValue(call.headers, '')}` : undefined;
  const withOptions = (args: string) => (extra ? `${args}, { ${extra} }` : args);
  if (call.flavour === 'legacy') {
    const deprecated = '// Deprecated (sunset 2027-04-15): the replacement is glean.agents.createRun on /api/agents/{agent_id}/runs.';
    if (call.mode === 'stream') {
      return [
        head + client,
        deprecated,
        '// The client returns the whole event stream as text once the run has ended.',
        `const events = await glean.client.agents.runStream(${withOptions(jsValue(call.body, ''))});`,
        'console.log(events);',
      ].join('\n');
    }
    return [head + client, deprecated, `const answer = await glean.client.agents.run(${withOptions(jsValue(call.body, ''))});`, print('answer')].join('\n');
  }
  if (call.mode === 'stream') {
    return [
      `// npm install ${CLIENT_PACKAGE}`,
      `import { Glean } from '${CLIENT_PACKAGE}';`,
      `import { CreateRunAcceptEnum } from '${CLIENT_PACKAGE}/sdk/agents.js';`,
      '',
      client,
      '// With stream: true the client returns the whole event stream as text once the run has ended.',
      `const events = await glean.agents.createRun(${jsValue(call.body, '')}, ${agent}, {`,
      '  acceptHeaderOverride: CreateRunAcceptEnum.textEventStream,',
      ...(extra ? [`  ${extra},`] : []),
      '});',
      'console.log(events);',
    ].join('\n');
  }
  if (call.mode === 'durable') {
    return [
      head + client,
      `// ${FIRST_STEP.run}`,
      `const created = await glean.agents.createRun(${withOptions(`${jsValue(call.body, '')}, ${agent}`)});`,
      "if (typeof created === 'string' || !created.run || !('run_id' in created.run)) throw new Error('Expected the snapshot of a durable run.');",
      'let run = created.run;',
      'console.log(`run_id: ${run.run_id}`);',
      '',
      followWithClient(call.agentId, options),
    ].join('\n');
  }
  return [head + client, `const answer = await glean.agents.createRun(${withOptions(`${jsValue(call.body, '')}, ${agent}`)});`, print('answer')].join('\n');
}
