import { Ajv, type ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Agent, JsonSchema, Message } from '../contract/agents.ts';
import type { ActionSummary, ToolServerAuthType } from '../contract/tool-servers.ts';
import { completeInputSchema, hasInputForm, inputProblemsOf, type InputProblem } from '../contract/agent-input.ts';
import { DURABLE_SCRIPT_SCHEMA, type DurableScript } from './durable/script.ts';
import { pointerToken, ProblemList } from './problem-list.ts';

export interface AgentFailure {
  code: string;
  status: number;
  title: string;
  detail: string;
}

export interface AgentBehaviour {
  /** Answer text; `{{field}}` is filled from the input, `{{lastUserMessage}}` from the messages. */
  text?: string;
  chunking?: 'word' | 'sentence' | 'char' | number;
  delayMs?: number;
  keepAliveMs?: number;
  /** Fail after this many message events. */
  failAfter?: number;
  /** Break the connection after this many message events, with no terminal event. */
  dropAfter?: number;
  failure?: AgentFailure;
  /** Tool servers the token must have authorized: until it has, a run is answered 422 naming those it has not. */
  unauthorizedTools?: { toolName?: string; serverId: string }[];
  /** High volume: `count` events (taken from the input field named) of `text`, `{{n}}` numbered. */
  repeat?: { countField: string; text: string };
  /** What a durable run does (pauses for approvals, cancellable work); without it, a durable run follows the fields above. */
  durable?: DurableScript;
}

export interface AgentDefinition extends Agent {
  input_schema: JsonSchema;
  output_schema?: JsonSchema;
  /** What `include_tools=true` lists for the agent. */
  tools?: ActionSummary[];
  behaviour: AgentBehaviour;
}

/** One tool a tool server offers, as the agents file writes it. */
export interface ToolServerToolDefinition {
  name: string;
  display_name?: string;
  description?: string;
  input_schema?: JsonSchema;
  annotations?: Record<string, unknown>;
}

/** A tool server a token authorizes (the sandbox plays its OAuth provider). */
export interface ToolServerDefinition {
  server_id: string;
  display_name: string;
  description?: string;
  auth_type: ToolServerAuthType;
  tools: ToolServerToolDefinition[];
}

export const DEFAULT_AGENTS_FILE = fileURLToPath(new URL('./agents.json', import.meta.url));

const ACTION_SUMMARY_SCHEMA = {
  type: 'object',
  required: ['tool_id', 'display_name'],
  additionalProperties: false,
  properties: {
    tool_id: { type: 'string', minLength: 1 },
    display_name: { type: 'string', minLength: 1 },
    type: { type: 'string' },
    auth_type: { type: 'string' },
    write_action_type: { type: 'string' },
    is_setup_finished: { type: 'boolean' },
    data_source: { type: 'string' },
  },
} as const;

const TOOL_SERVER_SCHEMA = {
  type: 'object',
  required: ['server_id', 'display_name', 'auth_type', 'tools'],
  additionalProperties: false,
  properties: {
    server_id: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' },
    display_name: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    auth_type: { enum: ['AUTH_USER_OAUTH', 'AUTH_ADMIN', 'AUTH_NONE'] },
    tools: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1 },
          display_name: { type: 'string' },
          description: { type: 'string' },
          input_schema: { type: 'object' },
          annotations: { type: 'object' },
        },
      },
    },
  },
} as const;

const DEFINITION_SCHEMA = {
  type: 'object',
  required: ['agents'],
  properties: {
    tool_servers: { type: 'array', items: TOOL_SERVER_SCHEMA },
    agents: {
      type: 'array',
      items: {
        type: 'object',
        required: ['agent_id', 'name', 'capabilities', 'input_schema', 'behaviour'],
        properties: {
          agent_id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
          name: { type: 'string', minLength: 1 },
          description: { type: 'string' },
          capabilities: { type: 'object' },
          input_schema: { type: 'object' },
          output_schema: { type: 'object' },
          tools: { type: 'array', items: ACTION_SUMMARY_SCHEMA },
          behaviour: {
            type: 'object',
            additionalProperties: false,
            properties: {
              text: { type: 'string' },
              chunking: { anyOf: [{ enum: ['word', 'sentence', 'char'] }, { type: 'integer', minimum: 1 }] },
              delayMs: { type: 'integer', minimum: 0 },
              keepAliveMs: { type: 'integer', minimum: 10 },
              failAfter: { type: 'integer', minimum: 0 },
              dropAfter: { type: 'integer', minimum: 0 },
              failure: {
                type: 'object',
                required: ['code', 'status', 'title', 'detail'],
                properties: {
                  code: { type: 'string' },
                  status: { type: 'integer' },
                  title: { type: 'string' },
                  detail: { type: 'string' },
                },
              },
              unauthorizedTools: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['serverId'],
                  properties: { toolName: { type: 'string' }, serverId: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' } },
                },
              },
              repeat: {
                type: 'object',
                required: ['countField', 'text'],
                properties: { countField: { type: 'string' }, text: { type: 'string' } },
              },
              durable: DURABLE_SCRIPT_SCHEMA,
            },
          },
        },
      },
    },
  },
} as const;

/** One problem with a run request, as a JSON pointer into the body and a sentence. */
export type RunInputProblem = Pick<InputProblem, 'pointer' | 'detail' | 'code'>;

/**
 * A failing `input` of up to this many values (objects, arrays and scalars) is checked for
 * every problem; a larger one only up to its first. Ajv's every-error mode costs an error
 * object per failing value, and a 1 MB body holds half a million values: that is seconds of
 * one request holding the event loop. No form needs a tenth of this.
 */
export const FULL_INPUT_CHECK_MAX_VALUES = 2_000;

/** The number of values in `value`, counted up to `limit + 1` (no further): no recursion. */
export function valueCountUpTo(value: unknown, limit: number): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length && n <= limit) {
    const v = stack.pop();
    n++;
    if (typeof v === 'object' && v !== null) for (const child of Object.values(v)) stack.push(child);
  }
  return n;
}

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The `messages` of a run body against the rules MESSAGES_SCHEMA states (contract/agent-input.ts;
 * problem-list.test.ts checks that both agree on random values), in one pass that lists the
 * first problems and only counts the others, building no pointer or sentence for them.
 * Ajv's every-error mode took seconds on a 1 MB body of bad items, and its error list
 * overflowed the stack when spread (a 500).
 */
export function checkMessages(messages: unknown, problems: ProblemList<RunInputProblem>): void {
  const INVALID = 'invalid_parameter';
  const MISSING = 'missing_required_field';
  // Once the listed problems are full, pointers are '' (no number is turned into text) and
  // each problem is only counted: `full` never turns false again.
  const note = (code: RunInputProblem['code'], pointer: string, what: string) => {
    if (problems.full) problems.countOnly(code);
    else problems.add({ pointer, code, detail: code === MISSING ? `${pointer} is required.` : `${pointer} ${what}.` });
  };
  const extraFields = (item: Record<string, unknown>, a: string, b: string, at: string, shape: string) => {
    const keys = Object.keys(item);
    if (keys.length === (hasOwn(item, a) ? 1 : 0) + (hasOwn(item, b) ? 1 : 0)) return;
    for (const k of keys) if (k !== a && k !== b) note(INVALID, problems.full ? '' : `${at}/${pointerToken(k)}`, `is not a field of ${shape}`);
  };
  if (!Array.isArray(messages)) return note(INVALID, '/messages', 'must be a list of messages');
  if (messages.length === 0) return note(INVALID, '/messages', 'must hold at least one message');
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i];
    const at = problems.full ? '' : `/messages/${i}`;
    if (!isRecord(m)) {
      note(INVALID, at, 'must be an object { role, content }');
      continue;
    }
    extraFields(m, 'role', 'content', at, 'a message (role, content)');
    if (!hasOwn(m, 'role')) note(MISSING, `${at}/role`, '');
    else if (m.role !== 'USER' && m.role !== 'GLEAN_AI') note(INVALID, `${at}/role`, 'must be USER or GLEAN_AI');
    const content = m.content;
    if (!hasOwn(m, 'content')) note(MISSING, `${at}/content`, '');
    else if (!Array.isArray(content)) note(INVALID, `${at}/content`, 'must be a list of content blocks');
    else if (content.length === 0) note(INVALID, `${at}/content`, 'must hold at least one content block');
    else {
      for (let j = 0; j < content.length; j++) {
        const block: unknown = content[j];
        if (isRecord(block) && block.type === 'text' && typeof block.text === 'string' && Object.keys(block).length === 2) continue;
        const bat = problems.full ? '' : `${at}/content/${j}`;
        if (!isRecord(block)) {
          note(INVALID, bat, 'must be an object { type, text }');
          continue;
        }
        extraFields(block, 'type', 'text', bat, 'a content block (type, text)');
        if (!hasOwn(block, 'type')) note(MISSING, `${bat}/type`, '');
        else if (block.type !== 'text') note(INVALID, `${bat}/type`, 'must be "text"');
        if (!hasOwn(block, 'text')) note(MISSING, `${bat}/text`, '');
        else if (typeof block.text !== 'string') note(INVALID, `${bat}/text`, 'must be a string');
      }
    }
  }
}

/** The scripted agents, loaded from one JSON file a user can extend. */
export class AgentCatalog {
  readonly agents: readonly AgentDefinition[];
  /** Every tool server by id: the file's, and any an agent names without the file describing it. */
  readonly toolServers: ReadonlyMap<string, ToolServerDefinition>;
  private readonly byId = new Map<string, AgentDefinition>();
  private readonly ajv = new Ajv({ allErrors: true, strict: false });
  private readonly firstErrorAjv = new Ajv({ allErrors: false, strict: false });
  /** Every problem of an input, for inputs up to FULL_INPUT_CHECK_MAX_VALUES values. */
  private readonly inputValidators = new Map<string, ValidateFunction>();
  /** Valid or not, stopping at the first problem: the check every input gets. */
  private readonly firstErrorValidators = new Map<string, ValidateFunction>();

  constructor(file: string = DEFAULT_AGENTS_FILE) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`Cannot read the agents file ${file}: ${(err as Error).message}`, { cause: err });
    }
    const check = new Ajv({ allErrors: true, strict: false }).compile(DEFINITION_SCHEMA);
    if (!check(parsed)) {
      const why = (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ');
      throw new Error(`The agents file ${file} is not valid: ${why}`);
    }
    const definitions = parsed as { agents: AgentDefinition[]; tool_servers?: ToolServerDefinition[] };
    this.agents = definitions.agents;
    const servers = new Map<string, ToolServerDefinition>();
    for (const s of definitions.tool_servers ?? []) {
      if (servers.has(s.server_id)) throw new Error(`The agents file ${file} lists tool server ${s.server_id} twice.`);
      servers.set(s.server_id, s);
    }
    for (const a of this.agents) {
      // An agents file written before tool servers had a section names its servers only here:
      // each is a server that asks every user's OAuth consent, named as the agent names it.
      for (const t of a.behaviour.unauthorizedTools ?? []) {
        if (!servers.has(t.serverId)) servers.set(t.serverId, { server_id: t.serverId, display_name: t.toolName ?? t.serverId, auth_type: 'AUTH_USER_OAUTH', tools: [] });
      }
    }
    this.toolServers = servers;
    for (const a of this.agents) {
      if (this.byId.has(a.agent_id)) throw new Error(`The agents file ${file} lists agent ${a.agent_id} twice.`);
      this.byId.set(a.agent_id, a);
      if (!hasInputForm(a.input_schema)) continue;
      try {
        const schema = completeInputSchema(a.input_schema);
        this.inputValidators.set(a.agent_id, this.ajv.compile(schema));
        this.firstErrorValidators.set(a.agent_id, this.firstErrorAjv.compile(schema));
      } catch (err) {
        throw new Error(`Agent ${a.agent_id} has an input_schema Ajv cannot compile: ${(err as Error).message}`, { cause: err });
      }
    }
  }

  get(id: string): AgentDefinition | undefined {
    return this.byId.get(id);
  }

  search(name: string | undefined): Agent[] {
    const needle = (name ?? '').trim().toLowerCase();
    return this.agents.filter((a) => !needle || a.name.toLowerCase().includes(needle)).map(publicAgent);
  }

  /**
   * Checks `input` and `messages` against what the agent takes, in time linear in their size;
   * empty when the run may start.
   */
  checkRun(agent: AgentDefinition, input: unknown, messages: unknown): ProblemList<RunInputProblem> {
    const problems = new ProblemList<RunInputProblem>();
    if (messages !== undefined) checkMessages(messages, problems);
    if (hasInputForm(agent.input_schema)) {
      if (input === undefined) {
        problems.add({
          pointer: '/input',
          code: 'missing_required_field',
          detail: 'This agent is triggered by an input form: input is required, with every form field.',
        });
      } else {
        const first = this.firstErrorValidators.get(agent.agent_id)!;
        if (!first(input)) {
          const small = valueCountUpTo(input, FULL_INPUT_CHECK_MAX_VALUES) <= FULL_INPUT_CHECK_MAX_VALUES;
          const validate = small ? this.inputValidators.get(agent.agent_id)! : first;
          if (small) validate(input);
          for (const p of inputProblemsOf(validate.errors, '/input', input)) problems.add(p);
          if (!small) problems.incomplete = `input holds more than ${FULL_INPUT_CHECK_MAX_VALUES.toLocaleString('en-US')} values, so it was checked only up to its first problem.`;
        }
      }
    } else if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
      problems.add({ pointer: '/input', code: 'invalid_parameter', detail: 'input must be an object.' });
    }
    if (agent.capabilities['ap.io.messages'] && !hasInputForm(agent.input_schema) && messages === undefined && input === undefined) {
      problems.add({ pointer: '/messages', code: 'missing_required_field', detail: 'This agent takes messages: send at least one.' });
    }
    return problems;
  }
}

export function publicAgent(a: AgentDefinition): Agent {
  const out: Agent = { agent_id: a.agent_id, name: a.name, capabilities: a.capabilities };
  if (a.description) out.description = a.description;
  return out;
}

/** One step of a scripted run: a fragment to send, after a pause, the failure, or a dropped connection. */
export interface RunStep {
  delayMs: number;
  text?: string;
  failure?: AgentFailure;
  drop?: true;
}

function fill(template: string, input: Record<string, unknown>, messages: Message[] | undefined): string {
  const lastUser = [...(messages ?? [])].reverse().find((m) => m.role === 'USER');
  const lastUserMessage = lastUser ? lastUser.content.map((b) => b.text).join(' ') : '';
  return template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    if (key === 'lastUserMessage') return lastUserMessage || '(no message)';
    const v = input[key];
    if (v === undefined || v === '') return 'none';
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}

function chunk(text: string, how: AgentBehaviour['chunking']): string[] {
  if (typeof how === 'number') {
    const out: string[] = [];
    for (let i = 0; i < text.length; i += how) out.push(text.slice(i, i + how));
    return out;
  }
  if (how === 'char') return [...text];
  if (how === 'sentence') return text.match(/[^.!?]+[.!?]*\s*/g) ?? [text];
  return text.match(/\S+\s*/g) ?? [text];
}

/** Largest number of events a high-volume run may ask for. */
export const MAX_REPEAT = 1_000_000;

/** The run as a lazy sequence of steps, so a million-event run costs no memory up front. */
export function* planRun(
  agent: AgentDefinition,
  input: Record<string, unknown> | undefined,
  messages: Message[] | undefined,
): Generator<RunStep> {
  const b = agent.behaviour;
  const values = input ?? {};
  if (b.repeat) {
    const raw = Number(values[b.repeat.countField]);
    const count = Number.isInteger(raw) && raw > 0 ? Math.min(raw, MAX_REPEAT) : 1;
    const [before, after] = b.repeat.text.split('{{n}}');
    for (let n = 1; n <= count; n++) yield { delayMs: 0, text: after === undefined ? before : `${before}${n}${after}` };
    return;
  }
  const pieces = chunk(fill(b.text ?? '', values, messages), b.chunking);
  const delayMs = b.delayMs ?? 0;
  const stopAt = Math.min(b.failAfter ?? Infinity, b.dropAfter ?? Infinity, pieces.length);
  for (let i = 0; i < stopAt; i++) yield { delayMs, text: pieces[i] };
  if (b.dropAfter !== undefined && (b.failAfter === undefined || b.dropAfter <= b.failAfter)) {
    yield { delayMs, drop: true };
  } else if (b.failAfter !== undefined) {
    yield { delayMs, failure: b.failure ?? { code: 'internal_error', status: 500, title: 'Internal Error', detail: 'The agent failed.' } };
  }
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
