/**
 * TypeScript with the official client, @gleanwork/api-client (0.20.15). Its custom-metadata
 * calls ignore the client's serverURL and take the server URL on each call; its agent calls
 * use the client's.
 */
import { jsString, jsValue } from './code';
import { MOVING_STATES } from './fetch';
import { ENV_TOKEN, type ApiCall, type SnippetOptions } from './request';

export const CLIENT_PACKAGE = '@gleanwork/api-client';

function apiToken({ token, includeToken }: SnippetOptions): string {
  return includeToken && token ? jsString(token) : ENV_TOKEN;
}

const print = (name: string) => `console.log(JSON.stringify(${name}, null, 2));`;

function metadataCall(call: Exclude<ApiCall, { op: 'run' }>): string {
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

export function clientSnippet(call: ApiCall, options: SnippetOptions): string {
  const head = `// npm install ${CLIENT_PACKAGE}\nimport { Glean } from '${CLIENT_PACKAGE}';\n\n`;
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
  if (call.flavour === 'legacy') {
    const deprecated = '// Deprecated (sunset 2027-04-15): the replacement is glean.agents.createRun on /api/agents/{agent_id}/runs.';
    if (call.mode === 'stream') {
      return [
        head + client,
        deprecated,
        '// The client returns the whole event stream as text once the run has ended.',
        `const events = await glean.client.agents.runStream(${jsValue(call.body, '')});`,
        'console.log(events);',
      ].join('\n');
    }
    return [head + client, deprecated, `const answer = await glean.client.agents.run(${jsValue(call.body, '')});`, print('answer')].join('\n');
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
      '});',
      'console.log(events);',
    ].join('\n');
  }
  if (call.mode === 'durable') {
    return [
      head + client,
      `const created = await glean.agents.createRun(${jsValue(call.body, '')}, ${agent});`,
      "if (typeof created === 'string' || !created.run || !('run_id' in created.run)) throw new Error('Expected the snapshot of a durable run.');",
      '// 201: the run is stored and goes on without this connection. Follow it until it settles;',
      '// REQUIRES_INPUT means it waits for tool approvals (glean.agents.respondToRun).',
      'let run = created.run;',
      `while ([${MOVING_STATES.map(jsString).join(', ')}].includes(run.state)) {`,
      '  await new Promise((resolve) => setTimeout(resolve, 1000));',
      `  ({ run } = await glean.agents.getRun(${agent}, run.run_id));`,
      '}',
      print('run'),
    ].join('\n');
  }
  return [head + client, `const answer = await glean.agents.createRun(${jsValue(call.body, '')}, ${agent});`, print('answer')].join('\n');
}
