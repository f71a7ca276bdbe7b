/**
 * Request bodies at the 1 MB limit built to buy as much work, or as big an error answer, as
 * they can (issue 27): many bad items, many unknown keys, long keys and ids, deep nesting,
 * wide arrays. Shared by the service's tests (hostile-bodies.test.ts) and `npm run
 * bench:load`'s "hostile bodies" phase, with the answer each must get.
 */
import { MAX_BODY_BYTES } from '../http.ts';
import { DEMO_TOKENS } from '../seed.ts';

const token = (label: string) => DEMO_TOKENS.find((t) => t.label === label)!.token;
const AGENTS = token('Demo: agents');
const GLOBAL = token('Demo: global metadata');

/** `head`, as many `item(i)` as fit in the body limit (comma-separated), then `tail`. */
export function atLimit(head: string, item: (i: number) => string, tail = ''): { body: string; count: number } {
  const parts: string[] = [];
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const s = item(i);
    if (size + s.length + 1 > MAX_BODY_BYTES) break;
    parts.push(s);
    size += s.length + 1;
  }
  return { body: `${head}${parts.join(',')}${tail}`, count: parts.length };
}

/** An object with `fixed` (JSON members) and as many `"k<i>": 1` members as fit, inside `head` and `tail`. */
export function unknownKeysBody(fixed: string, head = '', tail = ''): { body: string; count: number } {
  return atLimit(`${head}{${fixed}${fixed ? ',' : ''}`, (i) => `"k${i}":1`, `}${tail}`);
}

/** Arrays nested as deep as fit in the limit, inside `head` and `tail`. */
export function deep(head: string, tail: string): string {
  const n = Math.floor((MAX_BODY_BYTES - head.length - tail.length) / 2);
  return `${head}${'['.repeat(n)}${']'.repeat(n)}${tail}`;
}

export type Family = 'metadata' | 'legacy' | 'platform';

export interface HostileBody {
  name: string;
  method: 'POST' | 'PUT';
  path: string;
  token: string;
  body: string;
  /** The answer it must get. */
  status: number;
  family: Family;
  /** Problems the body holds, when the answer lists them: it lists 100 and counts the rest. */
  problems?: number;
  /** A pointer the listed problems include. */
  pointer?: string;
  /** What the answer says. */
  says?: RegExp;
}

const RUNS = '/api/agents/echo-assistant/runs';
const LEGACY_WAIT = '/rest/api/v1/agents/runs/wait';
const SCHEMA_PUT = '/rest/api/index/custom-metadata/schema/hostile';
const RESPONSES = '/api/agents/expense-filer/responses';
/** A document of the seeded group `sales`. */
export const HOSTILE_DOC_PUT = '/rest/api/index/document/DOC-9/custom-metadata/sales';

/**
 * Every hostile body, built for a service whose durable run `pausedRunId` (of
 * `expense-filer`) waits for its approval: the responses bodies answer it.
 */
export function hostileBodies(pausedRunId: string): HostileBody[] {
  const fmt = (n: number) => n.toLocaleString('en-US');
  const badMessages = atLimit('{"messages":[', () => '{"role":"X"}', ']}');
  const badMessagesLegacy = atLimit('{"agent_id":"echo-assistant","messages":[', () => '{"role":"X"}', ']}');
  const numbers = atLimit('{"messages":[', () => '0', ']}');
  const runKeys = unknownKeysBody('"messages":[{"role":"USER","content":[{"type":"text","text":"hi"}]}]');
  const responses = (item: (i: number) => string) => atLimit(`{"run_id":"${pausedRunId}","responses":[`, item, ']}');
  const uniqueIds = responses((i) => `{"interaction_id":"${i}","decision":"REJECT"}`);
  const badItems = responses(() => '{"x":1}');
  const schemaKeys = atLimit('{"metadataKeys":[', (i) => `{"name":"k${i}","propertyType":"TEXT"}`, ']}');
  const docValues = atLimit('{"customMetadata":[', (i) => `{"name":"k${i}","value":"x"}`, ']}');
  const post = { method: 'POST' as const };
  const put = { method: 'PUT' as const };
  const agents = { token: AGENTS };
  const global = { token: GLOBAL };
  return [
    // The messages
    { name: `platform run: ${fmt(badMessages.count)} invalid messages`, ...post, ...agents, path: RUNS, body: badMessages.body, status: 400, family: 'platform', problems: badMessages.count * 2, pointer: '/messages/0/role' },
    { name: `legacy wait run: ${fmt(badMessagesLegacy.count)} invalid messages`, ...post, ...agents, path: LEGACY_WAIT, body: badMessagesLegacy.body, status: 400, family: 'legacy', says: /\/messages\/0\/role .*more problems not listed/ },
    { name: 'legacy stream run: invalid messages', ...post, ...agents, path: '/rest/api/v1/agents/runs/stream', body: badMessagesLegacy.body, status: 400, family: 'legacy' },
    { name: `platform run: ${fmt(numbers.count)} numbers as messages`, ...post, ...agents, path: RUNS, body: numbers.body, status: 400, family: 'platform', problems: numbers.count, pointer: '/messages/99' },
    { name: 'platform run: one message with a wide array of bad content blocks', ...post, ...agents, path: RUNS, body: atLimit('{"messages":[{"role":"USER","content":[', () => '{}', ']}]}').body, status: 400, family: 'platform', pointer: '/messages/0/content/0/type' },
    // The responses
    { name: `responses: ${fmt(uniqueIds.count)} unique interaction ids`, ...post, ...agents, path: RESPONSES, body: uniqueIds.body, status: 409, family: 'platform', says: /Interaction\(s\) 0, 1, .* and [\d,]+ more are not pending/ },
    { name: 'responses: unique ids, the last one repeating the first', ...post, ...agents, path: RESPONSES, body: uniqueIds.body.replace(/"[0-9]+","decision":"REJECT"\}\]\}$/, '"0","decision":"REJECT"}]}'), status: 409, family: 'platform', says: /Interaction 0 appears more than once/ },
    { name: `responses: ${fmt(badItems.count)} invalid items`, ...post, ...agents, path: RESPONSES, body: badItems.body, status: 400, family: 'platform', pointer: '/responses/0/x' },
    // The unknown keys
    { name: `platform run: ${fmt(runKeys.count)} unknown keys`, ...post, ...agents, path: RUNS, body: runKeys.body, status: 400, family: 'platform', problems: runKeys.count, pointer: '/k0' },
    { name: 'legacy wait run: unknown keys', ...post, ...agents, path: LEGACY_WAIT, body: unknownKeysBody('"agent_id":"echo-assistant"').body, status: 400, family: 'legacy', says: /Unknown field\(s\): k0, k1, .* and [\d,]+ more/ },
    { name: 'responses: unknown keys', ...post, ...agents, path: RESPONSES, body: unknownKeysBody('"run_id":"x","responses":[]').body, status: 400, family: 'platform', pointer: '/k0' },
    { name: 'cancellations: unknown keys', ...post, ...agents, path: '/api/agents/long-runner/cancellations', body: unknownKeysBody('"run_id":"x"').body, status: 400, family: 'platform', pointer: '/k0' },
    { name: 'agent search: unknown keys', ...post, ...agents, path: '/api/agents/search', body: unknownKeysBody('').body, status: 400, family: 'platform', pointer: '/k0' },
    { name: 'schema PUT: unknown keys', ...put, ...global, path: SCHEMA_PUT, body: unknownKeysBody('"metadataKeys":[]').body, status: 400, family: 'metadata', says: /Unknown field\(s\) in the body: k0, .* and [\d,]+ more/ },
    { name: 'schema PUT: a key with unknown fields', ...put, ...global, path: SCHEMA_PUT, body: unknownKeysBody('"name":"a","propertyType":"TEXT"', '{"metadataKeys":[', ']}').body, status: 400, family: 'metadata', says: /metadataKeys\[0\] has unknown field\(s\): k0, .* and [\d,]+ more/ },
    { name: 'document PUT: unknown keys', ...put, ...global, path: HOSTILE_DOC_PUT, body: unknownKeysBody('"customMetadata":[]').body, status: 400, family: 'metadata' },
    { name: 'document PUT: a value with unknown fields', ...put, ...global, path: HOSTILE_DOC_PUT, body: unknownKeysBody('"name":"status","value":"x"', '{"customMetadata":[', ']}').body, status: 400, family: 'metadata' },
    { name: 'platform run: a key of 1 MB that is not a field', ...post, ...agents, path: RUNS, body: `{"${'k'.repeat(MAX_BODY_BYTES - 10)}":1}`, status: 400, family: 'platform', says: /characters\)/ },
    // A document's values and a schema's keys
    { name: `document PUT: ${fmt(docValues.count)} values`, ...put, ...global, path: HOSTILE_DOC_PUT, body: docValues.body, status: 400, family: 'metadata', says: /is not a key of this group/ },
    { name: 'document PUT: a 1 MB key name', ...put, ...global, path: HOSTILE_DOC_PUT, body: `{"customMetadata":[{"name":"${'n'.repeat(MAX_BODY_BYTES - 50)}","value":"x"}]}`, status: 400, family: 'metadata', says: /characters\)" is not a key/ },
    { name: 'document PUT: the same key again and again', ...put, ...global, path: HOSTILE_DOC_PUT, body: atLimit('{"customMetadata":[', () => '{"name":"status","value":"x"}', ']}').body, status: 400, family: 'metadata', says: /given twice/ },
    { name: `schema PUT: ${fmt(schemaKeys.count)} keys`, ...put, ...global, path: SCHEMA_PUT, body: schemaKeys.body, status: 400, family: 'metadata', says: /at most 20 keys/ },
    { name: 'schema PUT: a 1 MB propertyType', ...put, ...global, path: SCHEMA_PUT, body: `{"metadataKeys":[{"name":"a","propertyType":"${'T'.repeat(MAX_BODY_BYTES - 60)}"}]}`, status: 400, family: 'metadata', says: /characters\)" is unknown/ },
    // Deep nesting
    { name: 'platform run: metadata nested half a million levels deep', ...post, ...agents, path: RUNS, body: deep('{"messages":[],"metadata":{"a":', '}}'), status: 400, family: 'platform', says: /more than 64 levels deep/ },
    { name: 'legacy wait run: nested messages', ...post, ...agents, path: LEGACY_WAIT, body: deep('{"agent_id":"echo-assistant","messages":', '}'), status: 400, family: 'legacy', says: /more than 64 levels deep/ },
    { name: 'schema PUT: nested', ...put, ...global, path: SCHEMA_PUT, body: deep('', ''), status: 400, family: 'metadata', says: /more than 64 levels deep/ },
    { name: 'responses: nested', ...post, ...agents, path: RESPONSES, body: deep('{"run_id":"x","responses":', '}'), status: 400, family: 'platform', says: /more than 64 levels deep/ },
    // Wide arrays
    { name: 'form run: an input of half a million values, checked up to its first problem', ...post, ...agents, path: '/api/agents/hr-policy-form/runs', body: atLimit('{"input":{"topic":"","region":"nowhere","pad":[', () => '0', ']}}').body, status: 400, family: 'platform', says: /checked only up to its first problem/ },
    { name: 'form run: a wide array where a string belongs', ...post, ...agents, path: LEGACY_WAIT, body: atLimit('{"agent_id":"hr-policy-form","input":{"topic":[', () => '0', '],"region":"emea","audience":"","tone":"","maxPoints":"","includeLinks":""}}').body, status: 400, family: 'legacy', says: /\/input\/topic must be string/ },
  ];
}

/** Starts a durable run of `expense-filer` at `base` and waits until it pauses for its approval; its id. */
export async function pausedDurableRun(base: string): Promise<string> {
  const headers = { authorization: `Bearer ${AGENTS}`, 'content-type': 'application/json' };
  const res = await fetch(`${base}/api/agents/expense-filer/runs`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ execution_mode: 'DURABLE', messages: [{ role: 'USER', content: [{ type: 'text', text: 'file it' }] }] }),
  });
  const id = ((await res.json()) as { run: { run_id: string } }).run.run_id;
  for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const read = await fetch(`${base}/api/agents/expense-filer/runs/${id}`, { headers });
    if (((await read.json()) as { run: { state: string } }).run.state === 'REQUIRES_INPUT') return id;
  }
  throw new Error(`run ${id} never paused for its approval`);
}
